#include "coll/slots_layout.hpp"

#include <new>
#include <string>

#include "common/tunables.hpp"

namespace mpf::coll {

SlotsLayout::Header SlotsLayout::header_for(std::uint32_t nranks, std::uint32_t coll_bytes) {
  return {nranks, coll_bytes, shm::round_up(sizeof(Header), kCacheLine),
          sizeof(CollSlot) + shm::round_up(coll_bytes, kCacheLine)};
}

SlotsLayout::Header SlotsLayout::header_of(const shm::RegionGeometry& g) {
  return header_for(g.nranks, static_cast<std::uint32_t>(g.tunables.integer(common::Tunable::coll_buffer)));
}

shm::RegionSpec SlotsLayout::spec() {
  return {kName, kVersion,
          [](const shm::RegionGeometry& g) {
            const Header h = header_of(g);
            return h.slots_offset + h.nranks * h.stride;
          },
          [](std::span<std::byte> region, const shm::RegionGeometry& g) { new (region.data()) Header(header_of(g)); }};
}

SlotsLayout::SlotsLayout(const shm::Region& region, std::uint32_t nranks) {
  const Header& h = shm::region_header<Header>(region, kName);
  const Header expected = header_for(h.nranks, h.coll_bytes);
  if (h.nranks != nranks || nranks == 0 || h.slots_offset != expected.slots_offset || h.stride != expected.stride ||
      region.bytes < h.slots_offset || h.stride > (region.bytes - h.slots_offset) / nranks) {
    throw shm::SegmentError("the segment's region " + std::string(kName) + " has an inconsistent header");
  }
  base_ = region.base;
  h_ = h;
}

}  // namespace mpf::coll
