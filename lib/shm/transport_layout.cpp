#include "shm/transport_layout.hpp"

#include <new>
#include <string>

#include "common/tunables.hpp"

namespace mpf::shm {

TransportGeometry TransportLayout::geometry_of(const RegionGeometry& g) {
  const common::Tunables& t = g.tunables;
  return {g.nranks, static_cast<std::uint32_t>(t.integer(common::Tunable::ring_slots)),
          static_cast<std::uint32_t>(t.integer(common::Tunable::eager_cells)),
          static_cast<std::uint32_t>(t.integer(common::Tunable::eager_limit)),
          static_cast<std::uint32_t>(t.integer(common::Tunable::eager_small_cells))};
}

TransportLayout::Header TransportLayout::header_for(const TransportGeometry& g) {
  Header h{};
  h.nranks = g.nranks;
  h.ring_slots = g.ring_slots;
  h.eager_cells = g.eager_cells;
  h.eager_cell_bytes = g.eager_cell_bytes;
  h.eager_small_cells = g.eager_small_cells;
  h.inbox_offset = round_up(sizeof(Header), kCacheLine);
  h.inbox_stride = round_up(inbox_words(g.nranks) * sizeof(std::uint64_t), kCacheLine);
  h.credits_offset = h.inbox_offset + std::uint64_t{g.nranks} * h.inbox_stride;
  h.credit_row = counter_row_bytes(g.nranks);
  // Rings, split copies and pools start on pages of their own: each is
  // touched pair by pair (or rank by rank) as the job communicates.
  h.rings_offset = round_up(h.credits_offset + std::uint64_t{g.nranks} * h.credit_row, kRegionAlign);
  h.ring_stride = round_up(PacketRing::bytes_for(g.ring_slots), kCacheLine);
  h.splits_offset = round_up(h.rings_offset + std::uint64_t{g.nranks} * g.nranks * h.ring_stride, kRegionAlign);
  h.eager_offset =
      round_up(h.splits_offset + std::uint64_t{g.nranks} * g.nranks * kSplitsPerPair * sizeof(SplitCopy), kRegionAlign);
  h.cell_stride = eager_cell_stride(g.eager_cell_bytes);
  h.eager_pool_stride = g.eager_cells * h.cell_stride + g.eager_small_cells * kSmallCellStride;
  return h;
}

std::uint64_t TransportLayout::bytes_for(const Header& h) { return h.eager_offset + h.nranks * h.eager_pool_stride; }

RegionSpec TransportLayout::spec() {
  return {kName, kVersion, [](const RegionGeometry& g) { return bytes_for(header_for(geometry_of(g))); },
          [](std::span<std::byte> region, const RegionGeometry& g) {
            new (region.data()) Header(header_for(geometry_of(g)));
          }};
}

TransportLayout::TransportLayout(const Region& region, std::uint32_t nranks) {
  const Header& h = region_header<Header>(region, kName);
  // Recomputed from the geometry the header states: every offset must be
  // the one this build would lay out, so no stride or offset is trusted. The
  // geometry is first checked against the region's size by division, so
  // that nothing below can wrap: a damaged or hostile header must never
  // make a reader go outside the mapping.
  const std::uint64_t pairs = std::uint64_t{h.nranks} * h.nranks;
  const bool sane = h.nranks == nranks && nranks > 0 && h.ring_slots >= 2 && h.eager_cells >= 1 &&
                    h.eager_cell_bytes >= kCacheLine && PacketRing::bytes_for(h.ring_slots) <= region.bytes / pairs &&
                    eager_cell_stride(h.eager_cell_bytes) <= region.bytes / h.nranks / h.eager_cells &&
                    std::uint64_t{h.eager_small_cells} * kSmallCellStride <= region.bytes / h.nranks;
  if (!sane) {
    throw SegmentError("the segment's region " + std::string(kName) + " has an inconsistent header");
  }
  const Header expected = header_for({h.nranks, h.ring_slots, h.eager_cells, h.eager_cell_bytes, h.eager_small_cells});
  const bool consistent = h.inbox_offset == expected.inbox_offset && h.inbox_stride == expected.inbox_stride &&
                          h.credits_offset == expected.credits_offset && h.credit_row == expected.credit_row &&
                          h.rings_offset == expected.rings_offset && h.ring_stride == expected.ring_stride &&
                          h.splits_offset == expected.splits_offset && h.eager_offset == expected.eager_offset &&
                          h.eager_pool_stride == expected.eager_pool_stride && h.cell_stride == expected.cell_stride &&
                          bytes_for(expected) <= region.bytes;
  if (!consistent) {
    throw SegmentError("the segment's region " + std::string(kName) +
                       " has an inconsistent header (sizes do not match)");
  }
  base_ = region.base;
  h_ = h;
}

}  // namespace mpf::shm
