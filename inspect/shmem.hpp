// A job's OpenSHMEM state as mpfinspect shows it, read from the node's
// heaps (symmetric/layout.hpp) without the PEs' help: what each waiting PE
// waits for (the word, the comparison, what the word holds now; a lock's
// ticket and who holds it) and the locks each PE holds.
#pragma once

#include <nlohmann/json.hpp>

#include "shm/segment.hpp"

namespace mpf::inspect {

// Adds what a PE's SHMEM wait is to the blocked_in of each rank that
// waits in SHMEM (kind shmem_wait) and the locks each rank holds
// (shmem_locks_held); returns {"heap_bytes", "pes"}, or null when the job
// has no symmetric heaps.
nlohmann::json add_shmem_state(const shm::Segment& segment, nlohmann::json& ranks);

}  // namespace mpf::inspect
