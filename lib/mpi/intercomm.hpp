// Intercommunicators (MPI 3.1 §6.6): two disjoint groups that talk to each
// other. A rank's Communicator holds its own group (`world`, `rank`) and the
// remote one (`remote`); both groups share one context id, agreed among
// all their members like any other (context_ids.hpp), so point-to-point
// needs nothing but the remote group's ranks (comm.hpp's to_world and
// from_world). Their collectives are block exchanges with the remote group
// (intercomm_coll.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi/group.hpp"

namespace mpf::mpi {

// A new intercommunicator from intercommunicator `parent` (MPI_Comm_dup,
// _split, _create), collective over both its groups: `local` and `remote`
// are the new groups as this rank sees them; *out is MPI_COMM_NULL when
// this rank is not in `local` or either group is empty.
int create_inter_from(const char* call, MPI_Comm parent, const std::vector<std::uint32_t>& local,
                      const std::vector<std::uint32_t>& remote, MPI_Comm* out);
// MPI_Comm_split of an intercommunicator: each group splits by color, and
// the parts of the same color on both sides make a new intercommunicator.
int split_inter(const char* call, MPI_Comm comm, int color, int key, MPI_Comm* out);
// MPI_Comm_create of an intercommunicator: `group` is a subset of this
// side's group, and the other side passes a subset of its own.
int create_inter_subset(const char* call, MPI_Comm comm, const Group& group, MPI_Comm* out);

// The collectives on an intercommunicator (MPI 3.1 §5.2.2), called by the
// collective chapter's entry points (collectives.cpp) once they see one;
// the arguments are the entry points' own (request == nullptr: blocking).
// Scan and Exscan are not defined on intercommunicators.
namespace inter {
int barrier(const char* call, MPI_Comm comm, MPI_Request* request);
int bcast(const char* call, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          MPI_Request* request);
// Gather and (recvcounts != nullptr) Gatherv.
int gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
           MPI_Request* request);
// Scatter and (sendcounts != nullptr) Scatterv.
int scatter(const char* call, const void* sendbuf, int sendcount, const int* sendcounts, const int* displs,
            MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            MPI_Request* request);
// Allgather and (recvcounts != nullptr) Allgatherv.
int allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request* request);
// Alltoall and (sendcounts != nullptr) Alltoallv.
int alltoall(const char* call, const void* sendbuf, int sendcount, const int* sendcounts, const int* sdispls,
             MPI_Datatype sendtype, void* recvbuf, int recvcount, const int* recvcounts, const int* rdispls,
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
int alltoallw(const char* call, const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request);
int reduce(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
           MPI_Comm comm, MPI_Request* request);
int allreduce(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request);
// Reduce_scatter_block and (recvcounts != nullptr) Reduce_scatter.
int reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, int recvcount, const int* recvcounts,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request);
}  // namespace inter

}  // namespace mpf::mpi
