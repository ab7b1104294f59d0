// A few freed memory blocks kept for reuse, so that a collective called in
// a loop allocates nothing after its first call: coroutine frames
// (task.hpp) and scratch buffers (scratch.hpp) each have a pool.
//
// Unlocked: a rank's collectives run on one thread at a time (the MPI
// library provides at most MPI_THREAD_SERIALIZED).
#pragma once

#include <cstddef>
#include <new>

namespace mpf::coll {

// kEntries blocks at most, none larger than kLargest bytes (larger ones
// go back at once: holding them would cost more memory than allocating
// them costs time). Tag tells pools with the same sizes apart.
template <class Tag, std::size_t kEntries, std::size_t kLargest>
class BlockPool {
 public:
  // The smallest cached block of at least `bytes`, or a new one of
  // exactly `bytes`; its size in *capacity.
  static std::byte* take(std::size_t bytes, std::size_t* capacity) {
    Cache& c = cache();
    std::size_t best = c.count;
    for (std::size_t i = 0; i < c.count; ++i) {
      if (c.entry[i].capacity >= bytes && (best == c.count || c.entry[i].capacity < c.entry[best].capacity)) best = i;
    }
    if (best < c.count) {
      std::byte* block = c.entry[best].block;
      *capacity = c.entry[best].capacity;
      c.entry[best] = c.entry[--c.count];
      return block;
    }
    *capacity = bytes;
    return static_cast<std::byte*>(::operator new(bytes));
  }

  // Takes back a block from take() (capacity: what take() said).
  static void give(std::byte* block, std::size_t capacity) {
    if (capacity > kLargest) {
      ::operator delete(block);
      return;
    }
    Cache& c = cache();
    if (c.count < kEntries) {
      c.entry[c.count++] = {block, capacity};
      return;
    }
    // Full: the smallest block goes, this one or a cached one.
    std::size_t smallest = 0;
    for (std::size_t i = 1; i < c.count; ++i) {
      if (c.entry[i].capacity < c.entry[smallest].capacity) smallest = i;
    }
    if (c.entry[smallest].capacity >= capacity) {
      ::operator delete(block);
      return;
    }
    ::operator delete(c.entry[smallest].block);
    c.entry[smallest] = {block, capacity};
  }

 private:
  struct Entry {
    std::byte* block;
    std::size_t capacity;
  };
  // Trivially destructible on purpose: tasks may still be destroyed during
  // exit (requests never completed), after a destructor would have run.
  // The cached blocks stay reachable until the process ends.
  struct Cache {
    Entry entry[kEntries] = {};
    std::size_t count = 0;
  };
  static Cache& cache() {
    static constinit Cache c;
    return c;
  }
};

}  // namespace mpf::coll
