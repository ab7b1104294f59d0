// MPI_Alloc_mem's memory: node memory (shm::NodeMemory), so that a window
// created over it is reached by its origins with loads and stores, as fast
// as one MPI_Win_allocate made (seed 001: memory from the allocator goes
// where every process of the node reaches it).
//
// Blocks of up to kPoolLargest come from a std::pmr pool over arenas of
// node memory (a piece of the node's directory serves many of them); a
// larger block gets a piece of its own, returned when it is freed.
// Where node memory cannot be had (the directory is full), the block comes
// from the process heap: it still works, through Cross Memory Attach.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <unordered_map>
#include <vector>

#include "shm/node_memory.hpp"

namespace mpf::rma {

class SharedHeap {
 public:
  static constexpr std::uint64_t kArenaBytes = 64u << 20;  // virtual: pages are taken when touched
  static constexpr std::uint64_t kPoolLargest = 1u << 20;
  static constexpr std::size_t kAlignment = 64;

  SharedHeap();
  SharedHeap(const SharedHeap&) = delete;
  SharedHeap& operator=(const SharedHeap&) = delete;

  // `bytes` (may be 0: a distinct block) aligned to kAlignment, or null
  // when not even the process heap has them.
  void* allocate(std::uint64_t bytes);
  // False when `block` is no live block of this heap.
  bool deallocate(void* block);

 private:
  // The pool's upstream: bump allocation in arenas, and pieces of their
  // own for large requests.
  class Pieces : public std::pmr::memory_resource {
   private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override;
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    std::vector<shm::NodeMemory> arenas_;
    std::uint64_t arena_used_ = 0;  // of the last arena
    std::map<std::byte*, shm::NodeMemory> own_;
  };
  struct Block {
    std::uint64_t bytes;
    bool shared;  // from the pool (else the process heap)
  };

  Pieces pieces_;
  std::pmr::unsynchronized_pool_resource pool_;
  std::unordered_map<void*, Block> live_;
};

// The process's heap (MPI_Alloc_mem, MPI_Free_mem).
SharedHeap& shared_heap();

}  // namespace mpf::rma
