// Distributed locks: a ticket lock in PE 0's copy of the symmetric `long`
// (the low 32 bits the next ticket, the high 32 the ticket served). PEs
// are served in the order they asked, and a waiting PE sleeps until the
// release that serves its ticket wakes it: the releaser finds it by the
// ticket in its published wait (symmetric::PeWait).
#include <shmem.h>

#include <set>
#include <string>

#include "shmem/amo.hpp"
#include "shmem/wait.hpp"

namespace mpf::shmem {
namespace {

constexpr std::uint64_t kServedOne = std::uint64_t{1} << 32;
constexpr std::uint32_t kLockPe = 0;

std::uint32_t served(std::uint64_t word) { return static_cast<std::uint32_t>(word >> 32); }
std::uint32_t next_ticket(std::uint64_t word) { return static_cast<std::uint32_t>(word); }

// The lock word, checked: symmetric, a long, aligned.
std::uint64_t* lock_word(const char* call, long* lock) {
  require_initialized(call);
  static_assert(sizeof(long) == sizeof(std::uint64_t));
  if (lock == nullptr || symmetric_ref_of(lock, sizeof(long)) == 0) {
    fail_not_symmetric(call, lock, sizeof(long), "the lock");
  }
  return reinterpret_cast<std::uint64_t*>(lock);
}

// The locks this PE holds, all of them (the PE state shows the first
// kHeldLocks to mpfinspect).
std::set<std::uint64_t>& held_here() {
  static std::set<std::uint64_t> held;
  return held;
}

void note_held(std::uint64_t ref, bool held) {
  if (held) {
    held_here().insert(ref);
  } else {
    held_here().erase(ref);
  }
  symmetric::PeState& me = g_state.layout.pe(g_state.me);
  for (std::atomic<std::uint64_t>& slot : me.held_locks) {
    if (held && slot.load(std::memory_order_relaxed) == 0) {
      slot.store(ref, std::memory_order_relaxed);
      return;
    }
    if (!held && slot.load(std::memory_order_relaxed) == ref) {
      slot.store(0, std::memory_order_relaxed);
      return;
    }
  }
}

}  // namespace
}  // namespace mpf::shmem

using namespace mpf::shmem;

extern "C" {

void pshmem_set_lock(long* lock) {
  const char* call = "shmem_set_lock";
  std::uint64_t* word = lock_word(call, lock);
  if (held_here().contains(symmetric_ref_of(lock, sizeof(long)))) {
    fail(call, "this PE holds the lock already: it would wait for itself forever");
  }
  const std::uint64_t before = amo<Amo::add>(call, kLockPe, word, std::uint64_t{1});
  const std::uint32_t ticket = next_ticket(before);
  if (served(before) != ticket) {
    const mpf::symmetric::PeWait record =
        wait_record(mpf::symmetric::WaitWhat::lock, call, word, 1, SHMEM_CMP_EQ, std::uint64_t{ticket});
    wait_for(call, record, [&] { return served(amo<Amo::fetch>(call, kLockPe, word)) == ticket; });
  }
  note_held(symmetric_ref_of(lock, sizeof(long)), true);
  std::atomic_thread_fence(std::memory_order_acquire);
}
MPF_SHMEM_WEAK(set_lock)

int pshmem_test_lock(long* lock) {
  const char* call = "shmem_test_lock";
  std::uint64_t* word = lock_word(call, lock);
  const std::uint64_t now = amo<Amo::fetch>(call, kLockPe, word);
  if (served(now) != next_ticket(now)) return 1;  // held, or asked for
  // Free: take the next ticket if nobody took it first.
  const std::uint64_t taken = now + 1;
  if (amo<Amo::compare_swap>(call, kLockPe, word, taken, now) != now) return 1;
  note_held(symmetric_ref_of(lock, sizeof(long)), true);
  std::atomic_thread_fence(std::memory_order_acquire);
  return 0;
}
MPF_SHMEM_WEAK(test_lock)

void pshmem_clear_lock(long* lock) {
  const char* call = "shmem_clear_lock";
  std::uint64_t* word = lock_word(call, lock);
  const std::uint64_t ref = symmetric_ref_of(lock, sizeof(long));
  if (!held_here().contains(ref)) {
    fail(call, "this PE does not hold the lock: shmem_clear_lock must follow its shmem_set_lock or successful "
               "shmem_test_lock");
  }
  note_held(ref, false);
  std::atomic_thread_fence(std::memory_order_release);  // what was done under the lock, before it is passed on
  const std::uint64_t before = amo<Amo::add>(call, kLockPe, word, kServedOne);
  // Wake the PE whose ticket is served now, if it waits.
  const std::uint32_t ticket = served(before) + 1;
  for (std::uint32_t p = 0; p < g_state.npes; ++p) {
    mpf::symmetric::PeWait w;
    while (!g_state.layout.pe(p).wait.try_read(w)) {
    }
    if (w.what == mpf::symmetric::WaitWhat::lock && w.ref == ref && w.value == ticket) {
      wake(p);
      break;
    }
  }
}
MPF_SHMEM_WEAK(clear_lock)

}  // extern "C"
