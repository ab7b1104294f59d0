#include "common/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace mpf::common {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kKillGraceSeconds = 5;
// How long output is still read after the command exited.
constexpr double kDrainSeconds = 2;

// A pipe whose ends close themselves.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) fd[0] = fd[1] = -1;
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

volatile sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

void catch_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return g_interrupted != 0; }

std::string ProcessResult::how_it_ended(double timeout) const {
  if (!started) return "could not start: " + error;
  std::ostringstream s;
  if (timed_out && g_interrupted) {
    s << "interrupted";
  } else if (timed_out) {
    s << "timed out after " << timeout << " s";
  } else if (signal != 0) {
    s << "killed by signal " << signal << " (" << ::strsignal(signal) << ")";
  } else {
    s << "exit status " << exit_code;
  }
  return s.str();
}

std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate)) return candidate;
  }
  return {};
}

std::string shell_words(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                         "-_./=:,+@%") == std::string::npos;
    line += (line.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return line;
}

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds) {
  ProcessResult result;
  Pipe out, err;
  if (out.fd[0] < 0 || err.fd[0] < 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout stops it and all it started
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const auto t0 = Clock::now();
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    result.error = argv[0] + ": " + std::strerror(rc);
    return result;
  }
  result.started = true;
  out.close_end(1);
  err.close_end(1);

  // The output pipes and, where the kernel has pidfd_open (Linux 5.3), a
  // descriptor that becomes readable the moment the command exits, so that
  // its running time (a start-up measurement) is not rounded to a poll tick.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  std::array<pollfd, 3> fds = {pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0}, pollfd{pidfd, POLLIN, 0}};
  std::array<std::string*, 2> sinks = {&result.out, &result.err};
  int status = 0;
  bool exited = false, killed = false;
  for (;;) {
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      result.seconds = since(t0);
      if (pidfd >= 0) ::close(pidfd);
      fds[2].fd = -1;
    }
    const bool open = fds[0].fd >= 0 || fds[1].fd >= 0;
    // Done when it has exited and its output is read; or, when it was killed
    // or exited a while ago, as soon as it has exited (a process it left
    // behind may hold the pipes open).
    if (exited && (!open || killed || since(t0) - result.seconds > kDrainSeconds)) break;
    const double elapsed = since(t0);
    if (!result.timed_out && (elapsed > timeout_seconds || g_interrupted)) {
      result.timed_out = true;
      ::kill(-pid, SIGTERM);
    }
    if (result.timed_out && !killed && elapsed > timeout_seconds + kKillGraceSeconds) {
      killed = true;
      ::kill(-pid, SIGKILL);
    }
    if (::poll(fds.data(), fds.size(), pidfd >= 0 && !exited ? 200 : 10) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < sinks.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[65536];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // the Pipe closes it
      }
    }
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace mpf::common
