// The board's region of the segment ("coll.board"): a shared area through
// which all ranks of MPI_COMM_WORLD run flat collectives when they
// outnumber the CPUs (coll/board.hpp).
//
//   [BoardRegionHeader]   the region's geometry
//   [BoardHeader]         arrivals and releases of row calls
//   [entries]             board_entries(nranks) broadcast entries
//   [rows]                2 x (nranks + 1) rows, each a BoardStamp and kBoardDataBytes
//   [stage]               a BoardStamp and stage_bytes (the coll_board_stage tunable)
//   [sums]                two sums: sum_pieces(stage_bytes) SumPieces, then stage_bytes of data
//
// Two kinds of use:
//   rows     a collective call (barrier, reduction, all-to-all round) in
//            which every rank writes its row, counts itself in `arrived`,
//            and waits for `released`; the last to arrive finishes the call
//            (combines the rows into the result row) and releases it. Calls
//            are numbered from 1; call c uses the rows of parity c % 2.
//   entries  a ring of board_entries(nranks) broadcast entries: the root
//            writes one, the others copy it out and count down `remaining`;
//            a root reuses an entry once that is zero.
//   stage    one large entry (stage_bytes) for data that would take
//            many entries: a large Bcast's message, the result of a large
//            Reduce or Allreduce. Used like an entry (stamp, remaining,
//            waiter), except that a reduction's pieces write its data
//            before the last to arrive stamps it.
//   sums     two vectors of stage_bytes, used in turn, into which a
//            large reduction with a commutative operation adds every
//            rank's input, piece by piece: in whatever order the ranks get
//            a CPU when the order does not change the result (an exact
//            operation), else in rank order (coll::Board::add_to_sum).
// Only the region's header is written at creation: zeros are a board on
// which nothing has happened, and its pages are touched only when a job
// uses it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm/region.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::coll {

using shm::kCacheLine;

inline constexpr std::uint32_t kBoardEntriesMin = 16;
// The ring's entries: one per rank, and at least kBoardEntriesMin. In a run
// of Bcasts with rotating roots a rank sleeps until its turn comes near
// (coll/board.hpp), up to nranks - 2 calls; with fewer entries than that,
// roots would wait for it to copy out the oldest.
inline constexpr std::uint32_t board_entries(std::uint64_t nranks) {
  return nranks > kBoardEntriesMin ? static_cast<std::uint32_t>(nranks) : kBoardEntriesMin;
}
// Data of one row or entry. Fixed, not a tunable or a rule's parameter:
// it is the region's geometry (2 x (nranks + 1) rows and the entries'
// ring), which the launcher lays out before any rank runs and every rank
// maps alike. The default rules (coll/default_rules.cpp) place the board's
// switch points from it, and a rule cannot send more through a row.
inline constexpr std::uint32_t kBoardDataBytes = 8192;

struct alignas(kCacheLine) BoardHeader {
  std::atomic<std::uint64_t> arrived;                       // arrivals at row calls, all calls together
  alignas(kCacheLine) std::atomic<std::uint64_t> released;  // the last row call every rank arrived at
};
static_assert(sizeof(BoardHeader) == 2 * kCacheLine);

// Head of a row or an entry; kBoardDataBytes of data follow it.
struct alignas(kCacheLine) BoardStamp {
  std::atomic<std::uint64_t> stamp;      // entry: the broadcast number it holds
  std::atomic<std::uint32_t> remaining;  // entry: ranks yet to copy it out
  std::atomic<std::uint32_t> waiter;     // entry: world rank + 1 of a root waiting for it, 0 none
  std::uint32_t context, seq, kind;      // the collective's key (coll::Key), so that ranks in
  std::int32_t root;                     // different calls are told apart, not mixed
  std::uint32_t bytes;
};
static_assert(sizeof(BoardStamp) == kCacheLine);
inline constexpr std::size_t kBoardStride = sizeof(BoardStamp) + kBoardDataBytes;

// A sum's pieces are at least this long; each has a SumPiece at the head of
// the sum, which says who may add to it.
inline constexpr std::uint32_t kSumPieceMin = 4096;
struct alignas(kCacheLine) SumPiece {
  // (use << 32) | (added << 1) | held: the sum's use (its low 32 bits) that
  // last wrote the piece, how many ranks have added to it in that use, and
  // whether a rank is adding to it now. A word of an older use counts as
  // nothing added, so a sum needs no clearing between uses.
  std::atomic<std::uint64_t> state;
};
static_assert(sizeof(SumPiece) == kCacheLine);
inline constexpr std::uint64_t sum_pieces(std::uint64_t sum_bytes) {
  return (sum_bytes + kSumPieceMin - 1) / kSumPieceMin;
}

class BoardLayout {
 public:
  static constexpr std::string_view kName = "coll.board";
  static constexpr std::uint32_t kVersion = 1;
  static shm::RegionSpec spec();

  BoardLayout() = default;
  BoardLayout(const shm::Region& region, std::uint32_t nranks);

  // Data bytes of the stage and of each sum.
  std::uint32_t stage_bytes() const { return h_.stage_bytes; }
  BoardHeader& board() const { return *reinterpret_cast<BoardHeader*>(base_ + h_.board_offset); }
  // Broadcast entry `i` (< board_entries(nranks)).
  BoardStamp& entry(std::uint32_t i) const { return stamp_at(h_.entries_offset + i * kBoardStride); }
  // Row `r` (<= nranks; nranks: the result row) of parity `parity` (0 or 1).
  BoardStamp& row(std::uint32_t parity, std::uint32_t r) const {
    return stamp_at(h_.rows_offset + (std::uint64_t{parity} * (h_.nranks + 1) + r) * kBoardStride);
  }
  // The stage: stage_bytes() of data follow its stamp.
  BoardStamp& stage() const { return stamp_at(h_.stage_offset); }
  // Sum `parity`'s piece words (sum_pieces(stage_bytes()) of them) and its data.
  SumPiece* sum(std::uint32_t parity) const {
    return reinterpret_cast<SumPiece*>(base_ + h_.sums_offset + parity * h_.sum_stride);
  }
  std::byte* sum_data(std::uint32_t parity) const {
    return reinterpret_cast<std::byte*>(sum(parity) + sum_pieces(h_.stage_bytes));
  }

 private:
  struct Header {
    std::uint32_t nranks, stage_bytes;
    std::uint64_t board_offset, entries_offset, rows_offset, stage_offset, sums_offset, sum_stride;
  };
  static_assert(sizeof(Header) == 56, "the region's header is a wire format: change kVersion with it");
  static Header header_for(std::uint32_t nranks, std::uint32_t stage_bytes);
  static Header header_of(const shm::RegionGeometry& g);
  static std::uint64_t bytes_for(const Header& h) { return h.sums_offset + 2 * h.sum_stride; }
  BoardStamp& stamp_at(std::uint64_t offset) const { return *reinterpret_cast<BoardStamp*>(base_ + offset); }
  std::byte* base_ = nullptr;
  Header h_{};
};

}  // namespace mpf::coll
