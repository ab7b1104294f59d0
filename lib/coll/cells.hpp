// Small collective messages over per-pair cells (MailCell; seed 002
// §3.3's dedicated protocol slots): the path of barriers and of collective
// data up to the coll_short_limit tunable. Rank s sends to rank r through
// the two cells of the pair (s -> r), which only s writes and only r reads,
// so a message is one cache-line transfer (a few for a longer one) and no
// read-modify-write; the collective slot (channel.hpp) carries what does
// not fit.
//
// A pair's messages are taken in the order they were posted. Each carries
// the collective's key and step, and a receiver takes only the message it
// expects: ranks that disagree on the call (MPI_Bcast on one, MPI_Barrier
// on another) wait, and mpfinspect names the mismatch, instead of mixing
// their data. Waits go through the progress engine like the channel's;
// posting wakes a sleeping receiver, taking wakes a sender that sleeps for
// room (a post refused for want of a cell says so: Transport::want_room),
// both deferred (Transport::wake_later): whoever posts or takes flushes the
// wakes before it returns to the application (the progress engine does
// at each poll).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/channel.hpp"
#include "coll/cells_layout.hpp"
#include "shm/transport.hpp"

namespace mpf::coll {

// The most data a cell can carry (the coll_short_limit tunable's maximum;
// MailCell::bytes holds it): algorithms may keep a cell's worth of data on
// their stack.
inline constexpr std::uint32_t kMaxCellData = 4032;

class Cells {
 public:
  void init(shm::Transport& transport);

  // Data bytes one message can carry (the coll_short_limit tunable, up to
  // the end of the cell's last line).
  std::uint32_t capacity() const { return capacity_; }
  // The same for cells of `cell_bytes`.
  static std::uint32_t capacity_of(std::size_t cell_bytes) {
    return std::min<std::uint32_t>(kMaxCellData, static_cast<std::uint32_t>(cell_bytes - offsetof(MailCell, data)));
  }

  // Posts step `step` of collective `key` with `bytes` (<= capacity()) at
  // `data` to world rank `to`, and wakes it. False, posting nothing, while
  // `to` has not taken this rank's message before last.
  bool try_post(std::uint32_t to, Key key, std::uint32_t step, const void* data, std::uint32_t bytes);

  // Takes the next message from world rank `from` if it has been posted and
  // is step `step` of `key`: calls take(data, bytes) while the cell is
  // held, then frees the cell. False when it is not there (yet).
  template <class Take>
  bool try_take(std::uint32_t from, Key key, std::uint32_t step, Take&& take);
  // The same, copying the data to `out` (at most `bytes` bytes of it).
  bool try_take_into(std::uint32_t from, Key key, std::uint32_t step, void* out, std::uint32_t bytes);

 private:
  // The pair's cells for message number n (numbered from 1).
  MailCell& out_cell(std::uint32_t to, std::uint64_t n) const {
    return *reinterpret_cast<MailCell*>(out_[to] + (n % kCellsPerPair) * cell_bytes_);
  }
  const MailCell& in_cell(std::uint32_t from, std::uint64_t n) const {
    return *reinterpret_cast<const MailCell*>(in_[from] + (n % kCellsPerPair) * cell_bytes_);
  }
  // A cell's data runs past MailCell::data into the rest of the cell.
  static std::byte* data_of(MailCell& cell) {
    return reinterpret_cast<std::byte*>(&cell) + offsetof(MailCell, data);
  }
  static const std::byte* data_of(const MailCell& cell) {
    return reinterpret_cast<const std::byte*>(&cell) + offsetof(MailCell, data);
  }
  static bool belongs(const MailCell& cell, Key key, std::uint32_t step) {
    return cell.context == key.context && cell.seq == key.seq && cell.kind == static_cast<std::uint16_t>(key.kind) &&
           cell.root == key.root && cell.step == step;
  }
  void taken(std::uint32_t from, std::uint64_t n);

  shm::Transport* transport_ = nullptr;
  CellsLayout layout_;
  std::uint32_t me_ = 0;
  std::uint32_t capacity_ = 0;
  std::size_t cell_bytes_ = 0;
  // Per peer (world rank): the first cell of the pair (me -> peer) and of
  // (peer -> me), messages posted to it, messages taken from it, and what
  // this rank last read of the peer's count of taken messages.
  std::vector<std::byte*> out_;
  std::vector<const std::byte*> in_;
  std::vector<std::uint64_t> posted_, taken_, acked_;
};

template <class Take>
bool Cells::try_take(std::uint32_t from, Key key, std::uint32_t step, Take&& take) {
  const std::uint64_t n = taken_[from] + 1;
  const MailCell& cell = in_cell(from, n);
  if (cell.stamp.load(std::memory_order_acquire) != n || !belongs(cell, key, step)) {
    transport_->flush_wakes();  // after the load: the two overlap
    return false;
  }
  take(data_of(cell), std::min<std::uint32_t>(cell.bytes, capacity_));
  // The peer's count of our messages it has taken, from the low bits it
  // sent: at most a few behind what we posted.
  const auto behind = static_cast<std::uint32_t>(static_cast<std::uint32_t>(posted_[from]) - cell.taken);
  const std::uint64_t acked = posted_[from] - behind;
  if (acked > acked_[from]) acked_[from] = acked;
  taken(from, n);
  return true;
}

}  // namespace mpf::coll
