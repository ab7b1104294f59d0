// The node segment of a job: which regions it has (one per module that
// keeps state in shared memory) and its creation, with the refusal of a job
// that cannot fit on the node.
//
// To give a new module (an API, a transport) state in the segment: declare
// its RegionSpec beside its code (see shm/region.hpp) and add it to the list
// in job_regions.cpp. No other region's layout changes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "common/tunables.hpp"
#include "shm/region.hpp"
#include "shm/segment.hpp"

namespace mpf::core {

// A job that cannot fit on the node: a problem of the job's size, not of
// the system.
class JobTooLargeError : public shm::SegmentError {
 public:
  using shm::SegmentError::SegmentError;
};

std::span<const shm::RegionSpec> job_regions();

// The segment for a job of `nranks` ranks on `ncpus` CPUs. Throws
// JobTooLargeError, one line naming the memory the job needs, what the node
// has available and what lowers the need, when the job cannot fit, and
// shm::SegmentError when the system refuses the segment.
shm::Segment create_job_segment(std::uint32_t nranks, std::uint32_t ncpus, const std::string& jobid,
                                const common::Tunables& tunables);

// Bytes of memory the node has available for new allocations
// (MemAvailable of /proc/meminfo), or nothing when it cannot be read.
std::optional<std::uint64_t> available_memory();

// "4.7 KiB", "5.2 GiB": a size for people, to one decimal.
std::string approximate_size(std::uint64_t bytes);

}  // namespace mpf::core
