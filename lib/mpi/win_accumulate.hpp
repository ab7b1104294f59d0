// An accumulate into memory this process holds the target's accumulate
// lock for (or alone updates): the target's data is packed, combined with
// the origin's and unpacked again, so it works for any layout, a pair type
// split by its padding (MPI_DOUBLE_INT) included. `old` (may be null) gets
// the values before.
#pragma once

#include <cstring>
#include <vector>

#include "coll/combine.hpp"
#include "mpi/datatype.hpp"
#include "rma/element_ops.hpp"

namespace mpf::mpi {

inline void accumulate_in_place(std::byte* base, const TypeInfo& type, std::uint64_t count, const std::byte* in,
                                std::byte* old, const coll::Combine& combine) {
  const std::uint64_t bytes = count * type.size;
  std::vector<std::byte> current(bytes);
  pack(type, base, count, current.data());
  if (old != nullptr) std::memcpy(old, current.data(), bytes);
  rma::accumulate_plainly(current.data(), in, nullptr, bytes / combine.element_bytes(), combine);
  unpack(type, current.data(), bytes, base);
}

}  // namespace mpf::mpi
