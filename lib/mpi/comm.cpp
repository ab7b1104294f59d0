// Rank and size of the predefined communicators.
#include <mpi.h>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

using namespace mpf::mpi;

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  require_initialized("MPI_Comm_rank");
  if (!comm_is_valid(comm)) return comm_error("MPI_Comm_rank", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (rank == nullptr) return comm_error("MPI_Comm_rank", comm, MPI_ERR_ARG, "rank argument is NULL");
  *rank = comm_rank(comm);
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  require_initialized("MPI_Comm_size");
  if (!comm_is_valid(comm)) return comm_error("MPI_Comm_size", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (size == nullptr) return comm_error("MPI_Comm_size", comm, MPI_ERR_ARG, "size argument is NULL");
  *size = comm_size(comm);
  return MPI_SUCCESS;
}

}  // extern "C"
