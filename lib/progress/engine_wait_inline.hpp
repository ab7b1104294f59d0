// Waiting (SPEC §2 Waiting): poll, then yield, then sleep on the rank's
// futex until a peer rings its doorbell. The counts come from the tunables;
// when ranks outnumber CPUs the adaptive policy spins only briefly, because
// every poll then takes a CPU from a rank with work to do.
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

// Polls before a wait shows up in introspection: waits that end sooner (the
// common case) cost nothing extra.
inline constexpr std::uint64_t kPublishAfterPolls = 1024;

template <class Done>
void Engine::wait_until(Done&& done, const BlockedCall& call) {
  progress();
  if (done()) return;
  std::uint64_t polls = 0;
  std::uint64_t yields = 0;
  for (;;) {
    if (polls < spin_limit_) {
      ++polls;
      if (polls == kPublishAfterPolls) [[unlikely]] publish_blocked(call);
      cpu_relax();
    } else if (yields < yield_limit_ || never_sleep_) {
      if (!blocked_published_) [[unlikely]] publish_blocked(call);
      ++yields;
      ::sched_yield();
    } else {
      if (!blocked_published_) publish_blocked(call);
      sleep_once(done);
    }
    progress();
    if (done()) break;
  }
  if (blocked_published_) clear_blocked();
}

void Engine::sleep_once(const auto& done) {
  shm::RankControl& me = transport_->control();
  // Announce the sleep, then look once more: a peer that handed us work
  // before seeing `sleeping` set is found by this last look; one that hands
  // it after sees the flag and rings the doorbell (transport.wake()).
  me.sleeping.store(1, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint32_t seen = me.doorbell.load(std::memory_order_seq_cst);
  progress();
  if (!done()) {
    counters_->sleeps.fetch_add(1, std::memory_order_relaxed);
    publish_queues();
    common::futex_wait(me.doorbell, seen);
  }
  me.sleeping.store(0, std::memory_order_relaxed);
}

}  // namespace mpf::progress
