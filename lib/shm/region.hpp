// A module's region of the node's shared segment (segment_layout.hpp).
//
// A module that keeps state in the segment declares one RegionSpec: its
// name, the version of its layout, how many bytes it needs for a job, and
// how to initialise fresh (all-zero) memory. core/job_regions.cpp lists the
// specs of a job; mpfrun lays them out one after another and writes the
// table; a rank or mpfinspect asks the segment for the region by name and
// version, and the module's layout view (e.g. shm::TransportLayout) checks
// the region's own geometry before it hands out anything inside it.
//
// Usage:
//   RegionSpec MyLayout::spec() {
//     return {"api.thing", kVersion, [](const RegionGeometry& g) { return bytes_for(g.nranks); },
//             [](std::span<std::byte> r, const RegionGeometry& g) { write_header(r, g); }};
//   }
//   MyLayout view(segment.region("api.thing", MyLayout::kVersion));
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mpf::common {
class Tunables;
}

namespace mpf::shm {

class SegmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a region's size and contents may depend on.
struct RegionGeometry {
  std::uint32_t nranks;
  std::uint32_t ncpus;
  const common::Tunables& tunables;
};

struct RegionSpec {
  std::string_view name;  // shorter than kRegionNameBytes
  std::uint32_t version;
  std::uint64_t (*bytes)(const RegionGeometry&);
  // Fresh memory of bytes() bytes, all zero: writes the region's geometry
  // and constructs what must not stay zero. It should touch as little as
  // it can (per-pair state must be valid as zeros: see segment_layout.hpp).
  void (*init)(std::span<std::byte> region, const RegionGeometry&);
};

// A region as a reader found it in the table.
struct Region {
  std::byte* base = nullptr;
  std::uint64_t bytes = 0;
};

// For layout views: the region's geometry header, checked to fit.
template <class Header>
const Header& region_header(const Region& r, std::string_view name) {
  if (r.bytes < sizeof(Header)) {
    throw SegmentError("the segment's region " + std::string(name) + " is too small for its header");
  }
  return *reinterpret_cast<const Header*>(r.base);
}

}  // namespace mpf::shm
