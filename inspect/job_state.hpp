// Reading a running job from outside, without stopping it and without help
// from its ranks (SPEC §7): the launcher's run-directory entry names the job's
// segment, and every rank keeps its state, counters and introspection
// snapshot there. The result is one JSON document; the text view is made
// from it, so both always say the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "job/run_registry.hpp"

namespace mpf::inspect {

class InspectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The job as it is now: job fields, tunables, per rank its state, the call
// it is blocked in, its queues, ring occupancy per peer and counters, and
// the job's RMA windows (windows.hpp).
// Throws InspectError naming what could not be read.
nlohmann::json read_job(const job::JobEntry& entry);

// One line per registered job: id, ranks, age, command, alive or dead.
nlohmann::json list_jobs(const job::RunRegistry& registry);

}  // namespace mpf::inspect
