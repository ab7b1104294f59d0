// The large-count forms (MPI-4.0 §2.5.8) of the collectives: blocking,
// nonblocking and persistent, the neighbourhood collectives and
// MPI_Reduce_local_c; the rule they follow is large_count.hpp's. By family,
// a count above INT_MAX:
//   - Bcast, Gather, Scatter, Allgather, Alltoall and the neighbourhood
//     Allgather and Alltoall (one count per buffer): moves, as one element
//     of a derived type (large::Counted);
//   - Reduce, Allreduce, Scan, Exscan and Reduce_local: the blocking calls
//     run in pieces of at most INT_MAX elements (MPI requires the same
//     count and datatype at every rank, so every rank cuts the same
//     pieces); the nonblocking and persistent ones are refused, since one
//     request cannot hold several reductions;
//   - Reduce_scatter(_block): refused when the total, which the int form
//     reduces in one piece, is above INT_MAX elements;
//   - the vector forms (Gatherv, ..., Alltoallw and the neighbourhood v and
//     w forms): a count or displacement above INT_MAX in an array is
//     refused; their single counts (a Gatherv's sendcount) move as above.
// The nonblocking int forms copy the arrays they are given, and keep the
// datatypes they use (datatype.hpp, share_type), so the converted arrays
// and derived types here may go once the call has returned. A persistent
// collective keeps the program's own arguments and runs the nonblocking _c
// form at each MPI_Start, as the int forms do (persistent_coll.cpp).
#include "mpi/large_count.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "mpi/requests.hpp"
#include "mpi/topology.hpp"

namespace {

using namespace mpf::mpi;
using large::Counted;
using large::int_sized;
using large::narrow;

// ---- who passes what ------------------------------------------------------------

// This rank's part in a rooted collective (Gather, Scatter and their v
// forms): whether its root-side arguments count (it is the root: MPI_ROOT
// on an intercommunicator), whether its member-side ones do (every rank of
// an intracommunicator; the group opposite the root's on an
// intercommunicator), and how many blocks the root's arrays hold. Nothing
// counts on an invalid communicator, which the int form reports.
struct Rooted {
  bool root = false;
  bool member = false;
  std::size_t blocks = 0;
};

Rooted rooted(MPI_Comm comm, int root) {
  const Communicator* c = find_comm(comm);
  if (c == nullptr) return {};
  if (c->inter) return {root == MPI_ROOT, root >= 0, static_cast<std::size_t>(c->peer_count())};
  return {c->rank == root, true, static_cast<std::size_t>(c->size())};
}

// Blocks of an Allgatherv's or Alltoallv's arrays: one per rank it
// exchanges with (the remote group's on an intercommunicator).
std::size_t peers(MPI_Comm comm) {
  const Communicator* c = find_comm(comm);
  return c == nullptr ? 0 : static_cast<std::size_t>(c->peer_count());
}

// The local group's size: a Reduce_scatter's receive counts.
std::size_t group_size(MPI_Comm comm) {
  const Communicator* c = find_comm(comm);
  return c == nullptr ? 0 : static_cast<std::size_t>(c->size());
}

// A neighbourhood collective's blocks: the sources it receives from and
// the destinations it sends to (none without a topology, which the int
// form reports).
struct Degrees {
  std::size_t in = 0, out = 0;
};

Degrees degrees(MPI_Comm comm) {
  const Communicator* c = find_comm(comm);
  if (c == nullptr || std::holds_alternative<std::monostate>(c->topology)) return {};
  const NeighborLists lists = neighbor_lists(c->topology, c->rank);
  return {lists.sources.size(), lists.destinations.size()};
}

// describe() where the argument counts at this rank, ignore() elsewhere.
int describe_if(bool counts, Counted& data, const char* call, MPI_Comm comm, const char* what, const void* buf,
                MPI_Count count, MPI_Datatype datatype) {
  if (!counts) {
    data.ignore(count, datatype);
    return MPI_SUCCESS;
  }
  return data.describe(call, comm, what, buf, count, datatype);
}

// An array the call reads at this rank (`counts`), converted; else null.
template <class T>
int narrow_if(bool counts, const char* call, MPI_Comm comm, const char* what, const T* in, std::size_t n,
              std::vector<int>& out, const int** data) {
  *data = nullptr;
  return counts ? narrow(call, comm, what, in, n, out, data) : MPI_SUCCESS;
}

// ---- reductions -----------------------------------------------------------------

// The most elements of `datatype` one reduction of the int forms takes: the
// count, and for a derived type the basic elements of that count (what the
// predefined operations combine), must fit an int.
MPI_Count reduction_limit(MPI_Datatype datatype) {
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr || t->predefined || t->basic_count <= 1) return INT_MAX;
  return INT_MAX / static_cast<MPI_Count>(t->basic_count);
}

// `buf` moved on by `bytes`, unless the call ignores it (MPI_IN_PLACE, NULL).
template <class P>
P* moved(P* buf, std::int64_t bytes) {
  if (buf == nullptr || buf == MPI_IN_PLACE) return buf;
  using Byte = std::conditional_t<std::is_const_v<P>, const std::byte, std::byte>;
  return static_cast<Byte*>(buf) + bytes;
}

// A reduction of `count` elements: `run(offset, n)` runs the int form on n
// elements from `offset` bytes on. A count the int form takes runs at once
// (errors and negative counts included, which it reports); a larger one runs
// in pieces when `blocking`, else is refused.
int reduction(const char* call, MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, bool blocking,
              const std::function<int(std::int64_t, int)>& run) {
  const MPI_Count limit = reduction_limit(datatype);
  if ((int_sized(count) && count <= limit) || !comm_is_valid(comm)) {
    return run(0, int_sized(count) ? static_cast<int>(count) : 0);
  }
  if (count < 0) return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) return comm_error(call, comm, MPI_ERR_TYPE, datatype_problem(datatype));
  if (!blocking) {
    return comm_error(call, comm, MPI_ERR_COUNT,
                      "count " + std::to_string(count) + " of " + datatype_name(datatype) + " is above the " +
                          std::to_string(limit) +
                          " elements one nonblocking or persistent reduction takes here (INT_MAX basic elements); "
                          "a request holds one reduction: split the data, or use the blocking call, which runs in "
                          "pieces");
  }
  for (MPI_Count done = 0; done < count; done += limit) {
    const MPI_Count n = std::min(limit, count - done);
    if (int rc = run(done * t->extent(), static_cast<int>(n))) return rc;
  }
  return MPI_SUCCESS;
}

// Reduce_scatter(_block): the int form reduces all the blocks, `total`
// elements, in one piece.
int check_total(const char* call, MPI_Comm comm, MPI_Count total, MPI_Datatype datatype) {
  const MPI_Count limit = reduction_limit(datatype);
  if (total <= limit) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_COUNT,
                    "the receive counts add up to " + std::to_string(total) + " elements of " +
                        datatype_name(datatype) + ", above the " + std::to_string(limit) +
                        " one reduction takes here (INT_MAX basic elements); split the data");
}

// Reduce_scatter_block: `run(n)` runs the int form with a receive count of n.
int reduce_scatter_block(const char* call, MPI_Count recvcount, MPI_Datatype datatype, MPI_Comm comm,
                         const std::function<int(int)>& run) {
  if (!comm_is_valid(comm) || (int_sized(recvcount) && recvcount <= 0)) {
    return run(int_sized(recvcount) ? static_cast<int>(recvcount) : 0);
  }
  if (recvcount < 0) {
    return comm_error(call, comm, MPI_ERR_COUNT, "negative receive count " + std::to_string(recvcount));
  }
  MPI_Count total = 0;
  if (__builtin_mul_overflow(recvcount, static_cast<MPI_Count>(group_size(comm)), &total)) total = LLONG_MAX;
  if (int rc = check_total(call, comm, total, datatype)) return rc;
  return run(static_cast<int>(recvcount));
}

// Reduce_scatter's counts as ints, their total checked.
int reduce_scatter_counts(const char* call, MPI_Comm comm, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          std::vector<int>& out, const int** data) {
  const std::size_t n = group_size(comm);
  if (int rc = narrow(call, comm, "recvcounts", recvcounts, n, out, data)) return rc;
  if (*data == nullptr) return MPI_SUCCESS;
  MPI_Count total = 0;
  for (std::size_t i = 0; i < n; ++i) total += std::max(out[i], 0);
  return check_total(call, comm, total, datatype);
}

// ---- persistent collectives -----------------------------------------------------------

// MPI_*_init_c binds the nonblocking _c call to a request (requests.hpp).
int bind(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request, std::function<int(MPI_Request*)> start) {
  return bind_persistent_collective(call, comm, info, request, std::move(start));
}

}  // namespace

extern "C" {

// ---- one count per buffer -----------------------------------------------------------

int PMPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const Rooted r = rooted(comm, root);
  Counted data;
  if (int rc = describe_if(r.root || r.member, data, "MPI_Bcast_c", comm, "", buffer, count, datatype)) return rc;
  return PMPI_Bcast(buffer, data.count(), data.type(), root, comm);
}
int PMPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  const Rooted r = rooted(comm, root);
  Counted data;
  if (int rc = describe_if(r.root || r.member, data, "MPI_Ibcast_c", comm, "", buffer, count, datatype)) return rc;
  return PMPI_Ibcast(buffer, data.count(), data.type(), root, comm, request);
}

}  // extern "C"

namespace {

// Gather and Scatter: `to_root` for Gather. The member's buffer is the
// send one of a Gather, the receive one of a Scatter; MPI_IN_PLACE at an
// intracommunicator's root leaves it out.
struct RootedBuffers {
  Counted member, root;
};

int rooted_buffers(const char* call, bool to_root, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   const void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   Counted& send, Counted& recv) {
  const Rooted r = rooted(comm, root);
  const bool in_place = to_root ? sendbuf == MPI_IN_PLACE : recvbuf == MPI_IN_PLACE;
  const bool member = r.member && !(r.root && in_place);
  if (int rc = describe_if(to_root ? member : r.root, send, call, comm, "send ", sendbuf, sendcount, sendtype)) {
    return rc;
  }
  return describe_if(to_root ? r.root : member, recv, call, comm, "receive ", recvbuf, recvcount, recvtype);
}

// Allgather and Alltoall (and their neighbourhood forms): every rank's
// buffers count, the send one but for MPI_IN_PLACE.
int all_buffers(const char* call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                const void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Counted& send,
                Counted& recv) {
  if (int rc = describe_if(sendbuf != MPI_IN_PLACE, send, call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  return recv.describe(call, comm, "receive ", recvbuf, recvcount, recvtype);
}

}  // namespace

extern "C" {

int PMPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = rooted_buffers("MPI_Gather_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, send, recv)) {
    return rc;
  }
  return PMPI_Gather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), root, comm);
}
int PMPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = rooted_buffers("MPI_Igather_c", true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, send, recv)) {
    return rc;
  }
  return PMPI_Igather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), root, comm, request);
}

int PMPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = rooted_buffers("MPI_Scatter_c", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, send, recv)) {
    return rc;
  }
  return PMPI_Scatter(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), root, comm);
}
int PMPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = rooted_buffers("MPI_Iscatter_c", false, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              root, comm, send, recv)) {
    return rc;
  }
  return PMPI_Iscatter(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), root, comm, request);
}

int PMPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, send,
                           recv)) {
    return rc;
  }
  return PMPI_Allgather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm);
}
int PMPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, send,
                           recv)) {
    return rc;
  }
  return PMPI_Iallgather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm, request);
}

int PMPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, send,
                           recv)) {
    return rc;
  }
  return PMPI_Alltoall(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm);
}
int PMPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, send,
                           recv)) {
    return rc;
  }
  return PMPI_Ialltoall(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm, request);
}

int PMPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           comm, send, recv)) {
    return rc;
  }
  return PMPI_Neighbor_allgather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm);
}
int PMPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Ineighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           comm, send, recv)) {
    return rc;
  }
  return PMPI_Ineighbor_allgather(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm,
                                  request);
}

int PMPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                           send, recv)) {
    return rc;
  }
  return PMPI_Neighbor_alltoall(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm);
}
int PMPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Counted send, recv;
  if (int rc = all_buffers("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                           comm, send, recv)) {
    return rc;
  }
  return PMPI_Ineighbor_alltoall(sendbuf, send.count(), send.type(), recvbuf, recv.count(), recv.type(), comm,
                                 request);
}

// ---- vector forms -----------------------------------------------------------------------

int PMPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  const char* call = "MPI_Gatherv_c";
  const Rooted r = rooted(comm, root);
  Counted send;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = describe_if(r.member && !(r.root && sendbuf == MPI_IN_PLACE), send, call, comm, "send ", sendbuf,
                           sendcount, sendtype)) {
    return rc;
  }
  if (int rc = narrow_if(r.root, call, comm, "recvcounts", recvcounts, r.blocks, counts, &c)) return rc;
  if (int rc = narrow_if(r.root, call, comm, "displs", displs, r.blocks, places, &d)) return rc;
  return PMPI_Gatherv(sendbuf, send.count(), send.type(), recvbuf, c, d, recvtype, root, comm);
}
int PMPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Igatherv_c";
  const Rooted r = rooted(comm, root);
  Counted send;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = describe_if(r.member && !(r.root && sendbuf == MPI_IN_PLACE), send, call, comm, "send ", sendbuf,
                           sendcount, sendtype)) {
    return rc;
  }
  if (int rc = narrow_if(r.root, call, comm, "recvcounts", recvcounts, r.blocks, counts, &c)) return rc;
  if (int rc = narrow_if(r.root, call, comm, "displs", displs, r.blocks, places, &d)) return rc;
  return PMPI_Igatherv(sendbuf, send.count(), send.type(), recvbuf, c, d, recvtype, root, comm, request);
}

int PMPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm) {
  const char* call = "MPI_Scatterv_c";
  const Rooted r = rooted(comm, root);
  Counted recv;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = narrow_if(r.root, call, comm, "sendcounts", sendcounts, r.blocks, counts, &c)) return rc;
  if (int rc = narrow_if(r.root, call, comm, "displs", displs, r.blocks, places, &d)) return rc;
  if (int rc = describe_if(r.member && !(r.root && recvbuf == MPI_IN_PLACE), recv, call, comm, "receive ", recvbuf,
                           recvcount, recvtype)) {
    return rc;
  }
  return PMPI_Scatterv(sendbuf, c, d, sendtype, recvbuf, recv.count(), recv.type(), root, comm);
}
int PMPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Iscatterv_c";
  const Rooted r = rooted(comm, root);
  Counted recv;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = narrow_if(r.root, call, comm, "sendcounts", sendcounts, r.blocks, counts, &c)) return rc;
  if (int rc = narrow_if(r.root, call, comm, "displs", displs, r.blocks, places, &d)) return rc;
  if (int rc = describe_if(r.member && !(r.root && recvbuf == MPI_IN_PLACE), recv, call, comm, "receive ", recvbuf,
                           recvcount, recvtype)) {
    return rc;
  }
  return PMPI_Iscatterv(sendbuf, c, d, sendtype, recvbuf, recv.count(), recv.type(), root, comm, request);
}

int PMPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgatherv_c";
  const std::size_t n = peers(comm);
  Counted send;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = describe_if(sendbuf != MPI_IN_PLACE, send, call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = narrow_if(n > 0, call, comm, "recvcounts", recvcounts, n, counts, &c)) return rc;
  if (int rc = narrow_if(n > 0, call, comm, "displs", displs, n, places, &d)) return rc;
  return PMPI_Allgatherv(sendbuf, send.count(), send.type(), recvbuf, c, d, recvtype, comm);
}
int PMPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request) {
  const char* call = "MPI_Iallgatherv_c";
  const std::size_t n = peers(comm);
  Counted send;
  std::vector<int> counts, places;
  const int *c = nullptr, *d = nullptr;
  if (int rc = describe_if(sendbuf != MPI_IN_PLACE, send, call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = narrow_if(n > 0, call, comm, "recvcounts", recvcounts, n, counts, &c)) return rc;
  if (int rc = narrow_if(n > 0, call, comm, "displs", displs, n, places, &d)) return rc;
  return PMPI_Iallgatherv(sendbuf, send.count(), send.type(), recvbuf, c, d, recvtype, comm, request);
}

}  // extern "C"

namespace {

// The four arrays of an Alltoallv or Alltoallw (displacements of type T:
// MPI_Aint for both in the _c forms), converted where the call reads them:
// the send ones but for MPI_IN_PLACE.
struct Arrays {
  std::vector<int> sc, sd, rc, rd;
  const int *send_counts = nullptr, *send_displs = nullptr, *recv_counts = nullptr, *recv_displs = nullptr;
};

int alltoall_arrays(const char* call, MPI_Comm comm, bool in_place, std::size_t in, std::size_t out,
                    const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], Arrays& a) {
  const bool sends = !in_place && out > 0;
  if (int rc = narrow_if(sends, call, comm, "sendcounts", sendcounts, out, a.sc, &a.send_counts)) return rc;
  if (int rc = narrow_if(sends, call, comm, "sdispls", sdispls, out, a.sd, &a.send_displs)) return rc;
  if (int rc = narrow_if(in > 0, call, comm, "recvcounts", recvcounts, in, a.rc, &a.recv_counts)) return rc;
  return narrow_if(in > 0, call, comm, "rdispls", rdispls, in, a.rd, &a.recv_displs);
}

// The neighbourhood Alltoallw's displacements are MPI_Aint in both forms:
// only its counts are converted.
int neighbor_w_counts(const char* call, MPI_Comm comm, const MPI_Count sendcounts[], const MPI_Count recvcounts[],
                      Arrays& a) {
  const Degrees deg = degrees(comm);
  if (int rc = narrow_if(deg.out > 0, call, comm, "sendcounts", sendcounts, deg.out, a.sc, &a.send_counts)) return rc;
  return narrow_if(deg.in > 0, call, comm, "recvcounts", recvcounts, deg.in, a.rc, &a.recv_counts);
}

}  // namespace

extern "C" {

int PMPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                     MPI_Datatype recvtype, MPI_Comm comm) {
  Arrays a;
  const std::size_t n = peers(comm);
  if (int rc = alltoall_arrays("MPI_Alltoallv_c", comm, sendbuf == MPI_IN_PLACE, n, n, sendcounts, sdispls, recvcounts,
                               rdispls, a)) {
    return rc;
  }
  return PMPI_Alltoallv(sendbuf, a.send_counts, a.send_displs, sendtype, recvbuf, a.recv_counts, a.recv_displs,
                        recvtype, comm);
}
int PMPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  Arrays a;
  const std::size_t n = peers(comm);
  if (int rc = alltoall_arrays("MPI_Ialltoallv_c", comm, sendbuf == MPI_IN_PLACE, n, n, sendcounts, sdispls,
                               recvcounts, rdispls, a)) {
    return rc;
  }
  return PMPI_Ialltoallv(sendbuf, a.send_counts, a.send_displs, sendtype, recvbuf, a.recv_counts, a.recv_displs,
                         recvtype, comm, request);
}

int PMPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  Arrays a;
  const std::size_t n = peers(comm);
  if (int rc = alltoall_arrays("MPI_Alltoallw_c", comm, sendbuf == MPI_IN_PLACE, n, n, sendcounts, sdispls, recvcounts,
                               rdispls, a)) {
    return rc;
  }
  return PMPI_Alltoallw(sendbuf, a.send_counts, a.send_displs, sendtypes, recvbuf, a.recv_counts, a.recv_displs,
                        recvtypes, comm);
}
int PMPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  Arrays a;
  const std::size_t n = peers(comm);
  if (int rc = alltoall_arrays("MPI_Ialltoallw_c", comm, sendbuf == MPI_IN_PLACE, n, n, sendcounts, sdispls,
                               recvcounts, rdispls, a)) {
    return rc;
  }
  return PMPI_Ialltoallw(sendbuf, a.send_counts, a.send_displs, sendtypes, recvbuf, a.recv_counts, a.recv_displs,
                         recvtypes, comm, request);
}

int PMPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgatherv_c";
  const Degrees deg = degrees(comm);
  Counted send;
  Arrays a;
  if (int rc = send.describe(call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = alltoall_arrays(call, comm, true, deg.in, 0, nullptr, nullptr, recvcounts, displs, a)) return rc;
  return PMPI_Neighbor_allgatherv(sendbuf, send.count(), send.type(), recvbuf, a.recv_counts, a.recv_displs, recvtype,
                                  comm);
}
int PMPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Ineighbor_allgatherv_c";
  const Degrees deg = degrees(comm);
  Counted send;
  Arrays a;
  if (int rc = send.describe(call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = alltoall_arrays(call, comm, true, deg.in, 0, nullptr, nullptr, recvcounts, displs, a)) return rc;
  return PMPI_Ineighbor_allgatherv(sendbuf, send.count(), send.type(), recvbuf, a.recv_counts, a.recv_displs,
                                   recvtype, comm, request);
}

int PMPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const Degrees deg = degrees(comm);
  Arrays a;
  if (int rc = alltoall_arrays("MPI_Neighbor_alltoallv_c", comm, false, deg.in, deg.out, sendcounts, sdispls,
                               recvcounts, rdispls, a)) {
    return rc;
  }
  return PMPI_Neighbor_alltoallv(sendbuf, a.send_counts, a.send_displs, sendtype, recvbuf, a.recv_counts,
                                 a.recv_displs, recvtype, comm);
}
int PMPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request* request) {
  const Degrees deg = degrees(comm);
  Arrays a;
  if (int rc = alltoall_arrays("MPI_Ineighbor_alltoallv_c", comm, false, deg.in, deg.out, sendcounts, sdispls,
                               recvcounts, rdispls, a)) {
    return rc;
  }
  return PMPI_Ineighbor_alltoallv(sendbuf, a.send_counts, a.send_displs, sendtype, recvbuf, a.recv_counts,
                                  a.recv_displs, recvtype, comm, request);
}

int PMPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  Arrays a;
  if (int rc = neighbor_w_counts("MPI_Neighbor_alltoallw_c", comm, sendcounts, recvcounts, a)) return rc;
  return PMPI_Neighbor_alltoallw(sendbuf, a.send_counts, sdispls, sendtypes, recvbuf, a.recv_counts, rdispls,
                                 recvtypes, comm);
}
int PMPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request* request) {
  Arrays a;
  if (int rc = neighbor_w_counts("MPI_Ineighbor_alltoallw_c", comm, sendcounts, recvcounts, a)) return rc;
  return PMPI_Ineighbor_alltoallw(sendbuf, a.send_counts, sdispls, sendtypes, recvbuf, a.recv_counts, rdispls,
                                  recvtypes, comm, request);
}

// ---- reductions -------------------------------------------------------------------------

int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op) {
  return reduction("MPI_Reduce_local_c", MPI_COMM_WORLD, count, datatype, true, [&](std::int64_t at, int n) {
    return PMPI_Reduce_local(moved(inbuf, at), moved(inoutbuf, at), n, datatype, op);
  });
}

int PMPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                  MPI_Comm comm) {
  return reduction("MPI_Reduce_c", comm, count, datatype, true, [&](std::int64_t at, int n) {
    return PMPI_Reduce(moved(sendbuf, at), moved(recvbuf, at), n, datatype, op, root, comm);
  });
}
int PMPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                   MPI_Comm comm, MPI_Request* request) {
  return reduction("MPI_Ireduce_c", comm, count, datatype, false, [&](std::int64_t, int n) {
    return PMPI_Ireduce(sendbuf, recvbuf, n, datatype, op, root, comm, request);
  });
}

int PMPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm) {
  return reduction("MPI_Allreduce_c", comm, count, datatype, true, [&](std::int64_t at, int n) {
    return PMPI_Allreduce(moved(sendbuf, at), moved(recvbuf, at), n, datatype, op, comm);
  });
}
int PMPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request) {
  return reduction("MPI_Iallreduce_c", comm, count, datatype, false, [&](std::int64_t, int n) {
    return PMPI_Iallreduce(sendbuf, recvbuf, n, datatype, op, comm, request);
  });
}

int PMPI_Scan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm) {
  return reduction("MPI_Scan_c", comm, count, datatype, true, [&](std::int64_t at, int n) {
    return PMPI_Scan(moved(sendbuf, at), moved(recvbuf, at), n, datatype, op, comm);
  });
}
int PMPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  return reduction("MPI_Iscan_c", comm, count, datatype, false, [&](std::int64_t, int n) {
    return PMPI_Iscan(sendbuf, recvbuf, n, datatype, op, comm, request);
  });
}

int PMPI_Exscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  return reduction("MPI_Exscan_c", comm, count, datatype, true, [&](std::int64_t at, int n) {
    return PMPI_Exscan(moved(sendbuf, at), moved(recvbuf, at), n, datatype, op, comm);
  });
}
int PMPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request* request) {
  return reduction("MPI_Iexscan_c", comm, count, datatype, false, [&](std::int64_t, int n) {
    return PMPI_Iexscan(sendbuf, recvbuf, n, datatype, op, comm, request);
  });
}

int PMPI_Reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_block("MPI_Reduce_scatter_block_c", recvcount, datatype, comm, [&](int n) {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, n, datatype, op, comm);
  });
}
int PMPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                 MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter_block("MPI_Ireduce_scatter_block_c", recvcount, datatype, comm, [&](int n) {
    return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, n, datatype, op, comm, request);
  });
}

int PMPI_Reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm) {
  std::vector<int> counts;
  const int* c = nullptr;
  if (int rc = reduce_scatter_counts("MPI_Reduce_scatter_c", comm, recvcounts, datatype, counts, &c)) return rc;
  return PMPI_Reduce_scatter(sendbuf, recvbuf, c, datatype, op, comm);
}
int PMPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  std::vector<int> counts;
  const int* c = nullptr;
  if (int rc = reduce_scatter_counts("MPI_Ireduce_scatter_c", comm, recvcounts, datatype, counts, &c)) return rc;
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, c, datatype, op, comm, request);
}

// ---- persistent collectives: each MPI_Start runs the nonblocking _c form ------------------

int PMPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  return bind("MPI_Bcast_init_c", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Ibcast_c(buffer, count, datatype, root, comm, r); });
}

int PMPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce_c(sendbuf, recvbuf, count, datatype, op, root, comm, r);
  });
}

int PMPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Allreduce_init_c", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iallreduce_c(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype,
                                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_scatter_block_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, datatype, op, comm, r);
  });
}

int PMPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Reduce_scatter_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, datatype, op, comm, r);
  });
}

int PMPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Scan_init_c", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iscan_c(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Exscan_init_c", comm, info, request,
              [=](MPI_Request* r) { return PMPI_Iexscan_c(sendbuf, recvbuf, count, datatype, op, comm, r); });
}

int PMPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request) {
  return bind("MPI_Gather_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Gatherv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Igatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, r);
  });
}

int PMPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request* request) {
  return bind("MPI_Scatter_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                         MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Scatterv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iscatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, r);
  });
}

int PMPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  return bind("MPI_Allgather_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Allgatherv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Iallgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int PMPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request) {
  return bind("MPI_Alltoall_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Alltoallv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, r);
  });
}

int PMPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request* request) {
  return bind("MPI_Alltoallw_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ialltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm,
                             r);
  });
}

int PMPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return bind("MPI_Neighbor_allgather_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                    MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  return bind("MPI_Neighbor_allgatherv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, r);
  });
}

int PMPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  return bind("MPI_Neighbor_alltoall_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, r);
  });
}

int PMPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request* request) {
  return bind("MPI_Neighbor_alltoallv_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                                      comm, r);
  });
}

int PMPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                   const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request* request) {
  return bind("MPI_Neighbor_alltoallw_init_c", comm, info, request, [=](MPI_Request* r) {
    return PMPI_Ineighbor_alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                                      comm, r);
  });
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Bcast_c = PMPI_Bcast_c
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
#pragma weak MPI_Gather_c = PMPI_Gather_c
#pragma weak MPI_Igather_c = PMPI_Igather_c
#pragma weak MPI_Scatter_c = PMPI_Scatter_c
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
#pragma weak MPI_Allgather_c = PMPI_Allgather_c
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
#pragma weak MPI_Reduce_c = PMPI_Reduce_c
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
#pragma weak MPI_Scan_c = PMPI_Scan_c
#pragma weak MPI_Iscan_c = PMPI_Iscan_c
#pragma weak MPI_Exscan_c = PMPI_Exscan_c
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c

}  // extern "C"
