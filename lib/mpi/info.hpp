// MPI_Info objects (info.cpp) as the other parts of the library see them.
#pragma once

#include <mpi.h>

namespace mpf::mpi {

// True for MPI_INFO_NULL and for info objects the program has not freed:
// what a call that takes hints may be given.
bool info_argument_is_valid(MPI_Info info);

}  // namespace mpf::mpi
