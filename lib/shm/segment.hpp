// Creating, attaching and opening the node's shared segment (layout in
// segment_layout.hpp). mpfrun creates it, each rank attaches to the file
// descriptor mpfrun hands it, and mpfinspect opens it read-only from outside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "common/tunables.hpp"
#include "shm/introspection.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::shm {

class SegmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A mapping of a job's segment. Move-only: the mapping (and the descriptor, if
// this object owns one) is released on destruction.
class Segment {
 public:
  struct Geometry {
    std::uint32_t nranks;
    std::uint32_t ncpus;
    std::string jobid;
    std::string tunables_json;
    std::uint32_t ring_slots = 2;
    std::uint32_t eager_cells = 2;
    std::uint32_t eager_cell_bytes = 64;
    std::uint32_t eager_small_cells = 2;
    std::uint32_t coll_bytes = 4096;
    std::uint32_t cell_data_bytes = 224;
    std::uint32_t board_stage_bytes = 0;
  };
  // The geometry a job of `nranks` gets from the tunables in effect.
  static Geometry geometry_for(std::uint32_t nranks, std::uint32_t ncpus, std::string jobid,
                               const common::Tunables& tunables);

  // For mpfrun: an anonymous memfd sized for the job and initialised. The
  // descriptor stays open with close-on-exec set; the launcher clears that
  // flag in each rank's child process only.
  static Segment create(const Geometry& geometry);
  // Bytes a segment for this geometry needs, rounded up to whole pages.
  static std::size_t required_bytes(const Geometry& geometry);
  // For a rank: maps the segment whose descriptor mpfrun passed, checks it,
  // and closes the descriptor (the mapping keeps the memory alive).
  static Segment attach_fd(int fd);
  // For mpfinspect: maps a running job's segment read-only through
  // /proc/<pid>/fd/<fd> of its mpfrun.
  static Segment open_of_process(pid_t launcher_pid, int fd);

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(base_); }
  RankControl& rank(std::uint32_t r) const;
  std::string_view tunables_json() const;
  // Receiver r's pending-senders bitmap (inbox_words(nranks) words).
  std::atomic<std::uint64_t>* inbox(std::uint32_t r) const;
  // The ring that carries packets from rank `sender` to rank `receiver`.
  void* ring(std::uint32_t sender, std::uint32_t receiver) const;
  // Cell `cell` of rank `owner`'s eager pool, and its payload: cells from
  // header().eager_cells on are the small ones.
  EagerCell& eager_cell(std::uint32_t owner, std::uint32_t cell) const;
  Introspection& introspection(std::uint32_t r) const;
  // Data messages of `sender` that `receiver` has matched (flow control).
  std::atomic<std::uint64_t>& matched(std::uint32_t sender, std::uint32_t receiver) const;
  std::byte* eager_data(std::uint32_t owner, std::uint32_t cell) const;
  // Rank r's collective slot and its data area (header().coll_bytes).
  CollSlot& coll_slot(std::uint32_t r) const;
  std::byte* coll_data(std::uint32_t r) const;
  // Cell `i` (< kCellsPerPair) of the pair (sender -> receiver), and how
  // many of the sender's cells the receiver has taken.
  MailCell& cell(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const;
  std::atomic<std::uint64_t>& cell_ack(std::uint32_t sender, std::uint32_t receiver) const;
  // Split copy `i` (< kSplitsPerPair) of the pair (sender -> receiver).
  SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const;
  // The board: its header, broadcast entry `i` (< board_entries(nranks)),
  // and row `r` (<= nranks; nranks: the result row) of parity `parity` (0 or 1),
  // and the stage (header().board_stage_bytes of data follow its stamp);
  // sum `parity`'s piece words (sum_pieces(board_stage_bytes) of them) and
  // its data (board_stage_bytes).
  BoardHeader& board() const;
  BoardStamp& board_entry(std::uint32_t i) const;
  BoardStamp& board_row(std::uint32_t parity, std::uint32_t r) const;
  BoardStamp& board_stage() const;
  SumPiece* board_sum(std::uint32_t parity) const;
  std::byte* board_sum_data(std::uint32_t parity) const;
  int fd() const { return fd_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Segment(void* base, std::size_t bytes, int fd) : base_(base), bytes_(bytes), fd_(fd) {}
  static Segment map_checked(int fd, bool writable, const std::string& what);
  std::byte* at(std::uint64_t offset) const { return static_cast<std::byte*>(base_) + offset; }

  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int fd_ = -1;  // owned descriptor (creator only), -1 otherwise
};

// The accessors are inline: the data path calls them for every message.
inline RankControl& Segment::rank(std::uint32_t r) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<RankControl*>(static_cast<char*>(base_) + h.rank_control_offset +
                                         r * h.rank_control_stride);
}

inline std::atomic<std::uint64_t>* Segment::inbox(std::uint32_t r) const {
  const SegmentHeader& h = header();
  return reinterpret_cast<std::atomic<std::uint64_t>*>(at(h.inbox_offset + r * h.inbox_stride));
}

inline void* Segment::ring(std::uint32_t sender, std::uint32_t receiver) const {
  const SegmentHeader& h = header();
  return at(h.rings_offset + (std::uint64_t{receiver} * h.nranks + sender) * h.ring_stride);
}

inline EagerCell& Segment::eager_cell(std::uint32_t owner, std::uint32_t cell) const {
  const SegmentHeader& h = header();
  const std::uint64_t cell_stride = eager_cell_stride(h.eager_cell_bytes);
  const std::uint64_t offset = cell < h.eager_cells
                                   ? cell * cell_stride
                                   : h.eager_cells * cell_stride + (cell - h.eager_cells) * kSmallCellStride;
  return *reinterpret_cast<EagerCell*>(at(h.eager_offset + owner * h.eager_pool_stride + offset));
}

inline std::byte* Segment::eager_data(std::uint32_t owner, std::uint32_t cell) const {
  return reinterpret_cast<std::byte*>(&eager_cell(owner, cell)) + sizeof(EagerCell);
}

inline Introspection& Segment::introspection(std::uint32_t r) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<Introspection*>(at(h.introspection_offset + r * h.introspection_stride));
}

inline std::atomic<std::uint64_t>& Segment::matched(std::uint32_t sender, std::uint32_t receiver) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<std::atomic<std::uint64_t>*>(
      at(h.credits_offset + receiver * counter_row_bytes(h.nranks) + std::uint64_t{sender} * sizeof(std::uint64_t)));
}

inline MailCell& Segment::cell(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const {
  const SegmentHeader& h = header();
  const std::uint64_t pair = std::uint64_t{receiver} * h.nranks + sender;
  return *reinterpret_cast<MailCell*>(at(h.cells_offset + (pair * kCellsPerPair + i) * h.cell_bytes));
}

inline std::atomic<std::uint64_t>& Segment::cell_ack(std::uint32_t sender, std::uint32_t receiver) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<std::atomic<std::uint64_t>*>(
      at(h.cell_acks_offset + receiver * counter_row_bytes(h.nranks) + std::uint64_t{sender} * sizeof(std::uint64_t)));
}

inline BoardHeader& Segment::board() const { return *reinterpret_cast<BoardHeader*>(at(header().board_offset)); }

inline BoardStamp& Segment::board_entry(std::uint32_t i) const {
  return *reinterpret_cast<BoardStamp*>(at(header().board_offset + sizeof(BoardHeader) + i * kBoardStride));
}

inline BoardStamp& Segment::board_row(std::uint32_t parity, std::uint32_t r) const {
  const std::uint64_t row = board_entries(header().nranks) + std::uint64_t{parity} * (header().nranks + 1) + r;
  return *reinterpret_cast<BoardStamp*>(at(header().board_offset + sizeof(BoardHeader) + row * kBoardStride));
}

inline BoardStamp& Segment::board_stage() const {
  return *reinterpret_cast<BoardStamp*>(at(header().board_offset + board_rows_end(header().nranks)));
}

inline SumPiece* Segment::board_sum(std::uint32_t parity) const {
  const SegmentHeader& h = header();
  return reinterpret_cast<SumPiece*>(at(h.board_offset + board_sums_offset(h.nranks, h.board_stage_bytes) +
                                        parity * board_sum_stride(h.board_stage_bytes)));
}

inline std::byte* Segment::board_sum_data(std::uint32_t parity) const {
  return reinterpret_cast<std::byte*>(board_sum(parity) + sum_pieces(header().board_stage_bytes));
}

inline SplitCopy& Segment::split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const {
  const SegmentHeader& h = header();
  const std::uint64_t pair = std::uint64_t{receiver} * h.nranks + sender;
  return *reinterpret_cast<SplitCopy*>(at(h.splits_offset + (pair * kSplitsPerPair + i) * sizeof(SplitCopy)));
}

inline CollSlot& Segment::coll_slot(std::uint32_t r) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<CollSlot*>(at(h.coll_offset + r * h.coll_stride));
}

inline std::byte* Segment::coll_data(std::uint32_t r) const {
  return reinterpret_cast<std::byte*>(&coll_slot(r)) + sizeof(CollSlot);
}

}  // namespace mpf::shm
