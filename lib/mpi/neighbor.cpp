// The neighbourhood collectives (MPI 3.1 §7.6, §7.7): Allgather(v) and
// Alltoall(v, w) with a process topology's neighbours (topology.hpp),
// blocking and nonblocking.
//
// Each rank exchanges with a few neighbours, not with the whole
// communicator, so these run as point-to-point messages on the engine (the
// shared-memory rings and the rendezvous copies any message takes), not
// over the collective slots: one task (lib/coll/task.hpp) posts a receive
// per source block, then a send per destination block, and waits for all
// of them. It uses no slot, so a nonblocking one is independent of the
// queue of collectives (pending.hpp) and a blocking one does not wait for
// the nonblocking collectives started before it.
//
// The messages travel in a matching context no communicator has and with
// a tag of their own (neighbor_tag), so they never match the program's
// messages nor another neighbourhood collective's. Blocks of a
// non-contiguous datatype are packed when the call starts and unpacked
// when it ends, as point-to-point does.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coll/task.hpp"
#include "core/runtime.hpp"
#include "mpi/coll/pending.hpp"
#include "mpi/comm.hpp"
#include "mpi/context_ids.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/internal_p2p.hpp"
#include "mpi/topology.hpp"

namespace mpf::mpi {
namespace {

// The matching context: the communicator's with bit 29 set. Communicators'
// ids are below kContextIds, the context agreement's messages set bit 30
// (context_ids.cpp) and MPI_Comm_create_group's keys bit 31 (comm.cpp).
constexpr std::uint32_t kNeighborContextBit = 0x20000000u;
static_assert(kContextIds <= kNeighborContextBit, "communicator ids must stay below the neighbour context bit");

// The tag of a block: the communicator's count of neighbourhood
// collectives (every member calls them in the same order, so all agree on
// it) and one bit for the side of the receiver's grid the block arrives
// on. On a grid, a periodic dimension of size 1 or 2 has the same rank as
// its -1 and +1 neighbour, and order alone could not tell which block is
// which: the block a rank sends to its -1 neighbour is that neighbour's
// block from its +1 side (as MPI-4.0 made explicit for such dimensions). On a
// graph the bit is 0, and the k-th message between two ranks goes to the
// k-th block between them (messages do not overtake each other).
std::int32_t neighbor_tag(std::uint32_t seq, unsigned side) {
  return static_cast<std::int32_t>(((seq & 0x3fffffffu) << 1) | side);
}

// One side of the call as the program describes it: block k (of neighbour
// k) is counts[k] elements of types[k] at byte displacement displs[k] from
// buf.
struct Blocks {
  const void* buf = nullptr;
  std::vector<int> counts;
  std::vector<std::int64_t> displs;
  std::vector<MPI_Datatype> types;
  bool shared = false;  // every block is the same data (Allgather's send): packed once
};

// One message of the exchange, as the engine moves it.
struct Transfer {
  std::int32_t peer;  // world rank
  std::int32_t tag;
  std::byte* data;    // contiguous bytes: the program's buffer, or packed in staging
  std::uint64_t bytes;
  std::uint16_t signature;
  int neighbor;       // the peer's rank in the communicator, and
  std::size_t block;  // the block's index, for error messages
  // A receive into a non-contiguous layout: unpacked to `user` at the end.
  std::shared_ptr<const TypeInfo> layout;
  void* user = nullptr;
};

// Everything a call's task needs, owned by the task, so the nonblocking
// call returns at once and the program may free the datatypes.
struct Exchange {
  std::string what;  // "MPI_Ineighbor_alltoall: " in a nonblocking call's errors, else empty
  std::uint32_t context;
  std::vector<Transfer> recvs, sends;
  std::vector<std::vector<std::byte>> staging;  // the packed blocks (Transfer::data points in)
  std::shared_ptr<coll::CollectiveError> error;
};

progress::Request* start(bool is_send, const Transfer& t, std::uint32_t context) {
  return start_internal(is_send, t.peer, context, t.tag, t.data, t.bytes, t.signature);
}

// What went wrong with a received block, in the words point-to-point uses;
// `what` names the call when its request reports it (MPI_Wait...), or is
// empty.
void record_error(coll::CollectiveError& error, const std::string& what, const Transfer& t,
                  const progress::Status& st) {
  if (error.error_class != MPI_SUCCESS) return;  // the first is reported
  const std::string block = "receive block " + std::to_string(t.block);
  const std::string from = " from rank " + std::to_string(t.neighbor);
  if (st.error == progress::kErrorSignature) {
    error = {MPI_ERR_TYPE, what + "datatype mismatch: the data for " + block + from +
                               " was sent with another type signature (checked because datatype_check is on)"};
  } else {
    error = {MPI_ERR_TRUNCATE, what + "message truncated: " + std::to_string(st.message_bytes) + " bytes arrived" +
                                   from + " for " + block + " of " + std::to_string(t.bytes) +
                                   " bytes (each send block must match the receive block it goes to)"};
  }
}

mpf::coll::Task exchange_task(Exchange x) {
  progress::Engine& engine = core::Runtime::instance().engine();
  // Receives first, so the blocks (this rank's own to itself included)
  // find them posted rather than waiting in the unexpected queue.
  std::vector<progress::Request*> recvs, sends;
  recvs.reserve(x.recvs.size());
  sends.reserve(x.sends.size());
  for (const Transfer& t : x.recvs) recvs.push_back(start(false, t, x.context));
  for (const Transfer& t : x.sends) sends.push_back(start(true, t, x.context));
  for (progress::Request* r : recvs) co_await mpf::coll::until(r->peer, [r] { return r->done(); });
  for (progress::Request* r : sends) co_await mpf::coll::until(r->peer, [r] { return r->done(); });
  for (std::size_t i = 0; i < recvs.size(); ++i) {
    const progress::Status st = recvs[i]->status;
    engine.free_request(recvs[i]);
    const Transfer& t = x.recvs[i];
    if (st.error != 0) {
      record_error(*x.error, x.what, t, st);
    } else if (t.layout && st.bytes > 0) {
      unpack(*t.layout, t.data, st.bytes, t.user);
    }
  }
  for (progress::Request* r : sends) engine.free_request(r);
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

int check_type(const char* call, MPI_Comm comm, const char* what, MPI_Datatype type) {
  if (usable_type(type) != nullptr) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_TYPE, std::string(what) + " datatype: " + datatype_problem(type));
}

int null_array(const char* call, MPI_Comm comm, const char* what) {
  return comm_error(call, comm, MPI_ERR_ARG, std::string(what) + " array is NULL");
}

// Checks one side's blocks against its neighbours (`ranks`, MPI_PROC_NULL
// included: their blocks are not touched but must still be valid).
int check_blocks(const char* call, MPI_Comm comm, const char* what, const Blocks& b, const std::vector<int>& ranks) {
  if (b.buf == MPI_IN_PLACE) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      std::string("MPI_IN_PLACE as the ") + what +
                          " buffer (neighbourhood collectives have no in-place form)");
  }
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const std::string block =
        std::string(what) + " block " + std::to_string(k) + " (rank " + std::to_string(ranks[k]) + ")";
    if (b.counts[k] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(b.counts[k]) + " for " + block);
    }
    const TypeInfo* t = usable_type(b.types[k]);
    if (t == nullptr) return comm_error(call, comm, MPI_ERR_TYPE, block + ": " + datatype_problem(b.types[k]));
    // NULL is MPI_BOTTOM for a derived type with absolute addresses.
    if (b.counts[k] > 0 && t->size > 0 && b.buf == nullptr && t->predefined) {
      return comm_error(call, comm, MPI_ERR_BUFFER,
                        std::string(what) + " buffer is NULL for " + std::to_string(b.counts[k]) + " elements of " +
                            block);
    }
  }
  return MPI_SUCCESS;
}

// Blocks of `count` elements of `type`, block k at k blocks from buf (or
// every one at buf when `shared`). The type is valid.
Blocks equal_blocks(const void* buf, std::size_t n, int count, MPI_Datatype type, bool shared) {
  Blocks b{buf, std::vector<int>(n, count), std::vector<std::int64_t>(n), std::vector<MPI_Datatype>(n, type), shared};
  const std::int64_t stride = shared ? 0 : static_cast<std::int64_t>(count) * find_type(type)->extent();
  for (std::size_t k = 0; k < n; ++k) b.displs[k] = static_cast<std::int64_t>(k) * stride;
  return b;
}

// Blocks of counts[k] elements of `type` at displs[k] elements from buf.
Blocks varying_blocks(const void* buf, std::size_t n, const int counts[], const int displs[], MPI_Datatype type) {
  Blocks b{buf, {counts, counts + n}, std::vector<std::int64_t>(n), std::vector<MPI_Datatype>(n, type), false};
  const std::int64_t extent = find_type(type)->extent();
  for (std::size_t k = 0; k < n; ++k) b.displs[k] = static_cast<std::int64_t>(displs[k]) * extent;
  return b;
}

// ---- the exchange -----------------------------------------------------------

// The messages of one side: a transfer per block whose neighbour is not
// MPI_PROC_NULL. Sends are packed now; receives get staging to unpack.
void add_transfers(Exchange& x, const Communicator& c, bool is_send, const Blocks& b, const std::vector<int>& ranks,
                   bool cartesian, std::uint32_t seq) {
  std::vector<Transfer>& out = is_send ? x.sends : x.recvs;
  std::byte* packed_once = nullptr;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k] == MPI_PROC_NULL) continue;
    // A grid's block 2d+s (s: 0 the -1 side, 1 the +1 side) arrives on the
    // receiver's side s and is sent to the receiver's side 1-s.
    const unsigned side = cartesian ? (is_send ? 1u - (k & 1u) : (k & 1u)) : 0u;
    const TypeInfo& type = *find_type(b.types[k]);
    const auto count = static_cast<std::uint64_t>(b.counts[k]);
    auto* user = static_cast<std::byte*>(const_cast<void*>(b.buf)) + b.displs[k];
    Transfer t{static_cast<std::int32_t>(c.world[static_cast<std::size_t>(ranks[k])]),
               neighbor_tag(seq, side),
               user,
               count * type.size,
               checked_signature(type),
               ranks[k],
               k,
               nullptr,
               nullptr};
    if (!type.contiguous && t.bytes > 0) {
      if (is_send && b.shared && packed_once != nullptr) {
        t.data = packed_once;
      } else {
        x.staging.emplace_back(t.bytes);
        t.data = x.staging.back().data();
        if (is_send) {
          pack(type, user, count, t.data);
          packed_once = t.data;
        } else {
          t.layout = share_type(b.types[k]);
          t.user = user;
        }
      }
    }
    out.push_back(std::move(t));
  }
}

int exchange(const char* call, MPI_Comm comm, const NeighborLists& lists, const Blocks& send, const Blocks& recv,
             MPI_Request* request) {
  if (int rc = check_blocks(call, comm, "send", send, lists.destinations)) return rc;
  if (int rc = check_blocks(call, comm, "receive", recv, lists.sources)) return rc;
  Communicator& c = comm_of(comm);
  const std::uint32_t seq = ++c.neighbor_seq;
  Exchange x{request != nullptr ? std::string(call) + ": " : std::string(), c.context | kNeighborContextBit, {}, {}, {},
             std::make_shared<coll::CollectiveError>()};
  add_transfers(x, c, false, recv, lists.sources, lists.cartesian, seq);
  add_transfers(x, c, true, send, lists.destinations, lists.cartesian, seq);
  std::shared_ptr<coll::CollectiveError> error = x.error;
  if (request != nullptr) {
    return coll::launch(call, comm, -1, exchange_task(std::move(x)), request, /*independent=*/true, std::move(error));
  }
  mpf::coll::Task task = exchange_task(std::move(x));
  core::Runtime& rt = core::Runtime::instance();
  task.run(rt.engine(), progress::BlockedCall{call, -1, -1, c.context});
  rt.transport().flush_wakes();
  if (error->error_class != MPI_SUCCESS) return comm_error(call, comm, error->error_class, error->detail);
  return MPI_SUCCESS;
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
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const std::size_t in = lists.sources.size();
  const Blocks send = equal_blocks(sendbuf, lists.destinations.size(), sendcount, sendtype, /*shared=*/true);
  if (!varying) {
    return exchange(call, comm, lists, send, equal_blocks(recvbuf, in, recvcount, recvtype, false), request);
  }
  if (in > 0 && (recvcounts == nullptr || displs == nullptr)) return null_array(call, comm, "recvcounts or displs");
  return exchange(call, comm, lists, send, varying_blocks(recvbuf, in, recvcounts, displs, recvtype), request);
}

// Alltoall and (`varying`) Alltoallv.
int alltoall_entry(const char* call, bool nonblocking, const void* sendbuf, int sendcount, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype, void* recvbuf, int recvcount, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, bool varying, MPI_Comm comm, MPI_Request* request) {
  NeighborLists lists;
  if (int rc = begin(call, comm, nonblocking, request, &lists)) return rc;
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const std::size_t in = lists.sources.size(), out = lists.destinations.size();
  if (!varying) {
    return exchange(call, comm, lists, equal_blocks(sendbuf, out, sendcount, sendtype, false),
                    equal_blocks(recvbuf, in, recvcount, recvtype, false), request);
  }
  if (out > 0 && (sendcounts == nullptr || sdispls == nullptr)) return null_array(call, comm, "sendcounts or sdispls");
  if (in > 0 && (recvcounts == nullptr || rdispls == nullptr)) return null_array(call, comm, "recvcounts or rdispls");
  return exchange(call, comm, lists, varying_blocks(sendbuf, out, sendcounts, sdispls, sendtype),
                  varying_blocks(recvbuf, in, recvcounts, rdispls, recvtype), request);
}

int alltoallw_entry(const char* call, bool nonblocking, const void* sendbuf, const int sendcounts[],
                    const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  NeighborLists lists;
  if (int rc = begin(call, comm, nonblocking, request, &lists)) return rc;
  const std::size_t in = lists.sources.size(), out = lists.destinations.size();
  if (out > 0 && (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr)) {
    return null_array(call, comm, "sendcounts, sdispls or sendtypes");
  }
  if (in > 0 && (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr)) {
    return null_array(call, comm, "recvcounts, rdispls or recvtypes");
  }
  const Blocks send{sendbuf, {sendcounts, sendcounts + out}, {sdispls, sdispls + out}, {sendtypes, sendtypes + out}};
  const Blocks recv{recvbuf, {recvcounts, recvcounts + in}, {rdispls, rdispls + in}, {recvtypes, recvtypes + in}};
  return exchange(call, comm, lists, send, recv, request);
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
