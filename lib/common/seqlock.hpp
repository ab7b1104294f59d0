// A single-writer sequence lock over a trivially copyable value that other
// processes read without stopping the writer (SPEC §2 Introspection).
//
// Algorithm: the classic seqlock (Lameter; Boehm, "Can seqlocks get along
// with programming language memory models?", 2012): the writer makes the
// sequence odd, writes, makes it even again; a reader copies the value and
// keeps the copy only if the sequence was the same even number before and
// after. Writing costs two stores and two fences, no system call.
//
//   Seqlock<Snapshot> s;                       // in shared memory, zeroed
//   s.write([](Snapshot& v) { v.x = 1; });     // the one writer
//   Snapshot copy;
//   if (s.try_read(copy)) use(copy);           // any reader; retry if false
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace mpf::common {

template <class T>
struct Seqlock {
  static_assert(std::is_trivially_copyable_v<T>);

  std::atomic<std::uint32_t> sequence;
  T value;

  template <class Update>
  void write(Update&& update) {
    const std::uint32_t s = sequence.load(std::memory_order_relaxed);
    sequence.store(s + 1, std::memory_order_relaxed);
    // Release fence: readers that see any of the new data also see the odd sequence.
    std::atomic_thread_fence(std::memory_order_release);
    update(value);
    // Release: the data is written before the sequence is even again.
    sequence.store(s + 2, std::memory_order_release);
  }

  // A consistent copy, or false when the writer was busy (try again).
  bool try_read(T& out) const {
    const std::uint32_t before = sequence.load(std::memory_order_acquire);
    if (before % 2 != 0) return false;
    std::memcpy(&out, const_cast<const T*>(&value), sizeof(T));
    // Acquire fence: the copy is complete before the sequence is read again.
    std::atomic_thread_fence(std::memory_order_acquire);
    return sequence.load(std::memory_order_relaxed) == before;
  }
};

}  // namespace mpf::common
