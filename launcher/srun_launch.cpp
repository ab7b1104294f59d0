#include "launcher/srun_launch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/system_error.hpp"
#include "common/tunables_table.hpp"
#include "core/runtime.hpp"
#include "inspect/cluster_job.hpp"
#include "inspect/job_state.hpp"
#include "inspect/render.hpp"
#include "launcher/messages.hpp"
#include "launcher/output.hpp"
#include "launcher/rank_process.hpp"
#include "shm/counters.hpp"
#include "shm/ranks_layout.hpp"

extern char** environ;

namespace mpf::launcher {
namespace {

constexpr int kTimeoutStatus = 124;
constexpr int kUsageStatus = 2;

// What Slurm decides for a job it launches, for each of mpfrun's options
// that would decide it otherwise.
std::string decided_by_slurm(const std::string& option) {
  if (option == "--host" || option == "--hostfile") return "the allocation's nodes (salloc/sbatch -N, -w)";
  if (option == "--map-by") return "srun's placement (its --distribution, set with SLURM_DISTRIBUTION)";
  if (option == "--bind-to") return "srun's binding (its --cpu-bind, set with SLURM_CPU_BIND)";
  if (option == "--report-bindings") return "srun's report of bindings (SLURM_CPU_BIND=verbose)";
  return "nothing: --virtual-nodes splits one machine, and a job launched through srun has real nodes";
}

// This mpfrun's mark on the job's ranks (core::kEnvLaunchTag), by which
// mpfinspect finds their nodes' parts when the job times out.
std::string launch_tag() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(::getpid());
}

// mpfinspect, next to this mpfrun (installed) or in its build tree.
std::string mpfinspect_program() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  for (const std::filesystem::path& p :
       {self.parent_path() / "mpfinspect", self.parent_path().parent_path() / "inspect" / "mpfinspect"}) {
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "mpfinspect";
}

// What mpfinspect would show of a job that timed out, read on every node
// through srun, so that a hung job's log says why it hung.
void print_diagnosis(const common::Tunables& tunables) {
  inspect::SlurmReach reach;
  reach.helper = mpfinspect_program();
  if (const char* job = std::getenv("SLURM_JOB_ID")) reach.slurm_job = job;
  if (const char* nodes = std::getenv("SLURM_JOB_NODELIST")) reach.nodelist = nodes;
  reach.node_count = slurm_allocation_nodes();
  reach.timeout_seconds = 20;
  try {
    const std::optional<nlohmann::json> state =
        inspect::read_launched_job(job::RunRegistry(common::resolved_run_dir(tunables)), launch_tag(), reach);
    if (!state) {
      std::fprintf(stderr, "mpfrun: could not inspect the job: no node has its ranks registered\n");
      return;
    }
    std::fprintf(stderr, "mpfrun: the job as mpfinspect sees it:\n%s",
                 inspect::render_job_and_deadlock(*state, std::nullopt).c_str());
  } catch (const inspect::InspectError& e) {
    std::fprintf(stderr, "mpfrun: could not inspect the job: %s\n", e.what());
  }
}

std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// The variables that carry mpfrun's tunables and each context's -x/--env
// to ranks srun starts (the ranks read MPF_* as they would mpfrun's --set).
std::vector<std::string> srun_environment(const Options& o) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  for (const auto& [name, value] : o.apps.front().env) set_env(env, name, value);
  set_env(env, core::kEnvLaunchTag, launch_tag());
  if (!o.tuning_file.empty()) set_env(env, "MPF_TUNING_FILE", o.tuning_file);
  for (const std::string& s : o.sets) {
    const std::size_t eq = s.find('=');
    set_env(env, "MPF_" + upper(s.substr(0, eq)), s.substr(eq + 1));
  }
  return env;
}

// srun's --multi-prog file for an MPMD job: "0-3 ./a args" per context.
std::string multi_prog_file(const Options& o, const std::string& dir) {
  const std::string path = dir + "/multi-prog.conf";
  std::string text;
  int first = 0;
  for (const AppContext& app : o.apps) {
    text += std::to_string(first) + "-" + std::to_string(first + app.nranks - 1) + " " + app.program_path;
    for (const std::string& a : app.args) {
      if (a.find_first_of(" \t'\"\\") != std::string::npos) {
        throw UsageError("argument '" + a + "' of " + app.program +
                         ": an MPMD job launched through srun cannot pass arguments with spaces or quotes "
                         "(srun --multi-prog splits at spaces)");
      }
      text += " " + a;
    }
    text += "\n";
    first += app.nranks;
  }
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error(common::system_error_text("cannot write " + path, errno));
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

// A failure srun reports on its standard error:
//   srun: error: n2: task 3: Segmentation fault
//   srun: error: n2: tasks 2-3: Exited with exit code 17
struct TaskFailure {
  std::string node;
  std::string tasks;
  std::string what;
};

// "Exited with exit code 3" -> 3; -1 for anything else.
int exit_code_of(const std::string& what) {
  static const std::regex exited(R"(^Exited with exit code ([0-9]+)$)");
  std::smatch m;
  return std::regex_match(what, m, exited) ? std::stoi(m[1]) : -1;
}

// "Segmentation fault" -> SIGSEGV (srun names signals as strsignal does);
// 0 for anything else.
int signal_of(const std::string& what) {
  for (int signo = 1; signo < NSIG; ++signo) {
    const char* name = ::strsignal(signo);
    if (name != nullptr && what == name) return signo;
  }
  return 0;
}

// Whether srun's task list ("3", "0-1", "0,2-3") holds `task`.
bool number_ranges_contain(const std::string& list, std::uint32_t task) {
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string range = list.substr(start, end - start);
    const std::size_t dash = range.find('-');
    const unsigned long first = std::stoul(range.substr(0, dash));
    const unsigned long last = dash == std::string::npos ? first : std::stoul(range.substr(dash + 1));
    if (task >= first && task <= last) return true;
    start = end + 1;
  }
  return false;
}

class SrunJob {
 public:
  SrunJob(const Options& o, const common::Tunables& t, JobRecord& record) : o_(o), tunables_(t), record_(record) {}
  int run();

 private:
  void start(const std::vector<std::string>& argv, const std::vector<std::string>& env);
  void relay(int fd, std::string& pending, bool is_stderr, bool eof);
  void relay_line(const std::string& line, bool is_stderr);
  // The exit status, and the line that says why the job ended (printed
  // when it failed).
  std::pair<int, std::string> outcome(int status) const;
  void record_ranks();

  const Options& o_;
  const common::Tunables& tunables_;
  JobRecord& record_;
  std::string report_dir_;  // where ranks write their entries of the report
  pid_t pid_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  bool labelled_ = false;  // srun --label: each line starts "N: "
  std::vector<TaskFailure> failures_;
  bool timed_out_ = false;
};

void SrunJob::relay_line(const std::string& line, bool is_stderr) {
  static const std::regex failure(R"(^srun: error: (\S+): tasks? ([0-9,\-]+): (.*)$)");
  std::smatch m;
  if (is_stderr && std::regex_match(line, m, failure)) failures_.push_back({m[1], m[2], m[3]});
  std::string out = line;
  if (labelled_) {
    static const std::regex label(R"(^\s*([0-9]+): (.*)$)");
    if (std::regex_match(line, m, label)) {
      out = line_prefix(o_.timestamp_output, o_.tag_output, static_cast<std::uint32_t>(std::stoul(m[1]))) +
            std::string(m[2]);
    } else if (o_.timestamp_output) {
      out = line_prefix(true, false, 0) + line;  // srun's own lines
    }
  }
  out += "\n";
  FILE* to = is_stderr ? stderr : stdout;
  std::fwrite(out.data(), 1, out.size(), to);
  std::fflush(to);
}

void SrunJob::relay(int fd, std::string& pending, bool is_stderr, bool eof) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      pending.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  std::size_t start = 0;
  for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    relay_line(pending.substr(start, nl - start), is_stderr);
  }
  pending.erase(0, start);
  if (eof && !pending.empty()) {
    relay_line(pending, is_stderr);
    pending.clear();
  }
}

void SrunJob::start(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  int out_pipe[2] = {-1, -1}, err_pipe[2];
  if (labelled_ && ::pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error(common::system_error_text("pipe", errno));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw std::runtime_error(common::system_error_text("pipe", errno));
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(common::system_error_text("fork", errno));
  if (pid_ == 0) {
    if (labelled_) ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execvpe("srun", args.data(), envp.data());
    std::fprintf(stderr, "mpfrun: cannot run srun: %s\n", std::strerror(errno));
    std::_Exit(127);
  }
  if (labelled_) {
    ::close(out_pipe[1]);
    out_fd_ = out_pipe[0];
  }
  ::close(err_pipe[1]);
  err_fd_ = err_pipe[0];
}

// The first failure srun reported is the job's cause (the others were
// stopped because of it): it names the rank and its node, and gives the
// exit status, as for a job on one machine (128 + N for signal N).
std::pair<int, std::string> SrunJob::outcome(int status) const {
  if (failures_.empty()) {
    if (status != 0) return {status, "the job failed (srun exit status " + std::to_string(status) + ")"};
    return {0, "all " + std::to_string(o_.total_ranks()) + " ranks exited 0"};
  }
  const TaskFailure& f = failures_.front();
  const bool one = f.tasks.find_first_of(",-") == std::string::npos;
  const std::string who = std::string(one ? "rank " : "ranks ") + f.tasks + " (on node " + f.node + ")";
  int cause = status;
  std::string what = f.what;
  if (const int code = exit_code_of(f.what); code >= 0) {
    cause = code;
    what = (one ? "exited" : "exit") + std::string(" with code ") + std::to_string(code);
  } else if (const int signo = signal_of(f.what); signo > 0) {
    cause = 128 + signo;
    what = (one ? "killed by " : "were killed by ") + signal_description(signo);
  }
  return {cause == 0 ? status : cause,
          who + " " + what + (failures_.size() > 1 ? "; the other ranks were stopped" : "")};
}

// Each rank's entry of the report: what it wrote when it finalized, and
// how srun says it ended.
void SrunJob::record_ranks() {
  const auto nranks = static_cast<std::uint32_t>(o_.total_ranks());
  std::set<std::string> nodes;
  std::size_t app = 0;
  for (std::uint32_t r = 0, first = 0; r < nranks; ++r) {
    if (r >= first + static_cast<std::uint32_t>(o_.apps[app].nranks)) first += o_.apps[app++].nranks;
    RankRecord rank;
    rank.rank = r;
    rank.app = app;
    rank.exit_code = 0;
    std::string node = "unknown";
    std::ifstream in(report_dir_ + "/rank." + std::to_string(r) + ".json");
    try {
      const nlohmann::json entry = nlohmann::json::parse(in);
      rank.pid = entry.at("pid").get<pid_t>();
      node = entry.at("node").get<std::string>();
      rank.final_state = shm::RankState::finalized;  // written when it finalized
      rank.end_ns = static_cast<std::int64_t>(entry.at("wall_seconds").get<double>() * 1e9);
      for (const shm::CounterField& f : shm::kCounterFields) {
        rank.counters.push_back(entry.at("counters").value(std::string(f.name), std::uint64_t{0}));
      }
      record_.cpus = std::max(record_.cpus, entry.at("cpus").get<std::uint32_t>());
      if (record_.jobid.empty() && entry.contains("jobid")) record_.jobid = entry["jobid"].get<std::string>();
      record_.segment_bytes += entry.value("segment_bytes", std::uint64_t{0});
      record_.segment_resident_bytes += entry.value("segment_resident_bytes", std::uint64_t{0});
    } catch (const std::exception&) {
      // It did not finalize (or the nodes do not share the directory): what
      // srun says of it is all there is.
      rank.counters.assign(shm::kCounterFields.size(), 0);
      rank.state_known = false;
    }
    for (const TaskFailure& f : failures_) {
      if (!number_ranges_contain(f.tasks, r)) continue;
      node = f.node;
      rank.exit_code = exit_code_of(f.what);
      rank.term_signal = std::max(0, signal_of(f.what));
      break;
    }
    if (node != "unknown") nodes.insert(node);
    record_.node_of.push_back(node);
    record_.ranks.push_back(std::move(rank));
  }
  record_.nodes = static_cast<std::uint32_t>(std::max<std::size_t>(1, nodes.size()));
  if (const char* job = std::getenv("SLURM_JOB_ID"); record_.jobid.empty() && job != nullptr) record_.jobid = job;
}

int SrunJob::run() {
  const int nranks = o_.total_ranks();
  // --overcommit: more ranks than the allocation has CPUs is allowed, as on
  // one machine; --kill-on-bad-exit: a rank that fails ends the job, as
  // under mpfrun; --input=0: standard input goes to rank 0.
  std::vector<std::string> argv{"srun",      "--mpi=pmix", "--overcommit",        "--kill-on-bad-exit=1",
                                "--input=0", "-n",         std::to_string(nranks)};
  labelled_ = o_.tag_output || o_.timestamp_output;
  if (labelled_) argv.emplace_back("--label");
  if (!o_.output_dir.empty()) {
    for (int r = 0; r < nranks; ++r) std::filesystem::create_directories(o_.output_dir + "/rank." + std::to_string(r));
    argv.push_back("--output=" + o_.output_dir + "/rank.%t/stdout");
    argv.push_back("--error=" + o_.output_dir + "/rank.%t/stderr");
  }
  std::string dir;
  if (o_.apps.size() > 1) {
    char pattern[] = "/tmp/mpfrun-srun-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error(common::system_error_text("mkdtemp", errno));
    dir = pattern;
    argv.push_back("--multi-prog");
    argv.push_back(multi_prog_file(o_, dir));
  } else {
    argv.push_back(o_.apps.front().program_path);
    argv.insert(argv.end(), o_.apps.front().args.begin(), o_.apps.front().args.end());
  }
  if (o_.verbose > 0) {
    std::string line;
    for (const std::string& a : argv) line += (line.empty() ? "" : " ") + a;
    std::fprintf(stderr, "mpfrun: inside Slurm job %s (%d nodes): %s\n", std::getenv("SLURM_JOB_ID"),
                 slurm_allocation_nodes(), line.c_str());
  }

  std::vector<std::string> env = srun_environment(o_);
  if (!o_.report_path.empty()) {
    // Beside the report: the nodes see it as they see the report's directory.
    const std::filesystem::path report = std::filesystem::absolute(o_.report_path);
    std::string pattern = (report.parent_path() / ".mpfrun-report-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error(
          common::system_error_text("--report: cannot make a directory beside " + o_.report_path, errno));
    }
    report_dir_ = pattern;
    set_env(env, core::kEnvReportDir, report_dir_);
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  record_.host = host;
  record_.start_unix_ns = unix_now_ns();

  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD}) sigaddset(&handled, s);
  sigset_t previous;
  ::pthread_sigmask(SIG_BLOCK, &handled, &previous);
  const int signal_fd = ::signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
  const int timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  start(argv, env);
  if (o_.timeout_seconds > 0) {
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(o_.timeout_seconds);
    spec.it_value.tv_nsec = static_cast<long>((o_.timeout_seconds - static_cast<double>(spec.it_value.tv_sec)) * 1e9);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    ::timerfd_settime(timer_fd, 0, &spec, nullptr);
  }
  std::string out_pending, err_pending;
  int wait_status = 0;
  bool exited = false;
  int kills = 0;
  while (!exited || out_fd_ >= 0 || err_fd_ >= 0) {
    pollfd fds[4] = {{signal_fd, POLLIN, 0}, {timer_fd, POLLIN, 0}, {out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    if (::poll(fds, 4, exited ? 1000 : -1) < 0 && errno != EINTR) break;
    if ((fds[0].revents & POLLIN) != 0) {
      signalfd_siginfo info;
      while (::read(signal_fd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
        if (info.ssi_signo == SIGCHLD) {
          if (::waitpid(pid_, &wait_status, WNOHANG) == pid_) exited = true;
        } else {
          ::kill(pid_, static_cast<int>(info.ssi_signo));  // srun passes it on to the ranks
        }
      }
    }
    if ((fds[1].revents & POLLIN) != 0) {
      std::uint64_t expirations;
      [[maybe_unused]] const ssize_t n = ::read(timer_fd, &expirations, sizeof expirations);
      if (!timed_out_) {
        std::fprintf(stderr, "mpfrun: timeout: the job ran longer than %s; stopping it\n",
                     format_seconds(o_.timeout_seconds).c_str());
        print_diagnosis(tunables_);
      }
      timed_out_ = true;
      // srun ends the step on the first TERM; a job that does not end
      // within the grace period is killed.
      ::kill(pid_, ++kills == 1 ? SIGTERM : SIGKILL);
      itimerspec grace{};
      grace.it_value.tv_sec = tunables_.integer(common::Tunable::stop_grace_ms) / 1000 + 1;
      ::timerfd_settime(timer_fd, 0, &grace, nullptr);
    }
    for (const auto& [index, fd, pending, is_err] :
         {std::tuple{2, &out_fd_, &out_pending, false}, std::tuple{3, &err_fd_, &err_pending, true}}) {
      if (*fd < 0 || fds[index].revents == 0) continue;
      const bool eof = (fds[index].revents & (POLLHUP | POLLERR)) != 0 && (fds[index].revents & POLLIN) == 0;
      relay(*fd, *pending, is_err, eof);
      if (eof) {
        ::close(*fd);
        *fd = -1;
      }
    }
  }
  if (!exited) ::waitpid(pid_, &wait_status, 0);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ::close(signal_fd);
  ::close(timer_fd);
  if (!dir.empty()) std::filesystem::remove_all(dir);
  const int status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
  auto [exit_status, why] = outcome(status);
  if (timed_out_) {
    exit_status = kTimeoutStatus;
    why = "timeout: the job ran longer than " + format_seconds(o_.timeout_seconds);
  } else if (exit_status != 0) {
    std::fprintf(stderr, "mpfrun: %s\n", why.c_str());
  }
  record_.end_unix_ns = unix_now_ns();
  record_.exit_status = exit_status;
  record_.outcome = why;
  if (!report_dir_.empty()) {
    record_ranks();
    std::filesystem::remove_all(report_dir_);
  }
  return exit_status;
}

}  // namespace

int slurm_allocation_nodes() {
  if (std::getenv("SLURM_JOB_ID") == nullptr) return 0;
  for (const char* name : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"}) {
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  }
  return 1;
}

bool launches_through_srun(const Options& o) {
  const int nodes = slurm_allocation_nodes();
  const bool srun = o.launcher == Options::Launcher::srun || (o.launcher == Options::Launcher::automatic && nodes > 1);
  if (!srun) return false;
  if (nodes == 0) {
    throw UsageError(
        "--launcher srun: this is not inside a Slurm allocation (no SLURM_JOB_ID); start one with "
        "salloc -N 2 or sbatch, or run mpfrun's own launcher on this machine");
  }
  for (const std::string& option : o.placement_options) {
    throw UsageError(option + ": inside a Slurm allocation of " + std::to_string(nodes) +
                     " nodes, mpfrun launches with srun, and where ranks run is Slurm's to decide: " +
                     decided_by_slurm(option) + "; or --launcher mpfrun runs the job on this machine alone");
  }
  return true;
}

int run_through_srun(const Options& options, const common::Tunables& tunables, JobRecord& record) {
  try {
    SrunJob job(options, tunables, record);
    return job.run();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mpfrun: %s\n", e.what());
    return kUsageStatus;
  }
}

}  // namespace mpf::launcher
