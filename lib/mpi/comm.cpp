// The predefined communicators' rank and size. Communicator construction
// arrives with the breadth issue; these two handles exist from MPI_Init on.
#include <mpi.h>

#include "core/runtime.hpp"
#include "mpi/errors.hpp"

namespace {

using mpf::core::Runtime;

void require_initialized(const char* call) {
  const Runtime& rt = Runtime::instance();
  if (!rt.initialized()) mpf::mpi::fatal_error(call, MPI_ERR_OTHER, "called before MPI_Init");
  if (rt.finalized()) mpf::mpi::fatal_error(call, MPI_ERR_OTHER, "called after MPI_Finalize");
}

void require_comm(const char* call, MPI_Comm comm) {
  if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF) {
    mpf::mpi::fatal_error(call, MPI_ERR_COMM,
                          comm == MPI_COMM_NULL ? std::string("communicator is MPI_COMM_NULL")
                                                : "invalid communicator " + std::to_string(comm));
  }
}

}  // namespace

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  require_initialized("MPI_Comm_rank");
  require_comm("MPI_Comm_rank", comm);
  if (rank == nullptr) mpf::mpi::fatal_error("MPI_Comm_rank", MPI_ERR_ARG, "rank argument is NULL");
  *rank = comm == MPI_COMM_WORLD ? static_cast<int>(Runtime::instance().job().rank) : 0;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  require_initialized("MPI_Comm_size");
  require_comm("MPI_Comm_size", comm);
  if (size == nullptr) mpf::mpi::fatal_error("MPI_Comm_size", MPI_ERR_ARG, "size argument is NULL");
  *size = comm == MPI_COMM_WORLD ? static_cast<int>(Runtime::instance().job().size) : 1;
  return MPI_SUCCESS;
}

}  // extern "C"
