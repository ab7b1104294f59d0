// Temporary buffers for collective algorithms (a reduction's operands, a
// rank's reduced block), reused from call to call. A std::vector would
// zero its bytes every call, and a large one is mapped fresh and freed
// back to the kernel, so every call would fault its pages in again: at
// 256 KiB that was most of a single-copy MPI_Reduce's time. Several tasks
// may hold buffers at once (a nonblocking collective per communicator),
// so the pool keeps a few.
#pragma once

#include <cstddef>

#include "coll/block_pool.hpp"

namespace mpf::coll {

class Scratch {
 public:
  // At least `bytes` uninitialized bytes, valid until this object dies.
  explicit Scratch(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) data_ = Pool::take(bytes, &capacity_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    if (data_ != nullptr) Pool::give(data_, capacity_);
  }

  std::byte* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  using Pool = BlockPool<Scratch, 8, std::size_t{16} << 20>;

  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace mpf::coll
