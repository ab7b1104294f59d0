// Communicator attributes and their keyvals (MPI 3.1 §6.7), including the
// predefined MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL and
// MPI_UNIVERSE_SIZE.
#pragma once

#include <mpi.h>

namespace mpf::mpi {

// Keyvals below this are the predefined ones (MPI_TAG_UB .. MPI_APPNUM).
inline constexpr int kFirstUserKeyval = 16;

// MPI_Comm_dup: runs each attribute's copy callback from `from` to `to`.
// Returns MPI_SUCCESS or the failing callback's code.
int copy_attributes(MPI_Comm from, MPI_Comm to);
// MPI_Comm_free: runs each attribute's delete callback.
int delete_attributes(MPI_Comm comm);

}  // namespace mpf::mpi
