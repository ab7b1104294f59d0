#include "launcher/messages.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "common/number_ranges.hpp"

namespace mpf::launcher {

std::string signal_description(int signo) {
  const char* name = ::strsignal(signo);
  return "signal " + std::to_string(signo) + " (" + (name != nullptr ? name : "unknown") + ")";
}

std::string rank_list(const std::vector<std::uint32_t>& ranks) {
  return ranks.empty() ? "none" : common::number_ranges(ranks);
}

std::string describe_rank_state(shm::RankState state) {
  switch (state) {
    case shm::RankState::launched: return "has not initialised (still starting, or not an MPI, SHMEM or MPF program)";
    case shm::RankState::initialized: return "running after initialisation (MPI_Init, shmem_init, mpf_init), not yet finalized";
    case shm::RankState::finalized: return "finalized, exiting";
    case shm::RankState::aborted: return "aborting";
  }
  return "in an unknown state";
}

std::string format_seconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", seconds);
  return buf;
}

std::string this_host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace mpf::launcher
