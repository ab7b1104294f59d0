// Process groups (MPI_Group handles): ordered lists of world ranks.
// MPI_GROUP_EMPTY is predefined; groups are never shared between handles.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace mpf::mpi {

using Group = std::vector<std::uint32_t>;  // group rank -> world rank

// The group a handle names, or null for MPI_GROUP_NULL and bad handles.
const Group* find_group(MPI_Group group);
MPI_Group add_group(Group members);

}  // namespace mpf::mpi
