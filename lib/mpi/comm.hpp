// The predefined communicators and how their ranks map onto MPI_COMM_WORLD
// and onto the engine's matching contexts. Communicator construction (the
// breadth issue) replaces these few functions with a table.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "core/runtime.hpp"

namespace mpf::mpi {

inline bool comm_is_valid(MPI_Comm comm) { return comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF; }

inline std::string describe_bad_comm(MPI_Comm comm) {
  return comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL" : "invalid communicator " + std::to_string(comm);
}

inline int comm_size(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? static_cast<int>(core::Runtime::instance().job().size) : 1;
}

inline int comm_rank(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD ? static_cast<int>(core::Runtime::instance().job().rank) : 0;
}

// The engine's matching context of each communicator: point-to-point on one
// communicator never matches another's.
inline std::uint32_t comm_context(MPI_Comm comm) { return comm == MPI_COMM_WORLD ? 0 : 1; }

// A rank of `comm` (or MPI_ANY_SOURCE) as a world rank, and back.
inline std::int32_t to_world(MPI_Comm comm, int rank) {
  if (rank == MPI_ANY_SOURCE) return -1;
  return comm == MPI_COMM_WORLD ? rank : static_cast<std::int32_t>(core::Runtime::instance().job().rank);
}
inline int from_world(MPI_Comm comm, std::int32_t world) { return comm == MPI_COMM_WORLD ? world : 0; }

}  // namespace mpf::mpi
