// The collectives on an intercommunicator (MPI 3.1 §5.2.2): every rank
// exchanges blocks with ranks of the remote group (block_exchange.hpp).
//
// A rooted call has three roles: in the root's group the root passes
// MPI_ROOT and the others MPI_PROC_NULL (they take no part), and every
// rank of the other group passes the root's rank. The data moves straight
// between the two groups, one message per pair that has something to say:
// the root sends a broadcast to each remote rank, a gather's blocks come
// to the root from each; an all-to-all call sends to every remote rank.
// Reductions receive every remote rank's data and combine it in rank
// order, r0 op r1 op ... op r(n-1), as MPI orders non-commutative
// operations. MPI_IN_PLACE has no meaning here and is refused.
#include <mpi.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/block_exchange.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/reduce_ops.hpp"

namespace mpf::mpi::inter {
namespace {

using exchange::Blocks;
using exchange::check_type;
using exchange::null_array;
using exchange::equal_blocks;
using exchange::varying_blocks;

enum class Role { root, idle, member };

int check_root(const char* call, MPI_Comm comm, int root, Role* role) {
  const int n = comm_of(comm).peer_count();
  if (root == MPI_ROOT) {
    *role = Role::root;
  } else if (root == MPI_PROC_NULL) {
    *role = Role::idle;
  } else if (root >= 0 && root < n) {
    *role = Role::member;
  } else {
    return comm_error(call, comm, MPI_ERR_ROOT,
                      "invalid root " + std::to_string(root) +
                          " on an intercommunicator: in the root's group the root passes MPI_ROOT and the others "
                          "MPI_PROC_NULL, and the other group passes the root's rank (0.." +
                          std::to_string(n - 1) + ")");
  }
  return MPI_SUCCESS;
}

// Ranks 0..n-1 of the remote group.
std::vector<int> every_rank(const Communicator& c) {
  std::vector<int> ranks(static_cast<std::size_t>(c.peer_count()));
  std::iota(ranks.begin(), ranks.end(), 0);
  return ranks;
}

// The exchange of one call: block k of `send` to remote rank to[k], block
// k of `recv` from remote rank from[k]. Every rank of both groups runs one
// per call, even with nothing to move, so their counts stay in step.
int run(const char* call, MPI_Comm comm, MPI_Request* request, const Blocks& send, const std::vector<int>& to,
        const Blocks& recv, const std::vector<int>& from, std::function<void(exchange::Exchange&)> then = nullptr) {
  if (int rc = exchange::check_blocks(call, comm, "send", send, to)) return rc;
  if (int rc = exchange::check_blocks(call, comm, "receive", recv, from)) return rc;
  Communicator& c = comm_of(comm);
  std::uint32_t seq = 0;
  exchange::Exchange x = exchange::begin(call, request != nullptr, c, &seq);
  auto tag = [seq](std::size_t) { return exchange::tag_of(seq, 0); };
  // A reduction's blocks stay packed for `then` to combine.
  const bool keep_packed = then != nullptr;
  exchange::add_transfers(x, false, recv, from, c.remote, tag, keep_packed);
  exchange::add_transfers(x, true, send, to, c.remote, tag);
  x.then = std::move(then);
  return exchange::run(call, comm, std::move(x), request);
}

// A reduction's result: the received blocks (one per remote rank, in rank
// order, packed) combined from `offset` bytes on, `count` elements of
// `type` unpacked to `out`.
struct Combine {
  MPI_Op op;
  MPI_Datatype element;  // what the operation works on (check_op)
  int per_count;         // elements of `element` per element of `type`
  std::shared_ptr<const TypeInfo> type;
  void* out;
  int count;
  std::uint64_t offset = 0;

  void operator()(exchange::Exchange& x) const {
    const std::uint64_t bytes = static_cast<std::uint64_t>(count) * type->size;
    if (bytes == 0 || x.recvs.empty()) return;
    std::vector<std::byte> result(x.recvs.back().data + offset, x.recvs.back().data + offset + bytes);
    for (std::size_t i = x.recvs.size() - 1; i-- > 0;) {
      apply_op(op, x.recvs[i].data + offset, result.data(), count * per_count, element);
    }
    unpack(*type, result.data(), bytes, out);
  }
};

// The operation and the type of a reduction; *combine is ready but for
// `out`, `count` and `offset`.
int check_reduction(const char* call, MPI_Comm comm, MPI_Op op, MPI_Datatype datatype, int count, Combine* combine) {
  if (count < 0) return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  MPI_Datatype element = datatype;
  int per_count = 1;
  if (int rc = check_op(call, comm, op, datatype, 1, &element, &per_count)) return rc;
  if (static_cast<std::int64_t>(count) * per_count > INT32_MAX) {
    return comm_error(call, comm, MPI_ERR_COUNT,
                      std::to_string(count) + " elements of " + datatype_name(datatype) +
                          " are more basic elements than a reduction takes at once (INT_MAX)");
  }
  *combine = Combine{op, element, per_count, share_type(datatype), nullptr, count};
  return MPI_SUCCESS;
}

int refuse_in_place(const char* call, MPI_Comm comm) {
  return comm_error(call, comm, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
}

// Gather(v) (`to_root`) and Scatter(v): a member's one block (`mine`) goes
// to (comes from) the root, which has a block per remote rank (`theirs`,
// varying when counts or displs are given).
int rooted(const char* call, MPI_Comm comm, MPI_Request* request, int root, bool to_root, const void* mine, int count,
           MPI_Datatype type, const void* theirs, int their_count, const int* their_counts, const int* displs,
           MPI_Datatype their_type) {
  Role role;
  if (int rc = check_root(call, comm, root, &role)) return rc;
  const Communicator& c = comm_of(comm);
  if (role == Role::idle) return run(call, comm, request, {}, {}, {}, {});
  if (role == Role::member) {
    if (mine == MPI_IN_PLACE) return refuse_in_place(call, comm);
    if (int rc = check_type(call, comm, to_root ? "send" : "receive", type)) return rc;
    const Blocks one = equal_blocks(mine, 1, count, type, false);
    return to_root ? run(call, comm, request, one, {root}, {}, {}) : run(call, comm, request, {}, {}, one, {root});
  }
  if (int rc = check_type(call, comm, to_root ? "receive" : "send", their_type)) return rc;
  const auto n = static_cast<std::size_t>(c.peer_count());
  Blocks all = equal_blocks(theirs, n, their_count, their_type, false);
  if (their_counts != nullptr || displs != nullptr) {
    if (their_counts == nullptr || displs == nullptr) {
      return null_array(call, comm, to_root ? "recvcounts or displs" : "sendcounts or displs");
    }
    all = varying_blocks(theirs, n, their_counts, displs, their_type);
  }
  const std::vector<int> every = every_rank(c);
  return to_root ? run(call, comm, request, {}, {}, all, every) : run(call, comm, request, all, every, {}, {});
}

}  // namespace

int barrier(const char* call, MPI_Comm comm, MPI_Request* request) {
  const Communicator& c = comm_of(comm);
  const std::size_t n = static_cast<std::size_t>(c.peer_count());
  // An empty message to and from every remote rank: no rank leaves before
  // the whole other group has arrived.
  const Blocks none{nullptr, std::vector<int>(n, 0), std::vector<std::int64_t>(n, 0),
                    std::vector<MPI_Datatype>(n, MPI_BYTE)};
  const std::vector<int> all = every_rank(c);
  return run(call, comm, request, none, all, none, all);
}

int bcast(const char* call, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
          MPI_Request* request) {
  Role role;
  if (int rc = check_root(call, comm, root, &role)) return rc;
  const Communicator& c = comm_of(comm);
  if (role == Role::idle) return run(call, comm, request, {}, {}, {}, {});
  if (int rc = check_type(call, comm, "the", datatype)) return rc;
  if (role == Role::root) {
    const auto n = static_cast<std::size_t>(c.peer_count());
    return run(call, comm, request, equal_blocks(buffer, n, count, datatype, true), every_rank(c), {}, {});
  }
  return run(call, comm, request, {}, {}, equal_blocks(buffer, 1, count, datatype, false), {root});
}

int gather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
           MPI_Request* request) {
  return rooted(call, comm, request, root, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts, displs,
                recvtype);
}

int scatter(const char* call, const void* sendbuf, int sendcount, const int* sendcounts, const int* displs,
            MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            MPI_Request* request) {
  return rooted(call, comm, request, root, false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendcounts, displs,
                sendtype);
}

int allgather(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
              MPI_Request* request) {
  const Communicator& c = comm_of(comm);
  if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const auto n = static_cast<std::size_t>(c.peer_count());
  Blocks recv = equal_blocks(recvbuf, n, recvcount, recvtype, false);
  if (recvcounts != nullptr || displs != nullptr) {
    if (recvcounts == nullptr || displs == nullptr) return null_array(call, comm, "recvcounts or displs");
    recv = varying_blocks(recvbuf, n, recvcounts, displs, recvtype);
  }
  const std::vector<int> all = every_rank(c);
  return run(call, comm, request, equal_blocks(sendbuf, n, sendcount, sendtype, true), all, recv, all);
}

int alltoall(const char* call, const void* sendbuf, int sendcount, const int* sendcounts, const int* sdispls,
             MPI_Datatype sendtype, void* recvbuf, int recvcount, const int* recvcounts, const int* rdispls,
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Communicator& c = comm_of(comm);
  if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
  if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const auto n = static_cast<std::size_t>(c.peer_count());
  Blocks send = equal_blocks(sendbuf, n, sendcount, sendtype, false);
  Blocks recv = equal_blocks(recvbuf, n, recvcount, recvtype, false);
  if (sendcounts != nullptr || recvcounts != nullptr) {
    if (sendcounts == nullptr || sdispls == nullptr) return null_array(call, comm, "sendcounts or sdispls");
    if (recvcounts == nullptr || rdispls == nullptr) return null_array(call, comm, "recvcounts or rdispls");
    send = varying_blocks(sendbuf, n, sendcounts, sdispls, sendtype);
    recv = varying_blocks(recvbuf, n, recvcounts, rdispls, recvtype);
  }
  const std::vector<int> all = every_rank(c);
  return run(call, comm, request, send, all, recv, all);
}

int alltoallw(const char* call, const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  const Communicator& c = comm_of(comm);
  if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
  const auto n = static_cast<std::size_t>(c.peer_count());
  if (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr) {
    return null_array(call, comm, "sendcounts, sdispls or sendtypes");
  }
  if (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr) {
    return null_array(call, comm, "recvcounts, rdispls or recvtypes");
  }
  const Blocks send{sendbuf, {sendcounts, sendcounts + n}, {sdispls, sdispls + n}, {sendtypes, sendtypes + n}};
  const Blocks recv{recvbuf, {recvcounts, recvcounts + n}, {rdispls, rdispls + n}, {recvtypes, recvtypes + n}};
  const std::vector<int> all = every_rank(c);
  return run(call, comm, request, send, all, recv, all);
}

int reduce(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
           MPI_Comm comm, MPI_Request* request) {
  Role role;
  if (int rc = check_root(call, comm, root, &role)) return rc;
  const Communicator& c = comm_of(comm);
  if (role == Role::idle) return run(call, comm, request, {}, {}, {}, {});
  Combine combine{};
  if (int rc = check_reduction(call, comm, op, datatype, count, &combine)) return rc;
  if (role == Role::member) {
    if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
    return run(call, comm, request, equal_blocks(sendbuf, 1, count, datatype, false), {root}, {}, {});
  }
  combine.out = recvbuf;
  // The blocks land in staging (Combine reads them there), so recvbuf is
  // only their shape here.
  return run(call, comm, request, {}, {},
             equal_blocks(recvbuf, static_cast<std::size_t>(c.peer_count()), count, datatype, true), every_rank(c),
             combine);
}

int allreduce(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
  Combine combine{};
  if (int rc = check_reduction(call, comm, op, datatype, count, &combine)) return rc;
  combine.out = recvbuf;
  const Communicator& c = comm_of(comm);
  const auto n = static_cast<std::size_t>(c.peer_count());
  const std::vector<int> all = every_rank(c);
  return run(call, comm, request, equal_blocks(sendbuf, n, count, datatype, true), all,
             equal_blocks(recvbuf, n, count, datatype, true), all, combine);
}

int reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, int recvcount, const int* recvcounts,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (sendbuf == MPI_IN_PLACE) return refuse_in_place(call, comm);
  const Communicator& c = comm_of(comm);
  const auto n = static_cast<std::size_t>(c.peer_count());
  const std::vector<int> all = every_rank(c);
  if (recvcounts == nullptr) {
    // Reduce_scatter_block: this group provides size * recvcount elements,
    // and the other group's blocks split the same number evenly.
    Combine combine{};
    if (int rc = check_reduction(call, comm, op, datatype, recvcount, &combine)) return rc;
    combine.out = recvbuf;
    const std::int64_t total = static_cast<std::int64_t>(c.size()) * recvcount;
    if (total % static_cast<std::int64_t>(n) != 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        "this group provides " + std::to_string(total) + " elements, which do not split into " +
                            std::to_string(n) + " equal blocks for the remote group (both groups must provide the same "
                            "number of elements)");
    }
    const int theirs = static_cast<int>(total / static_cast<std::int64_t>(n));
    return run(call, comm, request, equal_blocks(sendbuf, n, theirs, datatype, false), all,
               equal_blocks(recvbuf, n, recvcount, datatype, true), all, combine);
  }
  // Reduce_scatter: the remote group does not know this group's counts, so
  // every rank sends its whole vector and keeps its own segment of what
  // arrives.
  std::int64_t total = 0, before = 0;
  for (int i = 0; i < c.size(); ++i) {
    if (recvcounts[i] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        "negative receive count " + std::to_string(recvcounts[i]) + " for rank " + std::to_string(i));
    }
    if (i < c.rank) before += recvcounts[i];
    total += recvcounts[i];
  }
  if (total > INT32_MAX) return comm_error(call, comm, MPI_ERR_COUNT, std::to_string(total) + " elements are too many");
  Combine combine{};
  if (int rc = check_reduction(call, comm, op, datatype, recvcounts[c.rank], &combine)) return rc;
  combine.out = recvbuf;
  combine.offset = static_cast<std::uint64_t>(before) * combine.type->size;
  const Blocks whole = equal_blocks(sendbuf, n, static_cast<int>(total), datatype, true);
  return run(call, comm, request, whole, all, equal_blocks(recvbuf, n, static_cast<int>(total), datatype, true), all,
             combine);
}

}  // namespace mpf::mpi::inter
