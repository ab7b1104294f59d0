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
  // Cell `cell` of rank `owner`'s eager pool, and its payload.
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
  // The board: its header, broadcast entry `i` (< kBoardEntries), and row
  // `r` (<= nranks; nranks: the result row) of parity `parity` (0 or 1),
  // and the stage (header().board_stage_bytes of data follow its stamp).
  BoardHeader& board() const;
  BoardStamp& board_entry(std::uint32_t i) const;
  BoardStamp& board_row(std::uint32_t parity, std::uint32_t r) const;
  BoardStamp& board_stage() const;
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

}  // namespace mpf::shm
