#include "launcher/job_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "common/system_error.hpp"
#include "core/runtime.hpp"
#include "inspect/job_state.hpp"
#include "inspect/render.hpp"
#include "job/run_registry.hpp"
#include "launcher/messages.hpp"
#include "launcher/output.hpp"
#include "launcher/pmix_server.hpp"
#include "launcher/rank_process.hpp"
#include "shm/counters.hpp"
#include "core/job_regions.hpp"
#include "shm/segment.hpp"
#include "wireup/launchers.hpp"

extern char** environ;

namespace mpf::launcher {
namespace {

constexpr int kTimeoutStatus = 124;
constexpr int kUsageStatus = 2;

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// The PMIx server's private directory, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& jobid) {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/mpf-pmix-" + jobid + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(common::system_error_text("cannot create a temporary directory: mkdtemp " + pattern, errno));
    }
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void arm_timer(int fd, std::int64_t ns) {
  itimerspec spec{};
  spec.it_value.tv_sec = ns / 1'000'000'000;
  spec.it_value.tv_nsec = ns % 1'000'000'000;
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  ::timerfd_settime(fd, 0, &spec, nullptr);
}

// The job's shared memory: one segment per node, one node unless
// --virtual-nodes splits the ranks into several (consecutive ranks
// together), each node's ranks numbered in its segment in world order.
struct NodeSegments {
  std::vector<shm::Segment> segments;
  std::vector<std::uint32_t> node_of;   // per world rank
  std::vector<std::uint32_t> local_of;  // per world rank: its place in its node's segment

  const shm::RankControl& control(std::uint32_t rank) const { return segments[node_of[rank]].rank(local_of[rank]); }
  const shm::Segment& of(std::uint32_t rank) const { return segments[node_of[rank]]; }
  // "0,0,1,1": what each rank is told (wireup::kEnvVirtualNodes).
  std::string node_list() const {
    std::string out;
    for (const std::uint32_t n : node_of) out += (out.empty() ? "" : ",") + std::to_string(n);
    return out;
  }
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const shm::Segment& s : segments) n += s.bytes();
    return n;
  }
  std::uint64_t resident_bytes() const {
    std::uint64_t n = 0;
    for (const shm::Segment& s : segments) n += s.resident_bytes();
    return n;
  }
};

struct AbortNotice {
  std::uint32_t rank;
  int code;
  std::string message;
};

class Runner {
 public:
  Runner(const Options& options, const common::Tunables& tunables, JobRecord& job)
      : options_(options), tunables_(tunables), job_(job) {}

  int run();

 private:
  void launch_all(PmixServer& server, const NodeSegments& segment, OutputForwarder& output);
  void event_loop(OutputForwarder& output, const NodeSegments& segment);
  void reap(const NodeSegments& segment, OutputForwarder& output);
  void on_rank_exit(RankRecord& rank, int wait_status, const NodeSegments& segment);
  void take_aborts(const RankRecord* exiting = nullptr);
  void on_signal(int signo);
  void on_timeout(const NodeSegments& segment);
  // The first failure decides the exit status and stops the job; `culprit`
  // is the failing rank, not counted among the others being stopped.
  void fail(int status, const std::string& what, const RankRecord* culprit);
  void begin_stop(int signo);
  void kill_running(int signo);
  int running_count() const;
  std::string rank_label(const RankRecord& r) const;

  const Options& options_;
  const common::Tunables& tunables_;
  JobRecord& job_;
  std::vector<RankProcess> processes_;
  job::JobEntry entry_;  // as registered in the run directory

  bool stopping_ = false;
  bool failed_ = false;
  int status_ = 0;

  Fd signal_fd_, abort_fd_, timeout_fd_, grace_fd_;
  std::mutex abort_mutex_;
  std::deque<AbortNotice> aborts_;  // filled on PMIx's thread

  // Standard input for rank 0.
  int stdin_target_ = -1;
  bool stdin_open_ = true;
  std::string stdin_buffer_;
};

int Runner::running_count() const {
  int n = 0;
  for (const RankRecord& r : job_.ranks) n += r.running ? 1 : 0;
  return n;
}

std::string Runner::rank_label(const RankRecord& r) const {
  return "rank " + std::to_string(r.rank) + " (pid " + std::to_string(r.pid) + " on " + job_.host + ")";
}

void Runner::kill_running(int signo) {
  for (const RankRecord& r : job_.ranks) {
    // The rank leads its own process group: its children go with it.
    if (r.running && ::kill(-r.pid, signo) != 0) ::kill(r.pid, signo);  // not yet its own group
  }
}

void Runner::begin_stop(int signo) {
  if (stopping_) return;
  stopping_ = true;
  kill_running(signo);
  arm_timer(grace_fd_.get(), tunables_.integer(common::Tunable::stop_grace_ms) * 1'000'000);
}

void Runner::fail(int status, const std::string& what, const RankRecord* culprit) {
  if (failed_ || stopping_) return;
  failed_ = true;
  status_ = status;
  job_.outcome = what;
  const int others = running_count() - (culprit != nullptr && culprit->running ? 1 : 0);
  std::string line = "mpfrun: " + what;
  if (others > 0) line += "; stopping " + std::to_string(others) + " other rank" + (others == 1 ? "" : "s");
  std::fprintf(stderr, "%s\n", line.c_str());
  begin_stop(SIGTERM);
}

// Abort notices arrive on PMIx's thread. With `exiting`, only that rank's
// notice is taken: its abort must be known before its exit is judged, but a
// peer's later abort must not overtake an earlier death.
void Runner::take_aborts(const RankRecord* exiting) {
  std::deque<AbortNotice> notices;
  {
    std::lock_guard lock(abort_mutex_);
    if (exiting == nullptr) {
      notices.swap(aborts_);
    } else {
      for (auto it = aborts_.begin(); it != aborts_.end();) {
        if (it->rank == exiting->rank) {
          notices.push_back(std::move(*it));
          it = aborts_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  for (const AbortNotice& a : notices) {
    if (a.rank >= job_.ranks.size()) continue;
    const RankRecord& r = job_.ranks[a.rank];
    fail(a.code & 0xff,
         rank_label(r) + " aborted the job with code " + std::to_string(a.code) +
             (a.message.empty() ? "" : ": " + a.message),
         &r);
  }
}

void Runner::on_rank_exit(RankRecord& r, int wait_status, const NodeSegments& segment) {
  r.running = false;
  r.end_ns = steady_ns();
  const shm::RankControl& control = segment.control(r.rank);
  r.final_state = static_cast<shm::RankState>(control.state.load(std::memory_order_acquire));
  r.counters.clear();
  for (const shm::CounterField& field : shm::kCounterFields) {
    r.counters.push_back((control.counters.*field.member).load(std::memory_order_relaxed));
  }
  if (WIFSIGNALED(wait_status)) {
    r.term_signal = WTERMSIG(wait_status);
    fail(128 + r.term_signal, rank_label(r) + " killed by " + signal_description(r.term_signal), &r);
    return;
  }
  r.exit_code = WEXITSTATUS(wait_status);
  if (r.final_state == shm::RankState::aborted) {
    // The abort notice normally arrives first; this covers a rank whose
    // PMIx connection failed before it could tell us.
    const int code = control.abort_code.load(std::memory_order_relaxed);
    fail(code & 0xff, rank_label(r) + " aborted the job with code " + std::to_string(code), &r);
  } else if (r.exit_code != 0) {
    fail(r.exit_code, rank_label(r) + " exited with code " + std::to_string(r.exit_code), &r);
  } else if (r.final_state == shm::RankState::initialized) {
    fail(1, rank_label(r) + " exited with code 0 without calling MPI_Finalize", &r);
  }
}

void Runner::reap(const NodeSegments& segment, OutputForwarder& output) {
  for (;;) {
    int wait_status = 0;
    const pid_t pid = ::waitpid(-1, &wait_status, WNOHANG);
    if (pid <= 0) return;
    for (RankRecord& r : job_.ranks) {
      if (r.pid == pid && r.running) {
        take_aborts(&r);  // an abort is heard before the aborting rank's exit
        on_rank_exit(r, wait_status, segment);
        output.rank_exited(r.rank);
        break;
      }
    }
  }
}

void Runner::on_signal(int signo) {
  if (signo == SIGUSR1 || signo == SIGUSR2) {
    for (const RankRecord& r : job_.ranks) {
      if (r.running) ::kill(r.pid, signo);
    }
    return;
  }
  if (stopping_) {
    // A second interrupt: the user does not want to wait for the grace period.
    kill_running(SIGKILL);
    return;
  }
  const int n = running_count();
  std::fprintf(stderr, "mpfrun: received %s; stopping %d rank%s\n", signal_description(signo).c_str(), n,
               n == 1 ? "" : "s");
  failed_ = true;
  status_ = 128 + signo;
  job_.outcome = "mpfrun received " + signal_description(signo);
  begin_stop(signo);
}

void Runner::on_timeout(const NodeSegments& segment) {
  if (stopping_) return;
  std::vector<std::uint32_t> running;
  for (const RankRecord& r : job_.ranks) {
    if (r.running) running.push_back(r.rank);
  }
  const std::string what = "timeout: the job ran longer than " + format_seconds(options_.timeout_seconds) +
                           "; ranks still running: " + rank_list(running) + " (" + std::to_string(running.size()) +
                           " of " + std::to_string(job_.ranks.size()) + ")";
  std::fprintf(stderr, "mpfrun: %s\n", what.c_str());
  for (const RankRecord& r : job_.ranks) {
    if (!r.running) continue;
    const auto state = static_cast<shm::RankState>(segment.control(r.rank).state.load(std::memory_order_acquire));
    std::fprintf(stderr, "mpfrun:   rank %u (pid %d): %s\n", r.rank, static_cast<int>(r.pid),
                 describe_rank_state(state).c_str());
  }
  // What mpfinspect would show, so a hung job's log says why it hung.
  try {
    const nlohmann::json state = inspect::read_job(entry_);
    std::fprintf(stderr, "mpfrun: the job as mpfinspect sees it:\n%s",
                 inspect::render_job_and_deadlock(state, std::nullopt).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpfrun: could not inspect the job: %s\n", e.what());
  }
  failed_ = true;
  status_ = kTimeoutStatus;
  job_.outcome = what;
  begin_stop(SIGTERM);
}

void Runner::launch_all(PmixServer& server, const NodeSegments& segment, OutputForwarder& output) {
  std::vector<std::string> base(environ, environ + [] {
    std::size_t n = 0;
    while (environ[n] != nullptr) ++n;
    return n;
  }());
  const std::string nspace = "mpf." + job_.jobid;
  server.register_job(nspace, static_cast<std::uint32_t>(job_.ranks.size()));

  processes_.resize(job_.ranks.size());
  for (RankRecord& r : job_.ranks) {
    const AppContext& app = options_.apps[r.app];
    RankLaunch launch;
    launch.rank = r.rank;
    launch.path = app.program_path;
    launch.argv.push_back(app.program);
    launch.argv.insert(launch.argv.end(), app.args.begin(), app.args.end());
    launch.env = server.register_rank(r.rank, base);
    for (const auto& [name, value] : app.env) set_env(launch.env, name, value);
    set_env(launch.env, core::kEnvSegmentFd, std::to_string(segment.of(r.rank).fd()));
    if (segment.segments.size() > 1) set_env(launch.env, wireup::kEnvVirtualNodes, segment.node_list());
    set_env(launch.env, core::kEnvJobId, job_.jobid);
    launch.placement = r.placement;
    launch.segment_fd = segment.of(r.rank).fd();
    launch.give_stdin = r.rank == 0;
    RankProcess& p = processes_[r.rank];
    p = start_rank(launch);
    r.pid = p.pid;
    r.running = true;
    r.start_ns = steady_ns();
    output.attach(r.rank, 1, p.stdout_fd);
    output.attach(r.rank, 2, p.stderr_fd);
    if (r.rank == 0) stdin_target_ = p.stdin_fd;
  }
  // Collect exec results after every fork, so the launches overlap.
  for (RankRecord& r : job_.ranks) {
    const int err = wait_for_exec(processes_[r.rank]);
    if (err != 0 && !failed_) {
      fail(kUsageStatus, "cannot start rank " + std::to_string(r.rank) + ": " +
                             common::system_error_text(options_.apps[r.app].program_path, err),
           &r);
    }
  }
}

void Runner::event_loop(OutputForwarder& output, const NodeSegments& segment) {
  if (stdin_target_ >= 0) ::fcntl(stdin_target_, F_SETFL, ::fcntl(stdin_target_, F_GETFL) | O_NONBLOCK);
  std::int64_t drain_deadline = 0;
  for (;;) {
    const bool ranks_left = running_count() > 0;
    const std::vector<int> outputs = output.open_descriptors();
    if (!ranks_left && outputs.empty()) break;
    if (!ranks_left) {
      // Every rank has exited; output still open belongs to processes they
      // left behind. Give it a moment, then stop listening: close_all()
      // still forwards all that the ranks themselves wrote.
      if (drain_deadline == 0) drain_deadline = steady_ns() + 1'000'000'000;
      if (steady_ns() >= drain_deadline) break;
    }
    std::vector<pollfd> fds;
    fds.push_back({signal_fd_.get(), POLLIN, 0});
    fds.push_back({abort_fd_.get(), POLLIN, 0});
    fds.push_back({timeout_fd_.get(), POLLIN, 0});
    fds.push_back({grace_fd_.get(), POLLIN, 0});
    const std::size_t first_stream = fds.size();
    const bool want_stdin = stdin_open_ && stdin_target_ >= 0 && stdin_buffer_.size() < 65536;
    fds.push_back({want_stdin ? STDIN_FILENO : -1, POLLIN, 0});
    fds.push_back({stdin_buffer_.empty() ? -1 : stdin_target_, POLLOUT, 0});
    const std::size_t first_output = fds.size();
    for (int fd : outputs) fds.push_back({fd, POLLIN, 0});

    const int ready = ::poll(fds.data(), fds.size(), ranks_left ? -1 : 100);
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(common::system_error_text("poll", errno));
    }
    if (fds[0].revents != 0) {
      signalfd_siginfo info;
      while (::read(signal_fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (static_cast<int>(info.ssi_signo) == SIGCHLD) {
          reap(segment, output);
        } else {
          on_signal(static_cast<int>(info.ssi_signo));
        }
      }
    }
    // Exits first: a rank that died before a peer aborted (often because of
    // that death) is the cause to report.
    if (fds[1].revents != 0) {
      std::uint64_t count;
      [[maybe_unused]] ssize_t n = ::read(abort_fd_.get(), &count, sizeof count);
      take_aborts();
    }
    if (fds[2].revents != 0) {
      std::uint64_t expirations;
      [[maybe_unused]] ssize_t n = ::read(timeout_fd_.get(), &expirations, sizeof expirations);
      on_timeout(segment);
    }
    if (fds[3].revents != 0) {
      std::uint64_t expirations;
      [[maybe_unused]] ssize_t n = ::read(grace_fd_.get(), &expirations, sizeof expirations);
      kill_running(SIGKILL);
    }
    // Standard input to rank 0.
    if (fds[first_stream].revents != 0) {
      char buf[16384];
      const ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0) {
        stdin_buffer_.append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        stdin_open_ = false;
      }
    }
    if (fds[first_stream + 1].revents != 0) {
      const ssize_t n = ::write(stdin_target_, stdin_buffer_.data(), stdin_buffer_.size());
      if (n > 0) {
        stdin_buffer_.erase(0, static_cast<std::size_t>(n));
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        stdin_buffer_.clear();  // rank 0 closed its input: nobody will read the rest
        stdin_open_ = false;
      }
    }
    if (!stdin_open_ && stdin_buffer_.empty() && stdin_target_ >= 0) {
      ::close(stdin_target_);
      stdin_target_ = -1;
    }
    for (std::size_t i = first_output; i < fds.size(); ++i) {
      if (fds[i].revents != 0) output.drain(fds[i].fd);
    }
  }
  if (stdin_target_ >= 0) ::close(stdin_target_);
  stdin_target_ = -1;
  output.close_all();
}

int Runner::run() {
  job_.jobid = std::to_string(::getpid());
  job_.host = this_host_name();
  job_.start_unix_ns = unix_ns();

  job::RunRegistry registry(common::resolved_run_dir(tunables_));
  for (const job::JobEntry& dead : registry.clean_dead()) {
    if (options_.verbose > 0) {
      std::fprintf(stderr, "mpfrun: removed what dead job %s (mpfrun pid %d) left behind\n", dead.jobid.c_str(),
                   static_cast<int>(dead.launcher_pid));
    }
  }

  const std::vector<int> cpus = allowed_cpus();
  job_.cpus = static_cast<std::uint32_t>(cpus.size());
  const int nranks = options_.total_ranks();
  const std::vector<Placement> plan = plan_placements(options_.bind_to, options_.map_by, nranks, cpus);
  {
    std::uint32_t rank = 0;
    for (std::size_t a = 0; a < options_.apps.size(); ++a) {
      for (int i = 0; i < options_.apps[a].nranks; ++i, ++rank) {
        RankRecord r;
        r.rank = rank;
        r.app = a;
        r.placement = plan[rank];
        job_.ranks.push_back(r);
      }
    }
  }

  NodeSegments segment;
  const auto nodes = static_cast<std::uint32_t>(options_.virtual_nodes);
  std::vector<std::uint32_t> node_sizes(nodes, 0);
  for (int rank = 0; rank < nranks; ++rank) {
    const auto node = static_cast<std::uint32_t>(static_cast<std::uint64_t>(rank) * nodes / nranks);
    segment.node_of.push_back(node);
    segment.local_of.push_back(node_sizes[node]++);
  }
  for (std::uint32_t node = 0; node < nodes; ++node) {
    try {
      // Virtual nodes share this machine: each counts on its share of the CPUs.
      const auto share = static_cast<std::uint32_t>(
          std::max<std::uint64_t>(1, std::uint64_t{cpus.size()} * node_sizes[node] / static_cast<std::uint64_t>(nranks)));
      segment.segments.push_back(core::create_job_segment(node_sizes[node], share,
                                                          nodes == 1 ? job_.jobid : job_.jobid + ".node" + std::to_string(node),
                                                          tunables_));
    } catch (const core::JobTooLargeError& e) {
      throw UsageError(e.what());  // the job's size is the user's to change
    }
  }
  if (options_.verbose > 0) {
    std::fprintf(stderr, "mpfrun: job %s: %d rank%s on %zu cpu%s%s, shared segment%s %zu bytes\n", job_.jobid.c_str(),
                 nranks, nranks == 1 ? "" : "s", cpus.size(), cpus.size() == 1 ? "" : "s",
                 segment.segments[0].header().oversubscribed ? " (oversubscribed: waiting ranks block)" : "",
                 nodes == 1 ? "" : "s", segment.bytes());
    if (nodes > 1) {
      std::fprintf(stderr, "mpfrun: %u virtual nodes joined by the network transport (%s): ranks on nodes %s\n", nodes,
                   tunables_.text(common::Tunable::net_provider).c_str(), segment.node_list().c_str());
    }
  }
  TempDir tmpdir(job_.jobid);
  // PMIx's default key-value store (ds21) keeps locks in shared memory that a
  // rank killed mid-operation can leave held, and libpmix then prints errors
  // about them; the hash store has no such state. Set before the server
  // starts, and inherited by the ranks. A user's own choice wins.
  ::setenv("PMIX_MCA_gds", "hash", 0);

  // Signals are read from a signalfd; they must be blocked in every thread,
  // so before PMIx starts its own.
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD}) sigaddset(&handled, s);
  sigset_t previous;
  ::pthread_sigmask(SIG_BLOCK, &handled, &previous);
  ::signal(SIGPIPE, SIG_IGN);
  signal_fd_.reset(::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC));
  abort_fd_.reset(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  timeout_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  grace_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (signal_fd_.get() < 0 || abort_fd_.get() < 0 || timeout_fd_.get() < 0 || grace_fd_.get() < 0) {
    throw std::runtime_error(common::system_error_text("cannot set up event descriptors", errno));
  }

  job::JobEntry& entry = entry_;
  entry.jobid = job_.jobid;
  entry.launcher_pid = ::getpid();
  entry.launcher_start_ticks = job::process_start_ticks(::getpid()).value_or(0);
  entry.segment_fd = segment.segments[0].fd();
  job_.nodes = static_cast<std::uint32_t>(segment.segments.size());
  for (const std::uint32_t node : segment.node_of) {
    job_.node_of.push_back(job_.nodes == 1 ? job_.host : job_.host + "/node" + std::to_string(node));
  }
  if (segment.segments.size() > 1) {
    for (std::uint32_t node = 0; node < segment.segments.size(); ++node) {
      job::NodeEntry n{job_.host + "/node" + std::to_string(node), segment.segments[node].fd(), {}};
      for (std::uint32_t r = 0; r < segment.node_of.size(); ++r) {
        if (segment.node_of[r] == node) n.ranks.push_back(r);
      }
      entry.nodes.push_back(std::move(n));
    }
  }
  entry.pmix_tmpdir = tmpdir.path();
  entry.host = job_.host;
  entry.command = options_.command_line;
  entry.start_unix_ms = job_.start_unix_ns / 1'000'000;
  registry.publish(entry);
  struct Unregister {
    const job::RunRegistry& registry;
    const job::JobEntry& entry;
    ~Unregister() { registry.remove(entry); }
  } unregister{registry, entry};

  {
    OutputForwarder output({options_.tag_output, options_.timestamp_output, options_.output_dir},
                           static_cast<std::uint32_t>(nranks));
    PmixServer server(tmpdir.path(), job_.host, [this](std::uint32_t rank, int code, const std::string& message) {
      {
        std::lock_guard lock(abort_mutex_);
        aborts_.push_back({rank, code, message});
      }
      const std::uint64_t one = 1;
      [[maybe_unused]] ssize_t n = ::write(abort_fd_.get(), &one, sizeof one);
    });
    launch_all(server, segment, output);
    for (const RankRecord& r : job_.ranks) {
      entry.ranks.push_back({r.rank, r.pid, options_.apps[r.app].program});
    }
    registry.publish(entry);
    if (options_.report_bindings) {
      for (const RankRecord& r : job_.ranks) {
        std::fprintf(stderr, "mpfrun: rank %u (pid %d): %s%s\n", r.rank, static_cast<int>(r.pid),
                     r.placement.cpus.empty() ? "" : "bound to ", describe_placement(r.placement).c_str());
      }
    }
    if (options_.timeout_seconds > 0) {
      arm_timer(timeout_fd_.get(), static_cast<std::int64_t>(options_.timeout_seconds * 1e9));
    }
    event_loop(output, segment);
    if (failed_) server.skip_finalize();
  }
  job_.segment_bytes = segment.bytes();
  job_.segment_resident_bytes = segment.resident_bytes();
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  job_.end_unix_ns = unix_ns();
  if (!failed_) {
    job_.outcome = "all " + std::to_string(nranks) + " rank" + (nranks == 1 ? "" : "s") + " exited 0";
  }
  job_.exit_status = status_;
  return status_;
}

}  // namespace

int run_job(const Options& options, const common::Tunables& tunables, JobRecord& job) {
  Runner runner(options, tunables, job);
  return runner.run();
}

}  // namespace mpf::launcher
