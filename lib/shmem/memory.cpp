// Symmetric memory: shmem_malloc and its kin. Every PE makes the same
// allocations in the same order, and each allocator (symmetric/
// allocator.hpp) is deterministic, so an object has the same offset in
// every PE's heap. Each call is collective: allocations end with a barrier
// (the memory exists everywhere before anyone writes to it), frees begin
// with one (nobody still writes to it). At that barrier each PE checks its
// request against PE 0's: a program whose PEs ask for different sizes is
// told so instead of corrupting its heaps.
#include <shmem.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "common/tunables.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {
namespace {

// Freed blocks of at least this many bytes give their pages back.
constexpr std::uint64_t kReturnPagesFrom = 1u << 20;

// "256 MiB": in the largest unit that says it exactly.
std::string size_text(std::uint64_t bytes) {
  for (const auto& [shift, unit] : {std::pair{40, " TiB"}, {30, " GiB"}, {20, " MiB"}, {10, " KiB"}}) {
    const std::uint64_t one = std::uint64_t{1} << shift;
    if (bytes >= one && bytes % one == 0) return std::to_string(bytes >> shift) + unit;
  }
  return std::to_string(bytes) + " bytes";
}

// This PE's request, published for the barrier's check.
void publish_request(std::uint64_t bytes, std::uint64_t alignment) {
  State& s = g_state;
  const std::uint64_t seq = ++s.allocations;
  symmetric::AllocationRequest& r = s.layout.pe(s.me).requests[seq % 2];
  r.bytes.store(bytes, std::memory_order_relaxed);
  r.alignment.store(alignment, std::memory_order_relaxed);
  r.sequence.store(seq, std::memory_order_release);
}

// After the barrier: every PE asked for what PE 0 asked for.
void check_request(const char* call, std::uint64_t bytes, std::uint64_t alignment) {
  const State& s = g_state;
  if (s.me == 0) return;
  const symmetric::AllocationRequest& r = s.layout.pe(0).requests[s.allocations % 2];
  if (r.sequence.load(std::memory_order_acquire) != s.allocations) return;  // PE 0 is past it: it agreed before
  const std::uint64_t b = r.bytes.load(std::memory_order_relaxed);
  const std::uint64_t a = r.alignment.load(std::memory_order_relaxed);
  if (b != bytes || a != alignment) {
    fail(call, "this PE asked for " + std::to_string(bytes) + " bytes (alignment " + std::to_string(alignment) +
                   ") and PE 0 for " + std::to_string(b) + " bytes (alignment " + std::to_string(a) +
                   "): every PE must make the same symmetric allocations in the same order");
  }
}

void barrier(const char* call) { team_barrier(call, mpf_shmem_team_world); }

void* allocate(const char* call, std::uint64_t bytes, std::uint64_t alignment) {
  require_initialized(call);
  State& s = g_state;
  publish_request(bytes, alignment);
  const std::optional<std::uint64_t> offset = s.allocator.allocate(bytes, alignment);
  if (!offset && s.me == 0) {
    warn(call, "a block of " + size_text(bytes) + " does not fit in the symmetric heap: it has " +
                   size_text(s.heap_bytes) + " per PE, " + size_text(s.allocator.in_use()) +
                   " in use, the largest free block " + size_text(s.allocator.largest_free()) +
                   "; set SHMEM_SYMMETRIC_SIZE (the tunable shmem_symmetric_size) to raise it");
  }
  barrier(call);
  check_request(call, bytes, alignment);
  return offset ? s.my_heap + *offset : nullptr;
}

// The offset of a block of the heap, checked.
std::uint64_t block_of(const char* call, void* ptr) {
  const State& s = g_state;
  const std::uint64_t offset = static_cast<std::byte*>(ptr) - s.my_heap;
  if (heap_copy(ptr, 1, s.me) == nullptr || s.allocator.size_of(offset) == 0) {
    fail(call, "the pointer is not a block shmem_malloc (or its kin) returned, or it was freed");
  }
  return offset;
}

void release(std::uint64_t offset) {
  State& s = g_state;
  const std::uint64_t bytes = s.allocator.size_of(offset);
  s.allocator.release(offset);
  // Pages of a large block go back to the system (they come back zeroed
  // when touched again).
  if (bytes >= kReturnPagesFrom) {
    const std::uint64_t page = 4096;
    const std::uint64_t first = (offset + page - 1) / page * page;
    const std::uint64_t last = (offset + bytes) / page * page;
    if (last > first) ::madvise(s.my_heap + first, last - first, MADV_REMOVE);
  }
}

}  // namespace
}  // namespace mpf::shmem

using namespace mpf::shmem;

extern "C" {

void* pshmem_malloc(size_t size) {
  if (size == 0) return nullptr;
  return allocate("shmem_malloc", size, mpf::symmetric::Allocator::kAlignment);
}
MPF_SHMEM_WEAK(malloc)

void* pshmem_malloc_with_hints(size_t size, long) {
  if (size == 0) return nullptr;
  return allocate("shmem_malloc_with_hints", size, mpf::symmetric::Allocator::kAlignment);
}
MPF_SHMEM_WEAK(malloc_with_hints)

void* pshmem_calloc(size_t count, size_t size) {
  const char* call = "shmem_calloc";
  if (count == 0 || size == 0) return nullptr;
  if (count > SIZE_MAX / size) {
    require_initialized(call);
    warn(call, std::to_string(count) + " elements of " + std::to_string(size) + " bytes overflow a size_t");
    return nullptr;
  }
  void* block = allocate(call, count * size, mpf::symmetric::Allocator::kAlignment);
  // Each PE zeroes its own copy; the block may have been used before.
  if (block != nullptr) std::memset(block, 0, count * size);
  // Zeroed everywhere before anyone writes to it.
  if (block != nullptr) barrier(call);
  return block;
}
MPF_SHMEM_WEAK(calloc)

void* pshmem_align(size_t alignment, size_t size) {
  const char* call = "shmem_align";
  if (size == 0) return nullptr;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
    require_initialized(call);
    warn(call, "alignment " + std::to_string(alignment) + " is not a power of two");
    return nullptr;
  }
  return allocate(call, size, alignment);
}
MPF_SHMEM_WEAK(align)

void pshmem_free(void* ptr) {
  const char* call = "shmem_free";
  require_initialized(call);
  if (ptr == nullptr) return;
  const std::uint64_t offset = block_of(call, ptr);
  barrier(call);
  release(offset);
}
MPF_SHMEM_WEAK(free)

void* pshmem_realloc(void* ptr, size_t size) {
  const char* call = "shmem_realloc";
  if (ptr == nullptr) return shmem_malloc(size);
  if (size == 0) {
    shmem_free(ptr);
    return nullptr;
  }
  require_initialized(call);
  State& s = g_state;
  const std::uint64_t offset = block_of(call, ptr);
  barrier(call);  // nobody still writes to the block as it moves
  publish_request(size, mpf::symmetric::Allocator::kAlignment);
  void* moved = ptr;
  if (!s.allocator.resize_in_place(offset, size)) {
    const std::uint64_t old_bytes = s.allocator.size_of(offset);
    const std::optional<std::uint64_t> to = s.allocator.allocate(size);
    if (!to) {
      if (s.me == 0) {
        warn(call, "a block of " + size_text(size) + " does not fit in the symmetric heap of " +
                       size_text(s.heap_bytes) +
                       " per PE; set SHMEM_SYMMETRIC_SIZE (the tunable shmem_symmetric_size) to raise it");
      }
      moved = nullptr;  // the block stays as it was
    } else {
      std::memcpy(s.my_heap + *to, ptr, std::min<std::uint64_t>(old_bytes, size));
      release(offset);
      moved = s.my_heap + *to;
    }
  }
  barrier(call);
  check_request(call, size, mpf::symmetric::Allocator::kAlignment);
  return moved;
}
MPF_SHMEM_WEAK(realloc)

}  // extern "C"
