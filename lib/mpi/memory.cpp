// MPI_Alloc_mem and MPI_Free_mem (MPI-3.1 §8.2). Memory comes from the
// process's heap, aligned to a cache line; the library remembers what it
// handed out, so that MPI_Free_mem of anything else is an error that says
// so rather than a corrupted heap. (When one-sided communication lands,
// this is where memory other ranks of the node can reach will come from.)
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <unordered_set>

#include "mpi/errors.hpp"
#include "mpi/info.hpp"

namespace {

constexpr std::size_t kAlignment = 64;

std::unordered_set<void*>& allocations() {
  static std::unordered_set<void*> live;
  return live;
}

}  // namespace

extern "C" {

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  const char* call = "MPI_Alloc_mem";
  mpf::mpi::require_initialized(call);
  if (size < 0) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_SIZE, "negative size " + std::to_string(size));
  }
  if (!mpf::mpi::info_argument_is_valid(info)) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_INFO, "invalid info object " + std::to_string(info));
  }
  if (baseptr == nullptr) return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "baseptr is NULL");
  // aligned_alloc wants a multiple of the alignment, and a size of 0 still
  // gets memory of its own (a distinct pointer to free later).
  const std::size_t bytes = (static_cast<std::size_t>(size) + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes);
  if (memory == nullptr) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_NO_MEM,
                                "cannot allocate " + std::to_string(size) + " bytes");
  }
  allocations().insert(memory);
  *static_cast<void**>(baseptr) = memory;
  return MPI_SUCCESS;
}

int PMPI_Free_mem(void* base) {
  const char* call = "MPI_Free_mem";
  mpf::mpi::require_initialized(call);
  if (allocations().erase(base) == 0) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_BASE,
                                "the address was not returned by MPI_Alloc_mem, or was freed already");
  }
  std::free(base);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
#pragma weak MPI_Free_mem = PMPI_Free_mem

}  // extern "C"
