// How an MPI collective call runs its algorithm's task (coll/algorithms.hpp):
// to its end for a blocking call, or as a nonblocking request whose task
// joins the rank's collectives in flight (coll/pending.hpp).
#pragma once

#include <mpi.h>

#include <memory>

#include "coll/pending.hpp"
#include "coll/task.hpp"

namespace mpf::mpi {

using mpf::coll::CollectiveError;
using mpf::coll::finished;

// MPI_Barrier on `comm`, shown as `call` (MPI_Win_fence's barrier on its
// window's communicator).
int barrier_as(const char* call, MPI_Comm comm);

// Runs `op` to its end (request == nullptr: the blocking call, shown as
// `call` with its root) or starts it as the nonblocking request *request
// (`independent`: beside the queue, for operations that use no slot;
// `error`: where the operation leaves an error for the request's completion).
int launch(const char* call, MPI_Comm comm, int root, mpf::coll::Task op, MPI_Request* request,
           bool independent = false, std::shared_ptr<const CollectiveError> error = nullptr);

}  // namespace mpf::mpi
