// Sleeping on a 32-bit word in shared memory until another process changes
// it (Linux futex). Shared-memory futexes must not use FUTEX_PRIVATE_FLAG:
// the word is reached through different mappings in different processes.
//
//   std::atomic<std::uint32_t>& word = control.doorbell;
//   const std::uint32_t seen = word.load();
//   if (!ready()) futex_wait(word, seen);  // returns when word != seen (or spuriously)
//   ...                                    // in the waker:
//   word.fetch_add(1); futex_wake(word);
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <ctime>
#include <cstdint>

namespace mpf::common {

// Sleeps while `word` still holds `expected`. Spurious returns happen (signals,
// races); callers re-check their condition.
inline void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, nullptr, nullptr, 0);
}

// The same, for at most `timeout_ns` nanoseconds: false when the time ran out.
inline bool futex_wait_for(std::atomic<std::uint32_t>& word, std::uint32_t expected, std::uint64_t timeout_ns) {
  const timespec timeout{static_cast<time_t>(timeout_ns / 1000000000), static_cast<long>(timeout_ns % 1000000000)};
  const long woke =
      ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &timeout, nullptr, 0);
  return woke == 0 || errno != ETIMEDOUT;
}

// Wakes up to `count` processes sleeping on `word`.
inline void futex_wake(std::atomic<std::uint32_t>& word, int count = INT_MAX) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, count, nullptr, nullptr, 0);
}

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "a futex word must be a plain lock-free 32-bit atomic");

}  // namespace mpf::common
