#include "launcher/rank_process.hpp"

#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

#include "common/system_error.hpp"

namespace mpf::launcher {
namespace {

struct Pipe {
  int read = -1, write = -1;
};

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(common::system_error_text("pipe2", errno));
  return {fds[0], fds[1]};
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void child_fail(int status_fd) {
  const int err = errno;
  [[maybe_unused]] ssize_t n = ::write(status_fd, &err, sizeof err);
  ::_exit(127);
}

}  // namespace

RankProcess start_rank(const RankLaunch& launch) {
  // Everything the child touches is built here, before fork.
  std::vector<char*> argv = c_strings(launch.argv);
  std::vector<char*> envp = c_strings(launch.env);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int c : launch.placement.cpus) CPU_SET(c, &cpus);
  unsigned long nodemask = launch.placement.numa_node >= 0 ? 1UL << launch.placement.numa_node : 0;
  sigset_t all;
  sigemptyset(&all);
  const pid_t parent = ::getpid();

  Pipe in = launch.give_stdin ? make_pipe() : Pipe{};
  Pipe out = make_pipe();
  Pipe err = make_pipe();
  Pipe status = make_pipe();

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(common::system_error_text("fork", errno));
  if (pid == 0) {
    // The rank dies with mpfrun, even if mpfrun is killed with SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    // Own process group: a terminal's ^C reaches mpfrun only, which forwards
    // it once to every rank.
    ::setpgid(0, 0);
    // mpfrun blocks signals to read them from a signalfd; ranks start clean.
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGCHLD}) ::signal(s, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &all, nullptr);

    if (launch.give_stdin) {
      ::dup2(in.read, STDIN_FILENO);
    } else {
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, STDIN_FILENO);
    }
    ::dup2(out.write, STDOUT_FILENO);
    ::dup2(err.write, STDERR_FILENO);
    if (launch.segment_fd >= 0) ::fcntl(launch.segment_fd, F_SETFD, 0);  // inherit across exec
    if (!launch.placement.cpus.empty() && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) child_fail(status.write);
    if (nodemask != 0) ::set_mempolicy(MPOL_PREFERRED, &nodemask, sizeof nodemask * 8);
    ::execve(launch.path.c_str(), argv.data(), envp.data());
    child_fail(status.write);
  }

  for (int fd : {in.read, out.write, err.write, status.write}) {
    if (fd >= 0) ::close(fd);
  }
  RankProcess p;
  p.pid = pid;
  p.stdin_fd = in.write;
  p.stdout_fd = out.read;
  p.stderr_fd = err.read;
  p.exec_status_fd = status.read;
  return p;
}

int wait_for_exec(RankProcess& p) {
  int err = 0;
  ssize_t n;
  do {
    n = ::read(p.exec_status_fd, &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  ::close(p.exec_status_fd);
  p.exec_status_fd = -1;
  return n == static_cast<ssize_t>(sizeof err) ? err : 0;
}

void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value) {
  const std::string prefix = name + "=";
  for (std::string& e : env) {
    if (e.compare(0, prefix.size(), prefix) == 0) {
      e = prefix + value;
      return;
    }
  }
  env.push_back(prefix + value);
}

}  // namespace mpf::launcher
