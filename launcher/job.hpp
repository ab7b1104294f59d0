// A job as mpfrun runs it: its ranks' records and the outcome. Shared by the
// runner that drives the job and the report written when it ends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/tunables.hpp"
#include "launcher/binding.hpp"
#include "launcher/options.hpp"
#include "shm/ranks_layout.hpp"

namespace mpf::launcher {

struct RankRecord {
  std::uint32_t rank = 0;
  std::size_t app = 0;        // index of its application context
  pid_t pid = -1;
  Placement placement;
  bool running = false;
  int exit_code = -1;         // when it exited
  int term_signal = 0;        // when a signal killed it
  shm::RankState final_state = shm::RankState::launched;
  bool state_known = true;    // false: a rank srun started that did not say (it never finalized)
  std::int64_t start_ns = 0;  // steady clock
  std::int64_t end_ns = 0;
  // Counters the rank published (shm::kCounterFields order), copied out of
  // the segment when it ended.
  std::vector<std::uint64_t> counters;
};

struct JobRecord {
  std::string jobid;
  std::string host;
  std::int64_t start_unix_ns = 0;
  std::int64_t end_unix_ns = 0;
  std::vector<RankRecord> ranks;
  int exit_status = 0;
  std::string outcome;  // one line: "all ranks exited 0", or why the job ended
  // The node segment: bytes mapped, and bytes in memory when the job ended
  // (the pages its ranks touched).
  std::uint64_t segment_bytes = 0;
  std::uint64_t segment_resident_bytes = 0;
  std::uint32_t cpus = 0;  // the CPUs the job runs on
  // Each rank's node ("host", or "host/node1" with --virtual-nodes), and
  // how many nodes.
  std::vector<std::string> node_of;
  std::uint32_t nodes = 1;
};

}  // namespace mpf::launcher
