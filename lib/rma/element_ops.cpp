#include "rma/element_ops.hpp"

#include <sched.h>

#include <cstring>

namespace mpf::rma {
namespace {

using coll::Element;
using coll::Op;

bool is_integer(Element e) {
  switch (e) {
    case Element::character:
    case Element::wide_character:
    case Element::i8:
    case Element::u8:
    case Element::i16:
    case Element::u16:
    case Element::i32:
    case Element::u32:
    case Element::i64:
    case Element::u64: return true;
    default: return false;
  }
}

// One element of U's size updated with a CPU atomic; `old` gets its value before.
template <class U>
void update_one(std::byte* target, const std::byte* origin, std::byte* old, const coll::Combine& combine) {
  std::atomic_ref<U> word(*reinterpret_cast<U*>(target));
  U operand;
  std::memcpy(&operand, origin, sizeof(U));
  U before;
  const Op op = combine.op();
  const bool integer = is_integer(combine.element());
  if (op == Op::no_op) {
    before = word.load(std::memory_order_acquire);
  } else if (op == Op::replace) {
    before = word.exchange(operand, std::memory_order_acq_rel);
  } else if (integer && op == Op::sum) {
    before = word.fetch_add(operand, std::memory_order_acq_rel);
  } else if (integer && op == Op::band) {
    before = word.fetch_and(operand, std::memory_order_acq_rel);
  } else if (integer && op == Op::bor) {
    before = word.fetch_or(operand, std::memory_order_acq_rel);
  } else if (integer && op == Op::bxor) {
    before = word.fetch_xor(operand, std::memory_order_acq_rel);
  } else {
    before = word.load(std::memory_order_relaxed);
    U after;
    do {
      combine.apply_into(&operand, &before, &after, 1);
    } while (!word.compare_exchange_weak(before, after, std::memory_order_acq_rel, std::memory_order_relaxed));
  }
  if (old != nullptr) std::memcpy(old, &before, sizeof(U));
}

}  // namespace

bool is_pair(Element e) {
  switch (e) {
    case Element::float_int:
    case Element::double_int:
    case Element::long_int:
    case Element::int_int:
    case Element::short_int:
    case Element::long_double_int:
    case Element::float_float:
    case Element::double_double: return true;
    default: return false;
  }
}

AccumulateLockGuard::AccumulateLockGuard(std::atomic<std::uint32_t>& lock) : lock_(lock) {
  for (std::uint32_t spins = 0;; ++spins) {
    if (lock_.load(std::memory_order_relaxed) == 0 && lock_.exchange(1, std::memory_order_acquire) == 0) return;
    // With more ranks than CPUs the holder may be waiting for this CPU.
    if (spins >= 64) ::sched_yield();
  }
}

void accumulate_plainly(std::byte* target, const std::byte* origin, std::byte* result, std::uint64_t count,
                        const coll::Combine& combine) {
  const std::size_t bytes = combine.element_bytes() * count;
  if (result != nullptr) std::memcpy(result, target, bytes);
  // The kernels take int counts: large pieces go in parts.
  constexpr std::uint64_t kPart = 1u << 30;
  for (std::uint64_t done = 0; done < count;) {
    const std::uint64_t n = count - done < kPart ? count - done : kPart;
    const std::size_t at = done * combine.element_bytes();
    combine.apply_into(origin + at, target + at, target + at, static_cast<int>(n));
    done += n;
  }
}

void accumulate_atomically(std::byte* target, const std::byte* origin, std::byte* result, std::uint64_t count,
                           const coll::Combine& combine, std::atomic<std::uint32_t>& lock) {
  const std::size_t e = combine.element_bytes();
  if (!cpu_atomic(target, e)) {
    const AccumulateLockGuard guard(lock);
    accumulate_plainly(target, origin, result, count, combine);
    return;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    std::byte* old = result != nullptr ? result + i * e : nullptr;
    switch (e) {
      case 1: update_one<std::uint8_t>(target + i, origin + i, old, combine); break;
      case 2: update_one<std::uint16_t>(target + 2 * i, origin + 2 * i, old, combine); break;
      case 4: update_one<std::uint32_t>(target + 4 * i, origin + 4 * i, old, combine); break;
      default: update_one<std::uint64_t>(target + 8 * i, origin + 8 * i, old, combine); break;
    }
  }
}

namespace {

template <class U>
void swap_one(std::byte* target, const std::byte* compare, const std::byte* origin, std::byte* result) {
  std::atomic_ref<U> word(*reinterpret_cast<U*>(target));
  U expected, desired;
  std::memcpy(&expected, compare, sizeof(U));
  std::memcpy(&desired, origin, sizeof(U));
  word.compare_exchange_strong(expected, desired, std::memory_order_acq_rel, std::memory_order_acquire);
  std::memcpy(result, &expected, sizeof(U));  // the value found, whether or not it was replaced
}

}  // namespace

void compare_and_swap(std::byte* target, const std::byte* compare, const std::byte* origin, std::byte* result,
                      std::size_t bytes, std::atomic<std::uint32_t>& lock) {
  if (!cpu_atomic(target, bytes)) {
    const AccumulateLockGuard guard(lock);
    std::memcpy(result, target, bytes);
    if (std::memcmp(target, compare, bytes) == 0) std::memcpy(target, origin, bytes);
    return;
  }
  switch (bytes) {
    case 1: swap_one<std::uint8_t>(target, compare, origin, result); break;
    case 2: swap_one<std::uint16_t>(target, compare, origin, result); break;
    case 4: swap_one<std::uint32_t>(target, compare, origin, result); break;
    default: swap_one<std::uint64_t>(target, compare, origin, result); break;
  }
}

}  // namespace mpf::rma
