// Temporary buffers for collective algorithms (a reduction's operands, a
// rank's reduced block), reused from call to call. A std::vector would
// zero its bytes every call, and a large one is mapped fresh and freed
// back to the kernel, so every call would fault its pages in again: at
// 256 KiB that was most of a single-copy MPI_Reduce's time.
//
// Unlocked, like FrameCache (task.hpp): a rank's collectives run on one
// thread at a time (the MPI library provides at most
// MPI_THREAD_SERIALIZED). Several tasks may hold buffers at once (a
// nonblocking collective per communicator), so the cache keeps a few.
#pragma once

#include <cstddef>
#include <new>

namespace mpf::coll {

class Scratch {
 public:
  // At least `bytes` uninitialized bytes, valid until this object dies.
  explicit Scratch(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    // The smallest cached buffer that is large enough.
    Cache& c = cache();
    std::size_t best = c.count;
    for (std::size_t i = 0; i < c.count; ++i) {
      if (c.entry[i].capacity >= bytes && (best == c.count || c.entry[i].capacity < c.entry[best].capacity)) best = i;
    }
    if (best < c.count) {
      data_ = c.entry[best].data;
      capacity_ = c.entry[best].capacity;
      c.entry[best] = c.entry[--c.count];
      return;
    }
    capacity_ = bytes;
    data_ = static_cast<std::byte*>(::operator new(bytes));
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (data_ == nullptr) return;
    if (capacity_ > kLargest) {
      ::operator delete(data_);
      return;
    }
    Cache& c = cache();
    if (c.count == kEntries) {
      // Full: the smallest cached buffer makes room (or this one goes).
      std::size_t smallest = 0;
      for (std::size_t i = 1; i < c.count; ++i) {
        if (c.entry[i].capacity < c.entry[smallest].capacity) smallest = i;
      }
      if (c.entry[smallest].capacity >= capacity_) {
        ::operator delete(data_);
        return;
      }
      ::operator delete(c.entry[smallest].data);
      c.entry[smallest] = {data_, capacity_};
      return;
    }
    c.entry[c.count++] = {data_, capacity_};
  }

  std::byte* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  static constexpr std::size_t kEntries = 8;
  // Larger buffers go back at once: past this, holding them costs more
  // memory than faulting them in costs time.
  static constexpr std::size_t kLargest = std::size_t{16} << 20;
  struct Entry {
    std::byte* data = nullptr;
    std::size_t capacity = 0;
  };
  // Trivially destructible on purpose, as FrameCache's: buffers cached at
  // exit stay reachable until the process ends.
  struct Cache {
    Entry entry[kEntries] = {};
    std::size_t count = 0;
  };
  static Cache& cache() {
    static constinit Cache c;
    return c;
  }

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace mpf::coll
