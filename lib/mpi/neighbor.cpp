// The neighbourhood collectives (MPI 3.1 §7.6, §7.7): Allgather(v) and
// Alltoall(v, w) with a process topology's neighbours (topology.hpp),
// blocking and nonblocking.
//
// Each rank exchanges with a few neighbours, not with the whole
// communicator, so these run as point-to-point messages on the engine (the
// shared-memory rings and the rendezvous copies any message takes), not
// over the collective slots: block exchanges (block_exchange.hpp).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi/block_exchange.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/topology.hpp"

namespace mpf::mpi {
namespace {

using exchange::Blocks;
using exchange::check_type;
using exchange::null_array;
using exchange::equal_blocks;
using exchange::varying_blocks;

// The side bit of a block's tag (exchange::tag_of): the side of the
// receiver's grid the block arrives on. On a grid, a periodic dimension of
// size 1 or 2 has the same rank as its -1 and +1 neighbour, and order
// alone could not tell which block is which: the block a rank sends to its
// -1 neighbour is that neighbour's block from its +1 side (as MPI-4.0 made
// explicit for such dimensions). A grid's block 2d+s (s: 0 the -1 side, 1
// the +1 side) arrives on the receiver's side s and is sent to the
// receiver's side 1-s. On a graph the bit is 0, and the k-th message
// between two ranks goes to the k-th block between them (messages do not
// overtake each other).
unsigned grid_side(bool cartesian, bool is_send, std::size_t k) {
  if (!cartesian) return 0;
  return is_send ? 1u - static_cast<unsigned>(k & 1u) : static_cast<unsigned>(k & 1u);
}

// ---- arguments ------------------------------------------------------------

int check_comm(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (std::holds_alternative<std::monostate>(comm_of(comm).topology)) {
    return comm_error(call, comm, MPI_ERR_TOPOLOGY,
                      "the communicator has no process topology (create one with MPI_Cart_create, MPI_Graph_create "
                      "or MPI_Dist_graph_create)");
  }
  return MPI_SUCCESS;
}

int neighbor_exchange(const char* call, MPI_Comm comm, const NeighborLists& lists, const Blocks& send, const Blocks& recv,
             MPI_Request* request) {
  if (int rc = exchange::check_blocks(call, comm, "send", send, lists.destinations)) return rc;
  if (int rc = exchange::check_blocks(call, comm, "receive", recv, lists.sources)) return rc;
  Communicator& c = comm_of(comm);
  std::uint32_t seq = 0;
  exchange::Exchange x = exchange::begin(call, request != nullptr, c, &seq);
  const bool grid = lists.cartesian;
  exchange::add_transfers(x, false, recv, lists.sources, c.world,
                          [&](std::size_t k) { return exchange::tag_of(seq, grid_side(grid, false, k)); });
  exchange::add_transfers(x, true, send, lists.destinations, c.world,
                          [&](std::size_t k) { return exchange::tag_of(seq, grid_side(grid, true, k)); });
  return exchange::run(call, comm, std::move(x), request);
}

// ---- the calls' shared bodies (blocking: request == nullptr) ---------------------

// The communicator, its topology and the request pointer; the neighbours in *lists.
int begin(const char* call, MPI_Comm comm, bool nonblocking, MPI_Request* request, NeighborLists* lists) {
  if (int rc = check_comm(call, comm)) return rc;
  if (nonblocking && request == nullptr) return comm_error(call, comm, MPI_ERR_REQUEST, "request argument is NULL");
  *lists = neighbor_lists(comm_of(comm).topology, comm_rank(comm));
  return MPI_SUCCESS;
}

// Allgather and (`varying`) Allgatherv.
int allgather_entry(const char* call, bool nonblocking, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    bool varying, MPI_Comm comm, MPI_Request* request) {
  NeighborLists lists;
  if (int rc = begin(call, comm, nonblocking, request, &lists)) return rc;
  const CollectiveScope scope(
      comm_of(comm), varying ? progress::CollKind::neighbor_allgatherv : progress::CollKind::neighbor_allgather,
      nonblocking);
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const std::size_t in = lists.sources.size();
  const Blocks send = equal_blocks(sendbuf, lists.destinations.size(), sendcount, sendtype, /*shared=*/true);
  if (!varying) {
    return neighbor_exchange(call, comm, lists, send, equal_blocks(recvbuf, in, recvcount, recvtype, false), request);
  }
  if (in > 0 && (recvcounts == nullptr || displs == nullptr)) return null_array(call, comm, "recvcounts or displs");
  return neighbor_exchange(call, comm, lists, send, varying_blocks(recvbuf, in, recvcounts, displs, recvtype), request);
}

// Alltoall and (`varying`) Alltoallv.
int alltoall_entry(const char* call, bool nonblocking, const void* sendbuf, int sendcount, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void* recvbuf, int recvcount, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, bool varying, MPI_Comm comm, MPI_Request* request) {
  NeighborLists lists;
  if (int rc = begin(call, comm, nonblocking, request, &lists)) return rc;
  const CollectiveScope scope(comm_of(comm),
                              varying ? progress::CollKind::neighbor_alltoallv : progress::CollKind::neighbor_alltoall,
                              nonblocking);
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const std::size_t in = lists.sources.size(), out = lists.destinations.size();
  if (!varying) {
    return neighbor_exchange(call, comm, lists, equal_blocks(sendbuf, out, sendcount, sendtype, false),
                    equal_blocks(recvbuf, in, recvcount, recvtype, false), request);
  }
  if (out > 0 && (sendcounts == nullptr || sdispls == nullptr)) return null_array(call, comm, "sendcounts or sdispls");
  if (in > 0 && (recvcounts == nullptr || rdispls == nullptr)) return null_array(call, comm, "recvcounts or rdispls");
  return neighbor_exchange(call, comm, lists, varying_blocks(sendbuf, out, sendcounts, sdispls, sendtype),
                  varying_blocks(recvbuf, in, recvcounts, rdispls, recvtype), request);
}

int alltoallw_entry(const char* call, bool nonblocking, const void* sendbuf, const int sendcounts[],
                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  NeighborLists lists;
  if (int rc = begin(call, comm, nonblocking, request, &lists)) return rc;
  const CollectiveScope scope(comm_of(comm), progress::CollKind::neighbor_alltoallw, nonblocking);
  const std::size_t in = lists.sources.size(), out = lists.destinations.size();
  if (out > 0 && (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr)) {
    return null_array(call, comm, "sendcounts, sdispls or sendtypes");
  }
  if (in > 0 && (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr)) {
    return null_array(call, comm, "recvcounts, rdispls or recvtypes");
  }
  const Blocks send{sendbuf, {sendcounts, sendcounts + out}, {sdispls, sdispls + out}, {sendtypes, sendtypes + out}};
  const Blocks recv{recvbuf, {recvcounts, recvcounts + in}, {rdispls, rdispls + in}, {recvtypes, recvtypes + in}};
  return neighbor_exchange(call, comm, lists, send, recv, request);
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_entry("MPI_Neighbor_allgather", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                         nullptr, recvtype, false, comm, nullptr);
}
int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_entry("MPI_Neighbor_allgatherv", false, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, true, comm, nullptr);
}
int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_entry("MPI_Neighbor_alltoall", false, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                        recvcount, nullptr, nullptr, recvtype, false, comm, nullptr);
}
int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
  return alltoall_entry("MPI_Neighbor_alltoallv", false, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                        recvcounts, rdispls, recvtype, true, comm, nullptr);
}
int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw_entry("MPI_Neighbor_alltoallw", false, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                         rdispls, recvtypes, comm, nullptr);
}

int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_entry("MPI_Ineighbor_allgather", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                         nullptr, recvtype, false, comm, request);
}
int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  return allgather_entry("MPI_Ineighbor_allgatherv", true, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, true, comm, request);
}
int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_entry("MPI_Ineighbor_alltoall", true, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                        recvcount, nullptr, nullptr, recvtype, false, comm, request);
}
int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request* request) {
  return alltoall_entry("MPI_Ineighbor_alltoallv", true, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                        recvcounts, rdispls, recvtype, true, comm, request);
}
int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request* request) {
  return alltoallw_entry("MPI_Ineighbor_alltoallw", true, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                         rdispls, recvtypes, comm, request);
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw

}  // extern "C"
