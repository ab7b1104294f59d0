// Reading a running job from outside, without stopping it and without help
// from its ranks (SPEC §7): the launcher's run-directory entry names the job's
// segment, and every rank keeps its state, counters and introspection
// snapshot there. The result is one JSON document; the text view is made
// from it, so both always say the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "job/run_registry.hpp"

namespace mpf::inspect {

class InspectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The job mpfrun started, as it is now: job fields, tunables, per rank its
// state, the call it is blocked in, its queues, ring occupancy per peer and
// counters, and the job's RMA windows (windows.hpp).
// Throws InspectError naming what could not be read.
nlohmann::json read_job(const job::JobEntry& entry);

// One node's part of a job: the segment that process `pid` holds as
// node.segment_fd, its ranks numbered as node.ranks says (`several`: the
// job has other nodes). Throws InspectError naming the node.
nlohmann::json read_node_of_process(pid_t pid, const job::NodeEntry& node, bool several);

// The job from its nodes' parts (read_node_of_process) and `job`'s fields
// (jobid, launcher, host, command...).
nlohmann::json assemble_job(nlohmann::json job, const std::vector<nlohmann::json>& nodes);

// One line per registered job (a job another launcher started: one line for
// its nodes registered here): id, ranks, age, command, alive or dead.
nlohmann::json list_jobs(const job::RunRegistry& registry);

}  // namespace mpf::inspect
