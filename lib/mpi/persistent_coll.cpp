// Persistent collectives (MPI-4.0 §6.13): MPI_Bcast_init and its kin bind a
// collective's arguments to a request once; each MPI_Start starts the
// matching nonblocking collective (whose algorithm is the blocking call's),
// and MPI_Wait/MPI_Test complete it and leave the request inactive for the
// next MPI_Start. The arguments are checked, at every rank, when the
// operation starts: a bad one is reported by MPI_Start.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

int bind_persistent_collective(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request,
                               std::function<int(MPI_Request*)> start) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (!info_argument_is_valid(info)) {
    return comm_error(call, comm, MPI_ERR_INFO, "invalid info object " + std::to_string(info));
  }
  if (request == nullptr) return comm_error(call, comm, MPI_ERR_REQUEST, "request argument is NULL");
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  r.call = call;
  r.comm = comm;
  r.persistent = true;
  r.persistent_coll = std::make_shared<PersistentCollective>();
  r.persistent_coll->start = std::move(start);
  *request = handle;
  return MPI_SUCCESS;
}

int start_persistent_collective(MPI_Request handle) {
  // The start adds the operation's own request to the table, which may
  // move this one: hold the record, not the request.
  const std::shared_ptr<PersistentCollective> p = requests().get(handle)->persistent_coll;
  if (int rc = p->start(&p->operation)) return rc;
  requests().get(handle)->active = true;
  return MPI_SUCCESS;
}

namespace {

// The calls below: MPI_*_init binds the nonblocking call to a request.
int bind(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request, std::function<int(MPI_Request*)> start) {
  return bind_persistent_collective(call, comm, info, request, std::move(start));
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Barrier_init", comm, info, request, [=](MPI_Request* op) { return PMPI_Ibarrier(comm, op); });
}

int PMPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request* request) {
  return bind("MPI_Bcast_init", comm, info, request,
              [=](MPI_Request* op) { return PMPI_Ibcast(buffer, count, datatype, root, comm, op); });
}

int PMPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce(sendbuf, recvbuf, count, datatype, op, root, comm, r);
  });
}

int PMPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Allreduce_init", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_scatter_block_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int PMPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_scatter_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

int PMPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
  return bind("MPI_Scan_init", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  return bind("MPI_Exscan_init", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iexscan(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Gather_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request) {
  return bind("MPI_Gatherv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r);
  });
}

int PMPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Scatter_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return bind("MPI_Scatterv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Allgather_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request* request) {
  return bind("MPI_Allgatherv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int PMPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Alltoall_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Alltoallv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r);
  });
}

int PMPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                        const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Alltoallw_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, r);
  });
}

// The neighbourhood collectives (MPI-4.0 §8.8).
int PMPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  return bind("MPI_Neighbor_allgather_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request* request) {
  return bind("MPI_Neighbor_allgatherv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int PMPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request* request) {
  return bind("MPI_Neighbor_alltoall_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Neighbor_alltoallv_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                    comm, r);
  });
}

int PMPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  return bind("MPI_Neighbor_alltoallw_init", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                    comm, r);
  });
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Barrier_init = PMPI_Barrier_init
#pragma weak MPI_Bcast_init = PMPI_Bcast_init
#pragma weak MPI_Reduce_init = PMPI_Reduce_init
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
#pragma weak MPI_Scan_init = PMPI_Scan_init
#pragma weak MPI_Exscan_init = PMPI_Exscan_init
#pragma weak MPI_Gather_init = PMPI_Gather_init
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
#pragma weak MPI_Scatter_init = PMPI_Scatter_init
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
#pragma weak MPI_Allgather_init = PMPI_Allgather_init
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init

}  // extern "C"
