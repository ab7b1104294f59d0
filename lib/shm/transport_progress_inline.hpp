// Hot paths of the shared-memory transport's progress (see transport.hpp):
// polling the rings and waking peers. No system call except the futex wake
// of a sleeping peer, no allocation, no lock.
#pragma once

#include <algorithm>
#include <bit>

namespace mpf::shm {

inline void Transport::wake(std::uint32_t peer) {
  // Pairs with the sleeper's seq_cst store to `sleeping` followed by its
  // re-check: either it sees our work, or we see it asleep.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  wake_after_fence(peer);
}

inline void Transport::wake_after_fence(std::uint32_t peer) {
  RankControl& c = *endpoints_[peer].control;
  // seq_cst: ordered after the caller's seq_cst store (a plain load on x86).
  if (c.sleeping.load(std::memory_order_seq_cst) != 0) [[unlikely]]
    shm::ring_doorbell(c, *control_);
}

inline void Transport::wake_for_room(std::uint32_t peer) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // as in wake()
  wake_for_room_after_fence(peer);
}

inline void Transport::wake_for_room_after_fence(std::uint32_t peer) {
  RankControl& c = *endpoints_[peer].control;
  if (c.sleeping.load(std::memory_order_seq_cst) == kSleepsForRoom) [[unlikely]]
    shm::ring_doorbell(c, *control_);
}

inline void Transport::wake_later(std::uint32_t peer) { defer_wake(peer, kWorkWakeDue); }

inline void Transport::wake_later_for_room(std::uint32_t peer) { defer_wake(peer, kRoomWakeDue); }

inline void Transport::defer_wake(std::uint32_t peer, WakeDue due) {
  std::uint8_t& pending = endpoints_[peer].wake_due;
  if (pending == kNoWakeDue) wakes_due_.push_back(peer);  // never reallocates: reserved for every peer
  pending = std::max(pending, static_cast<std::uint8_t>(due));
}

inline void Transport::flush_wakes() {
  if (wakes_due_.empty()) [[likely]]
    return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::uint32_t peer : wakes_due_) {
    std::uint8_t& due = endpoints_[peer].wake_due;
    if (due == kWorkWakeDue) {
      wake_after_fence(peer);
    } else {
      wake_for_room_after_fence(peer);
    }
    due = kNoWakeDue;
  }
  wakes_due_.clear();
}

inline void Transport::wake_deferred() {
  // seq_cst: after what the caller stored (a plain load on x86), as the
  // sleeper counts itself in before it looks for what it waits for.
  NodeWaiting& waiting = segment_->ranks().waiting();
  if (std::atomic_ref<std::uint32_t>(waiting.deferred_sleepers).load(std::memory_order_seq_cst) == 0) [[likely]] {
    return;
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::uint32_t local = 0; local < world_of_local_.size(); ++local) {
    RankControl& c = segment_->rank(local);
    if (local != local_me_ && c.sleeping.load(std::memory_order_relaxed) == kSleepsDeferred) {
      shm::ring_doorbell(c, *control_);
    }
  }
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
      Endpoint& e = endpoints_[sender];
      if (from_sender != 0) {
        e.idle_polls = 0;
        wake_for_room_after_fence(sender);  // it may wait for ring space; drain()'s release() was seq_cst
      } else if (++e.idle_polls >= kIdlePollsBeforeClear && (deferred_[w] & mask) == 0) {
        // Quiet for a while: clear its bit, then look once more, so a packet
        // published just before the clear is not left without its bit.
        e.idle_polls = 0;
        inbox_[w].fetch_and(~mask, std::memory_order_seq_cst);
        if (e.in.try_peek() != nullptr) {
          inbox_[w].fetch_or(mask, std::memory_order_relaxed);
        }
      }
    }
  }
  retry_deferred_ = false;
  return consumed;
}

inline const progress::Packet* Transport::peek(std::uint32_t sender) const {
  const Endpoint& e = endpoints_[sender];
  if ((deferred_[e.local / 64] & (std::uint64_t{1} << (e.local % 64))) != 0) [[unlikely]]
    return nullptr;
  return static_cast<const progress::Packet*>(e.in.try_peek());
}

inline void Transport::consume(std::uint32_t sender) {
  Endpoint& e = endpoints_[sender];
  e.in.next();
  e.in.release();  // seq_cst: a full fence for the wake check
  e.idle_polls = 0;
  wake_for_room_after_fence(sender);
}

template <class OnPacket>
inline std::size_t Transport::drain(std::uint32_t sender, OnPacket& on_packet) {
  Endpoint& e = endpoints_[sender];
  std::size_t n = 0;
  while (const void* raw = e.in.try_peek()) {
    if (!on_packet(sender, *static_cast<const progress::Packet*>(raw))) {
      deferred_[e.local / 64] |= std::uint64_t{1} << (e.local % 64);
      deferred_any_ = true;
      break;
    }
    e.in.next();
    ++n;
  }
  if (n != 0) e.in.release();  // one write of our tail for the whole batch
  return n;
}

}  // namespace mpf::shm
