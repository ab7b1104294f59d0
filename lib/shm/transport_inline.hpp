// Hot paths of the shared-memory transport (see transport.hpp): no system
// call except the futex wake of a sleeping peer, no allocation, no lock.
#pragma once

#include <bit>

#include "common/futex.hpp"

namespace mpf::shm {

inline Packet* Transport::try_claim(std::uint32_t peer) {
  return static_cast<Packet*>(out_[peer].try_claim());
}

inline void Transport::wake(std::uint32_t peer) {
  RankControl& c = segment_->rank(peer);
  // Pairs with the sleeper's seq_cst store to `sleeping` followed by its
  // re-check: either it sees our work, or we see it asleep.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (c.sleeping.load(std::memory_order_relaxed) != 0) [[unlikely]] {
    c.doorbell.fetch_add(1, std::memory_order_seq_cst);
    common::futex_wake(c.doorbell);
    control_->counters.wakeups_sent.fetch_add(1, std::memory_order_relaxed);
  }
}

inline void Transport::publish(std::uint32_t peer) {
  out_[peer].publish();
  // Tell the receiver which ring to look at. Release: the packet is
  // published before the bit that leads the receiver to it.
  std::atomic<std::uint64_t>* bits = segment_->inbox(peer);
  bits[me_ / 64].fetch_or(std::uint64_t{1} << (me_ % 64), std::memory_order_release);
  wake(peer);
}

inline std::int32_t Transport::try_take_cell() {
  for (std::uint32_t tried = 0; tried < cells_; ++tried) {
    const std::uint32_t c = next_cell_;
    next_cell_ = next_cell_ + 1 == cells_ ? 0 : next_cell_ + 1;
    EagerCell& cell = segment_->eager_cell(me_, c);
    // Acquire: the receiver's copy out of this cell is finished.
    if (cell.busy.load(std::memory_order_acquire) == 0) {
      cell.busy.store(1, std::memory_order_relaxed);  // only we set it
      return static_cast<std::int32_t>(c);
    }
  }
  return -1;
}

inline void Transport::release_cell(std::uint32_t owner, std::uint32_t cell) {
  // Release: our reads of the cell happen before its owner reuses it.
  segment_->eager_cell(owner, cell).busy.store(0, std::memory_order_release);
  wake(owner);
}

template <class OnPacket>
inline std::size_t Transport::poll(OnPacket&& on_packet) {
  std::size_t consumed = 0;
  for (std::size_t w = 0; w < inbox_words_; ++w) {
    // Acquire: pairs with the sender's release in publish().
    std::uint64_t bits = inbox_[w].exchange(0, std::memory_order_acquire);
    if (retry_deferred_) bits |= deferred_[w];
    while (bits != 0) {
      const std::uint32_t sender = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
      bits &= bits - 1;
      const std::uint64_t mask = std::uint64_t{1} << (sender % 64);
      if (!retry_deferred_ && (deferred_[w] & mask) != 0) continue;  // still waiting for room
      deferred_[w] &= ~mask;
      PacketRing::Consumer& ring = in_[sender];
      std::size_t from_sender = 0;
      while (const void* raw = ring.try_peek()) {
        if (!on_packet(sender, *static_cast<const Packet*>(raw))) {
          deferred_[w] |= mask;
          deferred_any_ = true;
          break;
        }
        ring.release();
        ++from_sender;
      }
      consumed += from_sender;
      if (from_sender != 0) wake(sender);  // it may be waiting for ring space
    }
  }
  retry_deferred_ = false;
  return consumed;
}

}  // namespace mpf::shm
