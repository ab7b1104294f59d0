// MPI_Alloc_mem and MPI_Free_mem (MPI-3.1 §8.2). The memory is node memory
// (rma/shared_heap.hpp), aligned to a cache line: other ranks of the node
// can map it, so a window created over it is reached with loads and stores
// (seed 001's "global shared memory"). The heap remembers what it handed
// out, so that MPI_Free_mem of anything else is an error that says so
// rather than a corrupted heap.
#include <mpi.h>

#include <string>

#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "rma/shared_heap.hpp"

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
  void* memory = mpf::rma::shared_heap().allocate(static_cast<std::uint64_t>(size));
  if (memory == nullptr) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_NO_MEM,
                                "cannot allocate " + std::to_string(size) + " bytes");
  }
  *static_cast<void**>(baseptr) = memory;
  return MPI_SUCCESS;
}

int PMPI_Free_mem(void* base) {
  const char* call = "MPI_Free_mem";
  mpf::mpi::require_initialized(call);
  if (!mpf::rma::shared_heap().deallocate(base)) {
    return mpf::mpi::comm_error(call, MPI_COMM_WORLD, MPI_ERR_BASE,
                                "the address was not returned by MPI_Alloc_mem, or was freed already");
  }
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem
#pragma weak MPI_Free_mem = PMPI_Free_mem

}  // extern "C"
