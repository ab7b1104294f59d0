// A window member's lock (MPI_Win_lock), kept in the window's shared part
// and taken by the origins alone: the target never acts, so a passive
// target is locked while it computes.
//
// The queue is seed 001's, fair: a request that cannot be granted waits;
// when the holders release, an exclusive request at the head is granted
// alone, else every shared request up to the next exclusive one. It is
// kept as tickets. Each request takes the next ticket, counting the
// exclusive ones before it, in one atomic add on the member's `requested`
// word; releases count into `released` the same way. Then
//   an exclusive request is granted when every ticket before it is released,
//   a shared one when every exclusive ticket before it is released,
// which is first come, first served, with shared holders together: no
// request waits behind one that came after it, so none starves.
//
//   Ticket t = request_lock(layout, target, me, LockType::shared, now);
//   if (!granted(layout, t)) { announce_waiting(...); wait until granted(layout, t); }
//   mark_held(...);
//   ... release_lock(layout, target, me, type): then wake the origins
//   for_each_granted_waiter names (only those the release lets in).
#pragma once

#include <atomic>
#include <cstdint>

#include "rma/window_layout.hpp"

namespace mpf::rma {

struct Ticket {
  std::uint32_t target = 0;
  LockType type = LockType::none;
  std::uint32_t position = 0;          // tickets taken before this one
  std::uint32_t exclusive_before = 0;  // exclusive tickets among them
};

inline std::uint64_t ticket_increment(LockType type) {
  return (std::uint64_t{1} << 32) | (type == LockType::exclusive ? 1u : 0u);
}

inline Ticket request_lock(const WindowLayout& w, std::uint32_t target, std::uint32_t origin, LockType type,
                           std::int64_t now_ns) {
  LockSlot& slot = w.lock_slot(target, origin);
  const std::uint64_t before = w.member(target).requested.fetch_add(ticket_increment(type), std::memory_order_seq_cst);
  const Ticket t{target, type, static_cast<std::uint32_t>(before >> 32), static_cast<std::uint32_t>(before)};
  slot.type.store(static_cast<std::uint32_t>(type), std::memory_order_relaxed);
  slot.ticket.store(t.position, std::memory_order_relaxed);
  slot.exclusive_before.store(t.exclusive_before, std::memory_order_relaxed);
  slot.since_ns.store(now_ns, std::memory_order_relaxed);
  return t;
}

// Whether a request is granted once `released` tickets are returned.
inline bool grants(std::uint64_t released, LockType type, std::uint32_t position, std::uint32_t exclusive_before) {
  return type == LockType::exclusive ? static_cast<std::uint32_t>(released >> 32) == position
                                     : static_cast<std::uint32_t>(released) == exclusive_before;
}

// Acquire: what the holders before wrote at the target is visible once
// the lock is granted.
inline bool granted(const WindowLayout& w, const Ticket& t) {
  return grants(w.member(t.target).released.load(std::memory_order_acquire), t.type, t.position, t.exclusive_before);
}

// A request that was not granted at once: shows itself as waiting, so a
// releaser wakes it. Seq_cst, and before the last look at granted() that
// precedes a sleep: either that look sees the release or the releaser
// sees the waiter (release_lock).
inline void announce_waiting(const WindowLayout& w, std::uint32_t target, std::uint32_t origin) {
  w.member(target).waiters.fetch_add(1, std::memory_order_seq_cst);
  w.lock_slot(target, origin).state.store(kLockWaiting, std::memory_order_seq_cst);
}

inline void mark_held(const WindowLayout& w, std::uint32_t target, std::uint32_t origin, bool announced) {
  w.lock_slot(target, origin).state.store(kLockHeld, std::memory_order_relaxed);
  if (announced) w.member(target).waiters.fetch_sub(1, std::memory_order_relaxed);
}

// Returns the lock; true when some origin waits at the target (then the
// caller wakes those for_each_granted_waiter names). Release: what this
// holder wrote at the target is visible to the next.
inline bool release_lock(const WindowLayout& w, std::uint32_t target, std::uint32_t origin, LockType type) {
  w.lock_slot(target, origin).state.store(0, std::memory_order_relaxed);
  MemberBlock& m = w.member(target);
  m.released.fetch_add(ticket_increment(type), std::memory_order_seq_cst);
  return m.waiters.load(std::memory_order_seq_cst) != 0;
}

// Calls fn(origin) for each origin waiting at `target` whose request is
// granted now: with many origins queued, a release wakes only those it
// lets in, not every waiter (64 ranks on 2 CPUs contending for one lock).
template <class Fn>
void for_each_granted_waiter(const WindowLayout& w, std::uint32_t target, Fn&& fn) {
  const std::uint64_t released = w.member(target).released.load(std::memory_order_seq_cst);
  for (std::uint32_t origin = 0; origin < w.members(); ++origin) {
    const LockSlot& s = w.lock_slot(target, origin);
    if (s.state.load(std::memory_order_seq_cst) != kLockWaiting) continue;
    const auto type = static_cast<LockType>(s.type.load(std::memory_order_relaxed));
    if (grants(released, type, s.ticket.load(std::memory_order_relaxed),
               s.exclusive_before.load(std::memory_order_relaxed))) {
      fn(origin);
    }
  }
}

}  // namespace mpf::rma
