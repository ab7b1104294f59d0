#include "core/job_regions.hpp"

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "coll/board_layout.hpp"
#include "coll/cells_layout.hpp"
#include "coll/slots_layout.hpp"
#include "conversation/layout.hpp"
#include "shm/node_memory.hpp"
#include "shm/ranks_layout.hpp"
#include "shm/transport_layout.hpp"

namespace mpf::core {

std::span<const shm::RegionSpec> job_regions() {
  static const std::array<shm::RegionSpec, 8> specs{
      shm::RanksLayout::spec(),  shm::Segment::tunables_spec(), shm::NodeMemory::spec(), shm::TransportLayout::spec(),
      coll::SlotsLayout::spec(), coll::CellsLayout::spec(),     coll::BoardLayout::spec(), conversation::TableView::spec(),
  };
  return specs;
}

std::optional<std::uint64_t> available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

std::string approximate_size(std::uint64_t bytes) {
  constexpr std::array<const char*, 5> kUnits{"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < kUnits.size()) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

shm::Segment create_job_segment(std::uint32_t nranks, std::uint32_t ncpus, const std::string& jobid,
                                const common::Tunables& tunables) {
  const shm::RegionGeometry geometry{nranks, ncpus, tunables};
  const std::span<const shm::RegionSpec> specs = job_regions();
  // The segment's size is what the job takes when every pair of ranks
  // communicates: pages are allocated as pairs first talk, but a job that
  // may not fit is refused now rather than killed by the kernel later.
  const std::uint64_t needed = shm::Segment::plan(geometry, specs).bytes;
  const std::optional<std::uint64_t> available = available_memory();
  if (available && needed > *available) {
    // Per pair: what grows with the square of the job's size dominates.
    const std::uint64_t pairs = std::uint64_t{nranks} * nranks;
    throw JobTooLargeError(
        "a job of " + std::to_string(nranks) + " ranks on this node needs up to " + approximate_size(needed) +
        " of shared memory (" + approximate_size(needed / pairs) + " for each of its " + std::to_string(pairs) +
        " ordered pairs of ranks: a ring of ring_slots=" + tunables.value_text(common::Tunable::ring_slots) +
        " packets and collective cells of coll_short_limit=" + tunables.value_text(common::Tunable::coll_short_limit) +
        "), and " + approximate_size(*available) +
        " is available; run fewer ranks per node or lower those tunables (--set ring_slots=4 --set coll_short_limit=224)");
  }
  return shm::Segment::create({nranks, ncpus, jobid}, geometry, specs);
}

}  // namespace mpf::core
