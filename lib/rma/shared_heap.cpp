#include "rma/shared_heap.hpp"

#include <cstdlib>
#include <new>

#include "core/runtime.hpp"
#include "rma/node_addresses.hpp"

namespace mpf::rma {
namespace {

constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t to) { return (n + to - 1) / to * to; }

shm::NodeMemory new_piece(std::uint64_t bytes) {
  core::Runtime& rt = core::Runtime::instance();
  shm::NodeMemory piece = shm::NodeMemory::create(rt.segment(), rt.job().rank, "mpi.alloc_mem", bytes);
  remember(piece.data(), piece.bytes(), piece.id());
  return piece;
}

}  // namespace

void* SharedHeap::Pieces::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (bytes > kPoolLargest) {
    shm::NodeMemory piece = new_piece(round_up(bytes, 4096));
    std::byte* base = piece.data();
    own_.emplace(base, std::move(piece));
    return base;
  }
  std::uint64_t at = round_up(arena_used_, alignment);
  if (arenas_.empty() || at + bytes > arenas_.back().bytes()) {
    arenas_.push_back(new_piece(kArenaBytes));
    at = 0;
  }
  arena_used_ = at + bytes;
  return arenas_.back().data() + at;
}

// Arena space goes back only with the heap: the pool keeps the chunks it
// took and reuses their blocks (only blocks above kPoolLargest come here
// one by one, and those have pieces of their own).
void SharedHeap::Pieces::do_deallocate(void* p, std::size_t, std::size_t) {
  const auto it = own_.find(static_cast<std::byte*>(p));
  if (it == own_.end()) return;
  forget(it->first);
  own_.erase(it);
}

SharedHeap::SharedHeap() : pool_(std::pmr::pool_options{32, kPoolLargest}, &pieces_) {}

void* SharedHeap::allocate(std::uint64_t bytes) {
  // A size of 0 still gets a block of its own (a distinct pointer to free).
  const std::uint64_t size = bytes == 0 ? kAlignment : round_up(bytes, kAlignment);
  try {
    void* block = pool_.allocate(size, kAlignment);
    live_[block] = {size, true};
    return block;
  } catch (const shm::NodeMemoryError&) {
    // Out of node memory pieces: the process heap serves.
  } catch (const std::bad_alloc&) {
  }
  void* block = std::aligned_alloc(kAlignment, size);
  if (block != nullptr) live_[block] = {size, false};
  return block;
}

bool SharedHeap::deallocate(void* block) {
  const auto it = live_.find(block);
  if (it == live_.end()) return false;
  if (it->second.shared) {
    pool_.deallocate(block, it->second.bytes, kAlignment);
  } else {
    std::free(block);
  }
  live_.erase(it);
  return true;
}

SharedHeap& shared_heap() {
  // Never destroyed: MPI_Free_mem may come after static destructors would
  // have run, and the pieces go with the process anyway.
  static SharedHeap* heap = new SharedHeap;
  return *heap;
}

}  // namespace mpf::rma
