// Atomic memory operations on a PE's copy of a symmetric object, for the
// atomics, signals and locks. In a heap, a CPU atomic on the node's shared
// memory. On a global or static variable, which other PEs reach by Cross
// Memory Attach (no atomics there), a read-modify-write under the target
// PE's lock of its static data, which every atomic on that data takes,
// the target's own included: atomics are atomic with respect to other
// atomics, as the standard asks, and an object is always reached the same
// way.
#pragma once

#include <atomic>
#include <cstring>

#include "rma/element_ops.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {

enum class Amo { fetch, set, swap, compare_swap, add, fetch_and, fetch_or, fetch_xor };

template <Amo op>
inline std::atomic<std::uint64_t>& amo_counter() {
  shm::RankCounters& c = counters();
  if constexpr (op == Amo::fetch) return c.shmem_amo_fetch;
  if constexpr (op == Amo::set) return c.shmem_amo_set;
  if constexpr (op == Amo::swap) return c.shmem_amo_swap;
  if constexpr (op == Amo::compare_swap) return c.shmem_amo_compare_swap;
  if constexpr (op == Amo::add) return c.shmem_amo_add;
  if constexpr (op == Amo::fetch_and || op == Amo::fetch_or || op == Amo::fetch_xor) return c.shmem_amo_bitwise;
}

// The value `op` leaves where `old` was.
template <Amo op, class T>
inline T amo_result(T old, T value, T cond) {
  if constexpr (op == Amo::fetch) return old;
  if constexpr (op == Amo::set || op == Amo::swap) return value;
  if constexpr (op == Amo::compare_swap) return old == cond ? value : old;
  if constexpr (op == Amo::add) return static_cast<T>(old + value);
  if constexpr (op == Amo::fetch_and) return static_cast<T>(old & value);
  if constexpr (op == Amo::fetch_or) return static_cast<T>(old | value);
  if constexpr (op == Amo::fetch_xor) return static_cast<T>(old ^ value);
}

[[noreturn]] void fail_misaligned(const char* call, const void* address, std::size_t bytes);

// A global or static variable's copy on PE `pe`, under its static-data lock.
template <Amo op, class T>
T amo_static(const char* call, std::uint32_t pe, T* dest, T value, T cond) {
  const Place place = locate(call, dest, sizeof(T), pe, "the destination");
  T old;
  {
    const rma::AccumulateLockGuard guard(g_state.layout.pe(pe).static_lock);
    if (place.direct != nullptr) {
      std::memcpy(&old, place.direct, sizeof(T));
    } else {
      cma(call, pe, false, &old, place.remote, sizeof(T));
    }
    if constexpr (op != Amo::fetch) {
      const T next = amo_result<op>(old, value, cond);
      if (place.direct != nullptr) {
        std::memcpy(place.direct, &next, sizeof(T));
      } else {
        cma(call, pe, true, const_cast<T*>(&next), place.remote, sizeof(T));
      }
    }
  }
  if constexpr (op != Amo::fetch) {
    if (pe != g_state.me) wake(pe);
  }
  return old;
}

// `op` on PE pe's copy of *dest with `value` (and `cond`, compare_swap's
// comparand); returns the value before.
template <Amo op, class T>
inline T amo(const char* call, std::uint32_t pe, T* dest, T value = T{}, T cond = T{}) {
  count(amo_counter<op>());
  if (reinterpret_cast<std::uintptr_t>(dest) % sizeof(T) != 0) [[unlikely]]
    fail_misaligned(call, dest, sizeof(T));
  std::byte* copy = heap_copy(dest, sizeof(T), pe);
  if (copy == nullptr) [[unlikely]]
    return amo_static<op>(call, pe, dest, value, cond);
  std::atomic_ref<T> word(*reinterpret_cast<T*>(copy));
  T old;
  if constexpr (op == Amo::fetch) {
    return word.load(std::memory_order_acquire);
  } else if constexpr (op == Amo::set || op == Amo::swap) {
    old = word.exchange(value);
  } else if constexpr (op == Amo::compare_swap) {
    old = cond;
    word.compare_exchange_strong(old, value);
  } else if constexpr (op == Amo::add) {
    old = word.fetch_add(value);
  } else if constexpr (op == Amo::fetch_and) {
    old = word.fetch_and(value);
  } else if constexpr (op == Amo::fetch_or) {
    old = word.fetch_or(value);
  } else {
    old = word.fetch_xor(value);
  }
  // Each of these is a locked instruction, a full fence.
  if (pe != g_state.me) wake_after_fence(pe);
  return old;
}

}  // namespace mpf::shmem
