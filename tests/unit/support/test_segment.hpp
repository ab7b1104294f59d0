// A small node segment for unit tests that attach several transports in
// one process: the job's regions with tiny rings and pools, so that tests
// stay light and reach back-pressure quickly. No tuning file is read.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/tunables.hpp"
#include "core/job_regions.hpp"
#include "shm/segment.hpp"

namespace mpf::testing {

// Rings of 2 slots, 2 eager cells of 64 bytes and 2 small cells per rank,
// 4 KiB collective slots, cells of 224 data bytes, no board stage; `extra`
// ("name=value") overrides any of them.
inline common::Tunables small_tunables(const std::vector<std::string>& extra = {}) {
  std::vector<std::string> sets{"tuning_file=",   "ring_slots=2",         "eager_cells=2",
                                "eager_limit=64", "eager_small_cells=2",  "coll_buffer=4096",
                                "coll_short_limit=224", "coll_board_stage=0"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return common::Tunables::resolve(nullptr, sets);
}

inline shm::Segment small_segment(std::uint32_t nranks, std::uint32_t ncpus = 8, std::string jobid = "unit-segment",
                                  const std::vector<std::string>& extra = {}) {
  const common::Tunables tunables = small_tunables(extra);
  return shm::Segment::create({nranks, ncpus, std::move(jobid)}, {nranks, ncpus, tunables}, core::job_regions());
}

}  // namespace mpf::testing
