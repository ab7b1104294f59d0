// Accumulating into memory that other processes update at the same time
// (MPI_Accumulate and its kin on a window in node memory; OpenSHMEM's
// atomics): each element is updated atomically, as MPI's default
// accumulate_ordering asks of concurrent origins.
//
// An element of 1, 2, 4 or 8 bytes at an address aligned to its size is
// updated with a CPU atomic: an add, and, or, xor or exchange where the
// operation is one, else a compare-and-swap loop around the operation's
// kernel (coll::Combine). Any other element (a pair with padding, a long
// double or a double complex of 16 bytes, or one misaligned) is updated
// under the target's accumulate lock, a spin lock in shared memory. A
// location is always reached by the same rule (MPI's atomicity holds for
// accumulates of the same predefined type), so the two never mix on one
// element.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "coll/combine.hpp"

namespace mpf::rma {

// The accumulate lock of a target: taken for a whole operation where
// elements cannot be updated one atomic at a time (and around every
// accumulate to memory reached by Cross Memory Attach). Spins briefly,
// then yields: its holders only copy and combine.
class AccumulateLockGuard {
 public:
  explicit AccumulateLockGuard(std::atomic<std::uint32_t>& lock);
  ~AccumulateLockGuard() { lock_.store(0, std::memory_order_release); }
  AccumulateLockGuard(const AccumulateLockGuard&) = delete;
  AccumulateLockGuard& operator=(const AccumulateLockGuard&) = delete;

 private:
  std::atomic<std::uint32_t>& lock_;
};

// The (value, index) pairs of MINLOC and MAXLOC: always updated under the
// lock, whatever their size, since their padding may split them into
// pieces (MPI_DOUBLE_INT's 12 bytes in 16).
bool is_pair(coll::Element element);

// True when an element of `bytes` at `address` is updated with a CPU atomic.
inline bool cpu_atomic(const void* address, std::size_t bytes) {
  return (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) && reinterpret_cast<std::uintptr_t>(address) % bytes == 0;
}

// target[i] = origin[i] op target[i] for `count` packed elements of
// `combine`'s element type, each atomically; `result` (may be null) gets
// the values the target held before. `lock` is the target's accumulate
// lock, taken only for elements that need it.
void accumulate_atomically(std::byte* target, const std::byte* origin, std::byte* result, std::uint64_t count,
                           const coll::Combine& combine, std::atomic<std::uint32_t>& lock);

// The same without atomics, for memory the caller has locked (under the
// accumulate lock, or a copy of remote memory it writes back).
void accumulate_plainly(std::byte* target, const std::byte* origin, std::byte* result, std::uint64_t count,
                        const coll::Combine& combine);

// MPI_Compare_and_swap of one element of `bytes` (1, 2, 4 or 8): `result`
// gets the target's value, which becomes `origin` if it equalled `compare`.
void compare_and_swap(std::byte* target, const std::byte* compare, const std::byte* origin, std::byte* result,
                      std::size_t bytes, std::atomic<std::uint32_t>& lock);

}  // namespace mpf::rma
