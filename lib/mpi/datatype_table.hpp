// The datatype table behind MPI_Datatype handles: for the constructors
// (datatype_constructors.cpp) and the lookups (datatype.cpp) only.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "mpi/datatype.hpp"

namespace mpf::mpi {

// Handles below this are the predefined types; derived ones follow.
inline constexpr MPI_Datatype kFirstDerivedType = 64;

// type_table() (datatype.hpp): index = handle; null entries are free or unused.

}  // namespace mpf::mpi
