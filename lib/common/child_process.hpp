// One command run to completion with a time limit, its output captured: how
// mpftune starts every job (through mpfrun or another MPI's launcher) and
// every compiler, and how mpfinspect reads the nodes of a Slurm job. The command runs in its own process group; when its time
// is up the group gets SIGTERM (a launcher then stops its ranks, and mpfrun
// prints what each was doing), and SIGKILL when still there 5 s later.
#pragma once

#include <string>
#include <vector>

namespace mpf::common {

struct ProcessResult {
  bool started = false;    // false: `error` says why it could not start
  std::string error;
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal ended it
  bool timed_out = false;
  double seconds = 0;      // from start to exit
  std::string out, err;

  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
  // "exit status 3", "killed by signal 9 (Killed)", "timed out after 10 s"...
  std::string how_it_ended(double timeout) const;
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds);

// SIGINT and SIGTERM stop the running command at once (as if its time were
// up) and make interrupted() true, so that a benchmark can stop, write what
// it has measured and exit.
void catch_interrupts();
bool interrupted();

// The executable `name` in PATH, or "" when there is none.
std::string find_in_path(const std::string& name);

// A command as a shell would show it (for messages and reports).
std::string shell_words(const std::vector<std::string>& argv);

}  // namespace mpf::common
