// The names of collective operations (shm::CollKind): the word the JSON
// gives each ("bcast") and the MPI call a person knows it by. One table,
// so the reader of the segment and the analysis of its JSON agree.
#pragma once

#include <string>

#include "shm/introspection.hpp"

namespace mpf::inspect {

struct CollectiveName {
  shm::CollKind kind;
  const char* operation;  // in the JSON
  const char* blocking;   // the MPI call, as a person names it
  const char* nonblocking;
};

inline constexpr CollectiveName kCollectiveNames[] = {
    {shm::CollKind::barrier, "barrier", "MPI_Barrier", "MPI_Ibarrier"},
    {shm::CollKind::bcast, "bcast", "MPI_Bcast", "MPI_Ibcast"},
    {shm::CollKind::reduce, "reduce", "MPI_Reduce", "MPI_Ireduce"},
    {shm::CollKind::allreduce, "allreduce", "MPI_Allreduce", "MPI_Iallreduce"},
    {shm::CollKind::reduce_scatter, "reduce_scatter", "MPI_Reduce_scatter", "MPI_Ireduce_scatter"},
    {shm::CollKind::reduce_scatter_block, "reduce_scatter_block", "MPI_Reduce_scatter_block",
     "MPI_Ireduce_scatter_block"},
    {shm::CollKind::scan, "scan", "MPI_Scan", "MPI_Iscan"},
    {shm::CollKind::exscan, "exscan", "MPI_Exscan", "MPI_Iexscan"},
    {shm::CollKind::gather, "gather", "MPI_Gather", "MPI_Igather"},
    {shm::CollKind::gatherv, "gatherv", "MPI_Gatherv", "MPI_Igatherv"},
    {shm::CollKind::scatter, "scatter", "MPI_Scatter", "MPI_Iscatter"},
    {shm::CollKind::scatterv, "scatterv", "MPI_Scatterv", "MPI_Iscatterv"},
    {shm::CollKind::allgather, "allgather", "MPI_Allgather", "MPI_Iallgather"},
    {shm::CollKind::allgatherv, "allgatherv", "MPI_Allgatherv", "MPI_Iallgatherv"},
    {shm::CollKind::alltoall, "alltoall", "MPI_Alltoall", "MPI_Ialltoall"},
    {shm::CollKind::alltoallv, "alltoallv", "MPI_Alltoallv", "MPI_Ialltoallv"},
    {shm::CollKind::alltoallw, "alltoallw", "MPI_Alltoallw", "MPI_Ialltoallw"},
    {shm::CollKind::neighbor_allgather, "neighbor_allgather", "MPI_Neighbor_allgather", "MPI_Ineighbor_allgather"},
    {shm::CollKind::neighbor_allgatherv, "neighbor_allgatherv", "MPI_Neighbor_allgatherv", "MPI_Ineighbor_allgatherv"},
    {shm::CollKind::neighbor_alltoall, "neighbor_alltoall", "MPI_Neighbor_alltoall", "MPI_Ineighbor_alltoall"},
    {shm::CollKind::neighbor_alltoallv, "neighbor_alltoallv", "MPI_Neighbor_alltoallv", "MPI_Ineighbor_alltoallv"},
    {shm::CollKind::neighbor_alltoallw, "neighbor_alltoallw", "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw"},
    {shm::CollKind::comm_create, "comm_create", "a communicator constructor (MPI_Comm_dup, _split, _create...)",
     "MPI_Comm_idup"},
    {shm::CollKind::intercomm_create, "intercomm_create", "MPI_Intercomm_create or MPI_Intercomm_merge",
     "MPI_Intercomm_create or MPI_Intercomm_merge"},
};

inline const CollectiveName* find_collective(shm::CollKind kind) {
  for (const CollectiveName& n : kCollectiveNames) {
    if (n.kind == kind) return &n;
  }
  return nullptr;
}

inline const CollectiveName* find_collective(const std::string& operation) {
  for (const CollectiveName& n : kCollectiveNames) {
    if (operation == n.operation) return &n;
  }
  return nullptr;
}

// "bcast"; "none" for none, the number for a kind this build does not know.
inline std::string collective_name(shm::CollKind kind) {
  if (kind == shm::CollKind::none) return "none";
  const CollectiveName* n = find_collective(kind);
  return n != nullptr ? n->operation : std::to_string(static_cast<int>(kind));
}

}  // namespace mpf::inspect
