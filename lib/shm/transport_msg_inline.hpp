// Hot paths of the shared-memory transport's messaging (see transport.hpp):
// packets, eager buffers. No system call except the futex wake of a
// sleeping peer, no allocation, no lock.
#pragma once

#include <algorithm>

#include "common/prefetch.hpp"

namespace mpf::shm {

inline progress::Packet* Transport::try_claim(std::uint32_t peer) {
  return static_cast<progress::Packet*>(endpoints_[peer].out.try_claim());
}

inline void Transport::publish(std::uint32_t peer) {
  Endpoint& e = endpoints_[peer];
  e.out.publish();  // seq_cst store: a full fence for what follows
  // When we stream to the peer (nothing came back from it since our last
  // packet), the slot after the next one is ours to write soon, and its
  // lines were last read by the receiver: asking for them now overlaps
  // their transfer with the sends in between, where the full fence of each
  // publish would otherwise wait for it. Not the next slot: a receiver that
  // keeps up polls that one for our next packet. Not in a ping-pong: there
  // the request would only add traffic on the line pair the reply crosses.
  const std::uint64_t taken = e.in.taken();
  if (taken == e.taken_at_publish) common::prefetch_for_write(e.out.slot_ahead(1), kSlotBytes);
  e.taken_at_publish = taken;
  // Tell the receiver which ring to look at, unless its bit is still set
  // (a receiver keeps the bits of busy rings set, so a steady stream costs
  // no write to its inbox). Dekker with the receiver's clearing in poll():
  // we store the slot then load the bit, it stores the bit then loads the
  // slot, both sequentially consistent, so one of us sees the other.
  std::atomic<std::uint64_t>& word = *e.inbox_word;
  const std::uint64_t bit = std::uint64_t{1} << (local_me_ % 64);
  if ((word.load(std::memory_order_seq_cst) & bit) == 0) word.fetch_or(bit, std::memory_order_seq_cst);
  wake_after_fence(peer);
}

inline common::Status Transport::try_take_eager(std::uint32_t, std::uint64_t message_bytes, transport::EagerRef& cell) {
  if (fits_small_cell(message_bytes) &&
      take_cell_of(cells_, small_cells_, next_small_cell_, cell, small_step_) == common::Status::done) {
    return common::Status::done;
  }
  return take_cell_of(0, eager_cells_, next_eager_cell_, cell);
}

inline common::Status Transport::try_take_chunk(std::uint32_t, transport::EagerRef& cell) {
  return take_cell_of(eager_cells_, cells_ - eager_cells_, next_chunk_cell_, cell);
}

inline common::Status Transport::take_cell_of(std::uint32_t first, std::uint32_t count, std::uint32_t& next,
                                              transport::EagerRef& cell, std::uint32_t step) {
  for (std::uint32_t tried = 0; tried < count; ++tried) {
    const std::uint32_t c = next;
    next += step;  // step < count (Transport::init): no division on the send path
    if (next >= first + count) next -= count;
    EagerCell& header = layout_.eager_cell(local_me_, c);
    // Acquire: the receiver's copy out of this cell is finished.
    if (header.busy.load(std::memory_order_acquire) == 0) {
      header.busy.store(1, std::memory_order_relaxed);  // only we set it
      cell.id = c;
      return common::Status::done;
    }
  }
  return common::Status::retry;
}

inline void Transport::warm_next_eager() {
  if (warm_bytes_ == 0) [[likely]]
    return;
  const bool small = fits_small_cell(warm_bytes_);
  EagerCell& cell = layout_.eager_cell(local_me_, small ? next_small_cell_ : next_eager_cell_);
  // A busy cell is being read (or holds an unexpected message): leave it.
  if (cell.busy.load(std::memory_order_relaxed) == 0) {
    common::prefetch_for_write(&cell, sizeof(EagerCell) + std::min(warm_bytes_, small ? kSmallCellBytes : cell_bytes_));
  }
  warm_bytes_ = 0;
}

inline void Transport::release_eager(std::uint32_t owner, transport::EagerRef cell) {
  // Our reads of the cell happen before its owner reuses it; seq_cst makes
  // the store a full fence for the wake check.
  layout_.eager_cell(endpoints_[owner].local, cell.id).busy.store(0, std::memory_order_seq_cst);
  wake_for_room_after_fence(owner);
}

}  // namespace mpf::shm
