// Starting one rank: fork, then in the child only async-signal-safe calls
// (mpfrun has PMIx's thread running), so everything the child needs is
// prepared before the fork.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "launcher/binding.hpp"

namespace mpf::launcher {

struct RankLaunch {
  std::uint32_t rank = 0;
  std::string path;                // resolved program
  std::vector<std::string> argv;   // argv[0] is the program as the user wrote it
  std::vector<std::string> env;
  Placement placement;
  int segment_fd = -1;             // inherited by the child only
  bool give_stdin = false;         // rank 0 reads mpfrun's standard input
};

struct RankProcess {
  pid_t pid = -1;
  int stdin_fd = -1;   // write end, or -1
  int stdout_fd = -1;  // read ends
  int stderr_fd = -1;
  int exec_status_fd = -1;  // read end: EOF when exec succeeded, else the errno
};

// Forks and execs one rank; throws std::runtime_error if fork fails.
RankProcess start_rank(const RankLaunch& launch);

// Reads the exec status pipe: 0 when exec succeeded, else the errno of the
// failed execve. Closes the descriptor.
int wait_for_exec(RankProcess& process);

// Sets NAME=VALUE in an environment list ("NAME=VALUE" strings), replacing
// an earlier value of NAME.
void set_env(std::vector<std::string>& env, const std::string& name, const std::string& value);

}  // namespace mpf::launcher
