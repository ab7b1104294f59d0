// The symmetric heap's allocator (shmem_malloc and its kin): offsets in a
// heap of fixed capacity, first fit, freed neighbours merged.
//
// Every PE runs its own allocator over its own heap, and every PE makes
// the same calls in the same order (the standard makes them collective),
// so every PE gets the same offset for the same object: that is what makes
// an object symmetric. The allocator must therefore be deterministic: it
// depends on nothing but the calls (no addresses, no time).
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace mpf::symmetric {

class Allocator {
 public:
  // Blocks start at multiples of this at least (a cache line: two PEs'
  // counters in separate blocks never share one).
  static constexpr std::uint64_t kAlignment = 64;

  explicit Allocator(std::uint64_t capacity = 0);

  // The offset of a block of `bytes` (0 counts as 1) at a multiple of
  // `alignment` (a power of two; below kAlignment counts as kAlignment),
  // or nullopt when no free range holds it.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes, std::uint64_t alignment = kAlignment);
  // Frees the block at `offset`; false when no block starts there.
  bool release(std::uint64_t offset);
  // Makes the block at `offset` `bytes` long where it is, if the range
  // after it is free (or it shrinks); false, changing nothing, otherwise.
  bool resize_in_place(std::uint64_t offset, std::uint64_t bytes);
  // The bytes of the block at `offset` as allocated (rounded up), or 0 when
  // no block starts there.
  std::uint64_t size_of(std::uint64_t offset) const;

  std::uint64_t capacity() const { return capacity_; }
  std::uint64_t in_use() const { return in_use_; }
  std::uint64_t largest_free() const;

 private:
  void add_free(std::uint64_t offset, std::uint64_t bytes);  // merging with neighbours

  std::uint64_t capacity_;
  std::uint64_t in_use_ = 0;
  std::map<std::uint64_t, std::uint64_t> free_;  // offset -> bytes
  std::map<std::uint64_t, std::uint64_t> live_;  // offset -> bytes
};

}  // namespace mpf::symmetric
