#include "coll/board_layout.hpp"

#include <new>
#include <string>

#include "common/tunables.hpp"

namespace mpf::coll {

BoardLayout::Header BoardLayout::header_for(std::uint32_t nranks, std::uint32_t stage_bytes) {
  Header h{};
  h.nranks = nranks;
  h.stage_bytes = stage_bytes;
  h.board_offset = shm::round_up(sizeof(Header), kCacheLine);
  h.entries_offset = h.board_offset + sizeof(BoardHeader);
  h.rows_offset = h.entries_offset + std::uint64_t{board_entries(nranks)} * kBoardStride;
  h.stage_offset = h.rows_offset + 2 * (std::uint64_t{nranks} + 1) * kBoardStride;
  h.sums_offset = h.stage_offset + sizeof(BoardStamp) + shm::round_up(stage_bytes, kCacheLine);
  h.sum_stride = sum_pieces(stage_bytes) * sizeof(SumPiece) + shm::round_up(stage_bytes, kCacheLine);
  return h;
}

BoardLayout::Header BoardLayout::header_of(const shm::RegionGeometry& g) {
  return header_for(g.nranks, static_cast<std::uint32_t>(g.tunables.integer(common::Tunable::coll_board_stage)));
}

shm::RegionSpec BoardLayout::spec() {
  return {kName, kVersion, [](const shm::RegionGeometry& g) { return bytes_for(header_of(g)); },
          [](std::span<std::byte> region, const shm::RegionGeometry& g) { new (region.data()) Header(header_of(g)); }};
}

BoardLayout::BoardLayout(const shm::Region& region, std::uint32_t nranks) {
  const Header& h = shm::region_header<Header>(region, kName);
  // The header's numbers are bounded before anything is computed from them.
  const bool sane = h.nranks == nranks && nranks <= region.bytes / kBoardStride && h.stage_bytes <= region.bytes;
  if (!sane) throw shm::SegmentError("the segment's region " + std::string(kName) + " has an inconsistent header");
  const Header expected = header_for(nranks, h.stage_bytes);
  if (h.board_offset != expected.board_offset || h.entries_offset != expected.entries_offset ||
      h.rows_offset != expected.rows_offset || h.stage_offset != expected.stage_offset ||
      h.sums_offset != expected.sums_offset || h.sum_stride != expected.sum_stride ||
      bytes_for(expected) > region.bytes) {
    throw shm::SegmentError("the segment's region " + std::string(kName) + " has an inconsistent header");
  }
  base_ = region.base;
  h_ = h;
}

}  // namespace mpf::coll
