// Waiting (SPEC §2 Waiting): poll, then yield, then sleep on the rank's
// futex until a peer rings its doorbell. The counts come from the tunables.
// When ranks outnumber CPUs the adaptive policy does not poll (a poll takes
// the CPU from a rank with work to do): with up to all_yield_per_cpu ranks
// per CPU every waiting rank yields; with more, at most yielders_per_cpu
// waiting ranks per CPU keep yielding, for yield_us, and every other
// waiting rank sleeps at once (progress/yield_slots.hpp). A holder whose
// wait ends passes its slot to the rank that has slept longest, the
// likeliest to be handed work next (tune/kernels/token_ring.c measures it).
#pragma once

#include <sched.h>

#include "common/futex.hpp"

namespace mpf::progress {

// Tells the CPU we are spinning (saves power, helps a sibling hyperthread).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls, or yields, before a wait shows up in introspection: waits that end
// sooner (the common case) cost nothing extra. With more ranks than CPUs
// every microsecond a waiting rank spends when it gets the CPU is taken
// from the ranks with work, many times per collective.
inline constexpr std::uint64_t kPublishAfterPolls = 1024;
inline constexpr std::uint64_t kPublishAfterYields = 64;

// The longest a deferred sleep (Turn::far) lasts unwoken: a safety net for
// a sleeper nobody wakes (the ranks that need it poll with MPI_Test, say,
// and never wait). Far longer than a whole round of turns at 64 ranks
// (tests/mpi/bcast_turns.c), so that it ends almost no sleep that a root
// would have ended.
inline constexpr std::uint64_t kDeferredSleepNs = 50'000'000;

template <transport::Transport T>
template <class Done>
void BasicEngine<T>::wait_until(Done&& predicate, const BlockedCall& call) {
  // The predicate may act when it succeeds (MPI_Mprobe's claims the
  // message it finds), so once it has said true it is not asked again.
  bool succeeded = false;
  auto done = [&] { return succeeded || (succeeded = predicate()); };
  progress();
  if (done()) return;
  control_->polling.store(1, std::memory_order_relaxed);
  transport_->warm_next_eager();
  // One step of waiting: progress and look again.
  auto finished = [&] {
    progress();
    return done();
  };
  auto wait = [&] {
    if (yield_slots_.enabled()) {
      if (call.turn == Turn::far) {
        if (!blocked_published_) publish_blocked(call);
        while (sleep_deferred(done)) {
          if (finished()) return;
        }
      } else if (call.turn == Turn::none) {
        transport_->wake_deferred();
      }
    }
    // With a CPU each, a rank woken without its wait finished goes back to
    // polling before it sleeps again: what woke it (a fin, a request to
    // send) tends to come in a stream, and every sleep costs the waker a
    // futex call and us tens of microseconds to wake on a virtual machine.
    // With more ranks than CPUs a poll takes the CPU from a rank with work,
    // so such a rank sleeps again at once.
    for (;;) {
      // A crowd wait with more ranks than CPUs does not poll: the ranks it
      // waits for need this CPU.
      const std::uint64_t spins = call.crowd && yield_slots_.enabled() ? 0 : spin_limit_;
      for (std::uint64_t polls = 1; polls <= spins; ++polls) {
        if (polls == kPublishAfterPolls && !blocked_published_) [[unlikely]] publish_blocked(call);
        cpu_relax();
        if (finished()) return;
        if (activity_) [[unlikely]] {
          activity_ = false;
          polls = 0;
        }
      }
      if (yield_slots_.enabled()) {
        // More ranks than CPUs: only a slot holder keeps yielding, for a
        // while (timed from its 16th yield: most waits end before). A slot
        // may have been passed to us while we slept (yield_slots.hpp).
        if (!call.crowd && !holds_yield_slot_) holds_yield_slot_ = yield_slots_.try_take();
        if (holds_yield_slot_ || call.crowd) {
          std::uint64_t deadline = 0;
          bool ended = false;
          for (std::uint64_t yields = 1; !ended; ++yields) {
            ::sched_yield();
            ended = finished();
            if (ended || yields % 16 != 0) continue;
            if (yields == kPublishAfterYields && !blocked_published_) publish_blocked(call);
            const std::uint64_t now = now_ns();
            if (deadline == 0) deadline = now + yield_ns_;
            ended = now >= deadline;
          }
          if (done()) return;
          if (holds_yield_slot_) {  // it lasted: sleep, and leave the slot to the next waiter
            yield_slots_.release();
            holds_yield_slot_ = false;
          }
        }
        if (!blocked_published_) publish_blocked(call);
      } else {
        if (!blocked_published_) publish_blocked(call);
        for (std::uint64_t yields = 0; yields < yield_limit_ || never_sleep_; ++yields) {
          ::sched_yield();
          if (finished()) return;
          if (activity_) [[unlikely]] {
            activity_ = false;
            yields = 0;
          }
        }
      }
      do {
        if (call.turn == Turn::none) transport_->wake_deferred();
        sleep_once(done);
        if (finished()) return;
      } while (yield_slots_.enabled() && !holds_yield_slot_);
    }
  };
  wait();
  control_->polling.store(0, std::memory_order_relaxed);
  // Our work came: a slot we hold goes to the rank that has slept longest.
  if (holds_yield_slot_) {
    yield_slots_.pass_on();
    holds_yield_slot_ = false;
  }
  if (blocked_published_) clear_blocked();
}

template <transport::Transport T>
void BasicEngine<T>::sleep_once(const auto& done) {
  shm::RankControl& me = *control_;
  // Announce the sleep, then look once more: a peer that handed us work
  // before seeing `sleeping` set (or the node's count of sleepers) is found
  // by this last look; one that hands it after sees the flag and rings the
  // doorbell (transport.wake()).
  // Waiting for room (sends held back, a collective's unread cell or slot)
  // makes it a sleep that freed room ends too (shm::SleepReason). The last
  // look may find no room: then we say so and look again, so room freed in
  // between is found either way.
  auto wants_room = [&] { return backlog_count_ > 0 || transport_->room_wanted(); };
  std::atomic_ref<std::uint32_t> sleepers(transport_->node().waiting().sleepers);
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  const bool for_room = wants_room();
  me.sleeping.store(for_room ? shm::kSleepsForRoom : shm::kSleepsForWork, std::memory_order_seq_cst);
  // With yield slots, join the queue a slot is passed along: a rank that
  // passes us one bumps the doorbell after it marks our ticket, so either
  // the last look below sees the mark or the futex wait returns at once.
  const bool queued = yield_slots_.enabled();
  if (queued) yield_slots_.enter_queue();
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint32_t seen = me.doorbell.load(std::memory_order_seq_cst);
  progress();
  bool finished = done();
  if (!finished && !for_room && wants_room()) [[unlikely]] {
    me.sleeping.store(shm::kSleepsForRoom, std::memory_order_seq_cst);
    progress();
    finished = done();
  }
  const bool promoted = queued && me.sleep_ticket.load(std::memory_order_seq_cst) == shm::kPromotedTicket;
  // A round that copied rendezvous data may leave more to copy (a split
  // copy's chunks, further reads): sleeping now could leave both ends
  // asleep with a message half done.
  if (!finished && !copied_ && !promoted && transport_->may_sleep()) sleep_on_doorbell(seen, 0);
  if (queued && yield_slots_.leave_queue()) holds_yield_slot_ = true;
  me.sleeping.store(0, std::memory_order_relaxed);
  sleepers.fetch_sub(1, std::memory_order_relaxed);
  transport_->clear_room_wanted();  // what still lacks room says so again before the next sleep
}

template <transport::Transport T>
inline bool BasicEngine<T>::sleep_on_doorbell(std::uint32_t seen, std::uint64_t timeout_ns) {
  shm::count(counters_->sleeps);
  publish_queues();
  std::atomic<std::uint32_t>& doorbell = control_->doorbell;
  const std::uint64_t since = debug_.wait ? now_ns() : 0;
  bool woken = true;
  if (timeout_ns == 0) {
    common::futex_wait(doorbell, seen);
  } else {
    woken = common::futex_wait_for(doorbell, seen, timeout_ns);
  }
  if (debug_.wait) [[unlikely]] {
    common::debug_report(transport_->rank(), woken ? "slept %.1f us" : "slept %.1f us (time limit)",
                         static_cast<double>(now_ns() - since) / 1e3);
  }
  return woken;
}

template <transport::Transport T>
bool BasicEngine<T>::sleep_deferred(const auto& done) {
  if (backlog_count_ > 0 || transport_->room_wanted()) return false;
  shm::RankControl& me = *control_;
  // As in sleep_once: say so, then look once more; a root that publishes
  // after the last look sees the flag (Board's turn wake).
  std::atomic_ref<std::uint32_t> deferred(transport_->node().waiting().deferred_sleepers);
  deferred.fetch_add(1, std::memory_order_seq_cst);
  me.sleeping.store(shm::kSleepsDeferred, std::memory_order_seq_cst);
  const std::uint32_t seen = me.doorbell.load(std::memory_order_seq_cst);
  progress();
  if (!done() && !copied_ && transport_->may_sleep()) {
    shm::count(counters_->turn_sleeps);
    if (!sleep_on_doorbell(seen, kDeferredSleepNs)) shm::count(counters_->turn_timeouts);
  }
  me.sleeping.store(0, std::memory_order_relaxed);
  deferred.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

}  // namespace mpf::progress
