// Datatypes as the data path sees them. Today only the predefined types
// exist, and every message is `count` contiguous elements; derived datatypes
// (the breadth issue) plug in here, where a message's bytes are located.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

namespace mpf::mpi {

// Size in bytes of a predefined datatype, or nothing for an invalid handle.
std::optional<std::size_t> datatype_size(MPI_Datatype datatype);
// "MPI_INT", or "datatype 77".
std::string datatype_name(MPI_Datatype datatype);

}  // namespace mpf::mpi
