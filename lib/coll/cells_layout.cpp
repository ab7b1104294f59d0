#include "coll/cells_layout.hpp"

#include <new>
#include <string>

#include "common/tunables.hpp"

namespace mpf::coll {

CellsLayout::Header CellsLayout::header_for(std::uint32_t nranks, std::uint32_t cell_data_bytes) {
  Header h{};
  h.nranks = nranks;
  h.cell_bytes = cell_bytes_for(cell_data_bytes);
  h.acks_offset = shm::round_up(sizeof(Header), kCacheLine);
  h.ack_row = shm::round_up(std::uint64_t{nranks} * sizeof(std::uint64_t), kCacheLine);
  // The cells start on a page of their own: they are touched pair by pair.
  h.cells_offset = shm::round_up(h.acks_offset + nranks * h.ack_row, shm::kRegionAlign);
  return h;
}

CellsLayout::Header CellsLayout::header_of(const shm::RegionGeometry& g) {
  return header_for(g.nranks, static_cast<std::uint32_t>(g.tunables.integer(common::Tunable::coll_short_limit)));
}

shm::RegionSpec CellsLayout::spec() {
  return {kName, kVersion,
          [](const shm::RegionGeometry& g) {
            const Header h = header_of(g);
            return h.cells_offset + std::uint64_t{h.nranks} * h.nranks * kCellsPerPair * h.cell_bytes;
          },
          [](std::span<std::byte> region, const shm::RegionGeometry& g) { new (region.data()) Header(header_of(g)); }};
}

CellsLayout::CellsLayout(const shm::Region& region, std::uint32_t nranks) {
  const Header& h = shm::region_header<Header>(region, kName);
  const bool sane = h.nranks == nranks && nranks > 0 && h.cell_bytes >= sizeof(MailCell) &&
                    h.cell_bytes % kCacheLine == 0;
  const Header expected = header_for(nranks, h.cell_bytes - static_cast<std::uint32_t>(offsetof(MailCell, data)));
  if (!sane || h.cell_bytes != expected.cell_bytes || h.acks_offset != expected.acks_offset ||
      h.ack_row != expected.ack_row || h.cells_offset != expected.cells_offset || region.bytes < h.cells_offset ||
      std::uint64_t{kCellsPerPair} * h.cell_bytes > (region.bytes - h.cells_offset) / nranks / nranks) {
    throw shm::SegmentError("the segment's region " + std::string(kName) + " has an inconsistent header");
  }
  base_ = region.base;
  h_ = h;
}

}  // namespace mpf::coll
