// Hot paths of the shared-memory transport (see transport.hpp): no system
// call except the futex wake of a sleeping peer, no allocation, no lock.
#pragma once

#include <algorithm>
#include <bit>

#include "common/futex.hpp"
#include "common/prefetch.hpp"

namespace mpf::shm {

inline Packet* Transport::try_claim(std::uint32_t peer) {
  return static_cast<Packet*>(out_[peer].try_claim());
}

inline void Transport::wake(std::uint32_t peer) {
  // Pairs with the sleeper's seq_cst store to `sleeping` followed by its
  // re-check: either it sees our work, or we see it asleep.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wake_after_fence(peer);
}

inline void Transport::wake_after_fence(std::uint32_t peer) {
  RankControl& c = *control_of_[peer];
  // seq_cst: ordered after the caller's seq_cst store (a plain load on x86).
  if (c.sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]] ring_doorbell(c);
}

inline void Transport::ring_doorbell(RankControl& sleeper) {
  sleeper.doorbell.fetch_add(1, std::memory_order_seq_cst);
  common::futex_wake(sleeper.doorbell);
  count(control_->counters.wakeups_sent);
}

inline void Transport::wake_for_room(std::uint32_t peer) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // as in wake()
  wake_for_room_after_fence(peer);
}

inline void Transport::wake_for_room_after_fence(std::uint32_t peer) {
  RankControl& c = *control_of_[peer];
  if (c.sleeping.load(std::memory_order_seq_cst) == kSleepsForRoom) [[unlikely]] ring_doorbell(c);
}

inline void Transport::wake_later(std::uint32_t peer) { defer_wake(peer, kWorkWakeDue); }

inline void Transport::wake_later_for_room(std::uint32_t peer) { defer_wake(peer, kRoomWakeDue); }

inline void Transport::defer_wake(std::uint32_t peer, WakeDue due) {
  if (wake_due_[peer] == kNoWakeDue) wakes_due_.push_back(peer);  // never reallocates: reserved for every peer
  wake_due_[peer] = std::max(wake_due_[peer], static_cast<std::uint8_t>(due));
}

inline void Transport::flush_wakes() {
  if (wakes_due_.empty()) [[likely]] return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::uint32_t peer : wakes_due_) {
    if (wake_due_[peer] == kWorkWakeDue) {
      wake_after_fence(peer);
    } else {
      wake_for_room_after_fence(peer);
    }
    wake_due_[peer] = kNoWakeDue;
  }
  wakes_due_.clear();
}

inline void Transport::wake_deferred() {
  // seq_cst: after what the caller stored (a plain load on x86), as the
  // sleeper counts itself in before it looks for what it waits for.
  if (std::atomic_ref<std::uint32_t>(deferred_sleepers()).load(std::memory_order_seq_cst) == 0) [[likely]] return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::uint32_t local = 0; local < world_of_local_.size(); ++local) {
    RankControl& c = segment_->rank(local);
    if (local != local_me_ && c.sleeping.load(std::memory_order_relaxed) == kSleepsDeferred) ring_doorbell(c);
  }
}

inline void Transport::publish(std::uint32_t peer) {
  out_[peer].publish();  // seq_cst store: a full fence for what follows
  // Tell the receiver which ring to look at, unless its bit is still set
  // (a receiver keeps the bits of busy rings set, so a steady stream costs
  // no write to its inbox). Dekker with the receiver's clearing in poll():
  // we store the slot then load the bit, it stores the bit then loads the
  // slot, both sequentially consistent, so one of us sees the other.
  std::atomic<std::uint64_t>& word = *peer_inbox_word_[peer];
  const std::uint64_t bit = std::uint64_t{1} << (local_me_ % 64);
  if ((word.load(std::memory_order_seq_cst) & bit) == 0) word.fetch_or(bit, std::memory_order_seq_cst);
  wake_after_fence(peer);
}

inline std::int32_t Transport::try_take_eager_cell(std::uint64_t message_bytes) {
  if (fits_small_cell(message_bytes)) {
    const std::int32_t cell = take_cell_of(cells_, small_cells_, next_small_cell_, small_step_);
    if (cell >= 0) return cell;
  }
  return take_cell_of(0, eager_cells_, next_eager_cell_);
}

inline std::int32_t Transport::try_take_chunk_cell() {
  return take_cell_of(eager_cells_, cells_ - eager_cells_, next_chunk_cell_);
}

inline std::int32_t Transport::take_cell_of(std::uint32_t first, std::uint32_t count, std::uint32_t& next,
                                            std::uint32_t step) {
  for (std::uint32_t tried = 0; tried < count; ++tried) {
    const std::uint32_t c = next;
    next += step;  // step < count (Transport::init): no division on the send path
    if (next >= first + count) next -= count;
    EagerCell& cell = layout_.eager_cell(local_me_, c);
    // Acquire: the receiver's copy out of this cell is finished.
    if (cell.busy.load(std::memory_order_acquire) == 0) {
      cell.busy.store(1, std::memory_order_relaxed);  // only we set it
      return static_cast<std::int32_t>(c);
    }
  }
  return -1;
}

inline void Transport::warm_next_eager_cell() {
  if (warm_bytes_ == 0) [[likely]] return;
  const bool small = fits_small_cell(warm_bytes_);
  EagerCell& cell = layout_.eager_cell(local_me_, small ? next_small_cell_ : next_eager_cell_);
  // A busy cell is being read (or holds an unexpected message): leave it.
  if (cell.busy.load(std::memory_order_relaxed) == 0) {
    common::prefetch_for_write(&cell, sizeof(EagerCell) + std::min(warm_bytes_, small ? kSmallCellBytes : cell_bytes_));
  }
  warm_bytes_ = 0;
}

inline void Transport::release_cell(std::uint32_t owner, std::uint32_t cell) {
  // Our reads of the cell happen before its owner reuses it; seq_cst makes
  // the store a full fence for the wake check.
  layout_.eager_cell(local_of_[owner], cell).busy.store(0, std::memory_order_seq_cst);
  wake_for_room_after_fence(owner);
}

template <class OnPacket>
inline std::size_t Transport::poll(OnPacket&& on_packet) {
  std::size_t consumed = 0;
  for (std::size_t w = 0; w < inbox_words_; ++w) {
    // Loads only: the bits of busy rings stay set (see publish()), so
    // polling never takes the inbox line away from the senders.
    std::uint64_t bits = inbox_[w].load(std::memory_order_acquire);
    while (bits != 0) {
      const auto local = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
      bits &= bits - 1;
      const std::uint32_t sender = world_of_local_[local];
      const std::uint64_t mask = std::uint64_t{1} << (local % 64);
      if ((deferred_[w] & mask) != 0) {
        if (!retry_deferred_) continue;  // still waiting for room to take its packets
        deferred_[w] &= ~mask;
      }
      const std::size_t from_sender = drain(sender, on_packet);
      consumed += from_sender;
      if (from_sender != 0) {
        idle_polls_[sender] = 0;
        wake_for_room_after_fence(sender);  // it may wait for ring space; drain()'s release() was seq_cst
      } else if (++idle_polls_[sender] >= kIdlePollsBeforeClear && (deferred_[w] & mask) == 0) {
        // Quiet for a while: clear its bit, then look once more, so a packet
        // published just before the clear is not left without its bit.
        idle_polls_[sender] = 0;
        inbox_[w].fetch_and(~mask, std::memory_order_seq_cst);
        if (in_[sender].try_peek() != nullptr) {
          inbox_[w].fetch_or(mask, std::memory_order_relaxed);
        }
      }
    }
  }
  retry_deferred_ = false;
  return consumed;
}

inline const Packet* Transport::peek(std::uint32_t sender) const {
  const std::uint32_t local = local_of_[sender];
  if ((deferred_[local / 64] & (std::uint64_t{1} << (local % 64))) != 0) [[unlikely]] return nullptr;
  return static_cast<const Packet*>(in_[sender].try_peek());
}

inline void Transport::consume(std::uint32_t sender) {
  PacketRing::Consumer& ring = in_[sender];
  ring.next();
  ring.release();  // seq_cst: a full fence for the wake check
  idle_polls_[sender] = 0;
  wake_for_room_after_fence(sender);
}

template <class OnPacket>
inline std::size_t Transport::drain(std::uint32_t sender, OnPacket& on_packet) {
  PacketRing::Consumer& ring = in_[sender];
  std::size_t n = 0;
  while (const void* raw = ring.try_peek()) {
    if (!on_packet(sender, *static_cast<const Packet*>(raw))) {
      const std::uint32_t local = local_of_[sender];
      deferred_[local / 64] |= std::uint64_t{1} << (local % 64);
      deferred_any_ = true;
      break;
    }
    ring.next();
    ++n;
  }
  if (n != 0) ring.release();  // one write of our tail for the whole batch
  return n;
}

}  // namespace mpf::shm
