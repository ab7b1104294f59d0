// The collective chapter's blocking calls: arguments checked and reported
// as SPEC §3 asks, MPI_IN_PLACE resolved, datatypes turned into contiguous
// bytes (non-contiguous layouts are packed around the algorithm); the
// algorithms are in coll/ (over the collective slots, not point-to-point).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/pending.hpp"
#include "mpi/coll_launch.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/reduce_ops.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {
namespace {

using progress::CollKind;

// Returns MPI_SUCCESS, or the error class after the handler returned.
int check_comm(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  return MPI_SUCCESS;
}

int check_root(const char* call, MPI_Comm comm, int root) {
  const int size = comm_size(comm);
  if (root >= 0 && root < size) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_ROOT,
                    "invalid root " + std::to_string(root) + " in a communicator of size " + std::to_string(size));
}

// "send " for what = "send", nothing for "" (MPI_Bcast's one buffer).
std::string label(const char* what) { return *what == '\0' ? std::string() : std::string(what) + " "; }

// `what` names the argument ("send", "receive datatype for rank 3"); the
// text is only built for the error.
int check_type(const char* call, MPI_Comm comm, const char* what, MPI_Datatype type) {
  if (usable_type(type) != nullptr) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_TYPE, (*what == '\0' ? std::string() : std::string(what) + ": ") + datatype_problem(type));
}

// A buffer of `count` elements of `type`: bytes in *bytes. `what` names the
// argument ("send", "receive").
int check_buffer(const char* call, MPI_Comm comm, const char* what, const void* buf, int count, MPI_Datatype type,
                 std::uint64_t* bytes) {
  if (count < 0) {
    return comm_error(call, comm, MPI_ERR_COUNT, "negative " + label(what) + "count " + std::to_string(count));
  }
  const TypeInfo* t = usable_type(type);
  if (t == nullptr) return check_type(call, comm, what, type);
  *bytes = static_cast<std::uint64_t>(count) * t->size;
  // NULL is MPI_BOTTOM for a derived type with absolute addresses.
  if (*bytes > 0 && buf == nullptr && t->predefined) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      label(what) + "buffer is NULL for " + std::to_string(count) + " elements");
  }
  return MPI_SUCCESS;
}

// True when the type's data is usable in place (no staging): the
// algorithms then run on the user's buffers directly.
bool in_place_type(MPI_Datatype type) {
  const TypeInfo* t = usable_type(type);
  return t != nullptr && t->contiguous;
}

// Contiguous bytes for `count` elements of `type` at `buf`: the buffer
// itself, or a packed copy (filled from the buffer when `load`); finish()
// unpacks a packed copy back (a receive buffer). It keeps the type's layout
// alive: a program may free the datatype while a nonblocking collective
// still uses it.
class Staged {
 public:
  Staged(Staged&&) = default;
  Staged(const Staged&) = delete;
  Staged(const void* buf, std::uint64_t count, MPI_Datatype type, bool load)
      : user_(const_cast<void*>(buf)), type_(share_type(type)) {
    if (type_->contiguous) {
      data_ = static_cast<std::byte*>(user_);
      return;
    }
    packed_.resize(count * type_->size);
    if (load) pack(*type_, buf, count, packed_.data());
    data_ = packed_.data();
  }
  std::byte* data() { return data_; }
  void finish() {
    if (!type_->contiguous) unpack(*type_, packed_.data(), packed_.size(), user_);
  }

 private:
  void* user_;
  std::shared_ptr<const TypeInfo> type_;
  std::vector<std::byte> packed_;
  std::byte* data_ = nullptr;
};

// The blocks of a v-collective's buffer: block i is counts[i] elements of
// types[i] at byte displacement displs[i]. The algorithms see contiguous
// blocks (bytes, offsets): in place when every type is contiguous, else
// packed one after the other in a staging buffer. The layouts are kept
// alive for a nonblocking collective, like Staged's.
struct Blocks {
  std::vector<std::uint64_t> bytes, offsets;
  std::vector<int> counts;
  std::vector<std::int64_t> displs;
  std::vector<std::shared_ptr<const TypeInfo>> types;
  std::vector<std::byte> staging;
  bool staged = false;

  std::byte* base(const void* user) { return staged ? staging.data() : static_cast<std::byte*>(const_cast<void*>(user)); }
  // Packed offsets one block after the other, in a staging buffer.
  void stage() {
    staged = true;
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      offsets[i] = at;
      at += bytes[i];
    }
    staging.resize(at);
  }
};

int check_blocks(const char* call, MPI_Comm comm, const char* what, const void* buf, int n, const int counts[],
                 const std::vector<std::int64_t>& byte_displs, const std::vector<MPI_Datatype>& types, Blocks& out) {
  out.bytes.resize(static_cast<std::size_t>(n));
  out.offsets.resize(static_cast<std::size_t>(n));
  out.counts.assign(counts, counts + n);
  out.displs = byte_displs;
  out.types.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    if (counts[i] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        std::string("negative ") + what + " count " + std::to_string(counts[i]) + " for rank " +
                            std::to_string(i));
    }
    if (usable_type(types[iu]) == nullptr) {
      return check_type(call, comm, (std::string(what) + " datatype for rank " + std::to_string(i)).c_str(), types[iu]);
    }
    out.types[iu] = share_type(types[iu]);
    const TypeInfo& t = *out.types[iu];
    out.bytes[iu] = static_cast<std::uint64_t>(counts[i]) * t.size;
    if (out.bytes[iu] > 0 && buf == nullptr && t.predefined) {
      return comm_error(call, comm, MPI_ERR_BUFFER, std::string(what) + " buffer is NULL");
    }
    if (!t.contiguous) out.staged = true;
    out.offsets[iu] = static_cast<std::uint64_t>(byte_displs[iu]);
  }
  if (out.staged) out.stage();
  return MPI_SUCCESS;
}

// Block i of `buf` into the staging buffer, or all of them.
void pack_block(Blocks& b, const void* buf, std::size_t i) {
  pack(*b.types[i], static_cast<const std::byte*>(buf) + b.displs[i], static_cast<std::uint64_t>(b.counts[i]),
       b.staging.data() + b.offsets[i]);
}

void pack_blocks(Blocks& b, const void* buf) {
  if (!b.staged) return;
  for (std::size_t i = 0; i < b.bytes.size(); ++i) pack_block(b, buf, i);
}

void unpack_blocks(Blocks& b, void* buf) {
  if (!b.staged) return;
  for (std::size_t i = 0; i < b.bytes.size(); ++i) {
    unpack(*b.types[i], b.staging.data() + b.offsets[i], b.bytes[i], static_cast<std::byte*>(buf) + b.displs[i]);
  }
}

// Element displacements in units of `type`'s extent, as bytes.
std::vector<std::int64_t> scaled(const int displs[], int n, MPI_Datatype type) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  const std::int64_t extent = find_type(type)->extent();
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(displs[i]) * extent;
  return out;
}

int in_place_error(const char* call, MPI_Comm comm, const char* detail) {
  return comm_error(call, comm, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE ") + detail);
}

using mpf::coll::Combine;
using mpf::coll::Key;
using mpf::coll::Task;
using mpf::coll::finished;

// The nonblocking forms' request argument.
// This rank is the root of a rooted collective on a valid `comm` (on an
// intercommunicator: it passed MPI_ROOT).
bool rank_is_root(MPI_Comm comm, int root) {
  if (!comm_is_valid(comm)) return false;
  return comm_of(comm).inter ? root == MPI_ROOT : comm_rank(comm) == root;
}

int null_request(const char* call, MPI_Comm comm) {
  require_initialized(call);
  return comm_error(call, comm_is_valid(comm) ? comm : MPI_COMM_WORLD, MPI_ERR_REQUEST, "request argument is NULL");
}

// The operations: an algorithm's task with the staging around it. Each
// owns its staging buffers, so a nonblocking call can return at once.
Task bcast_op(const Communicator& c, Key key, Staged data, std::uint64_t bytes, int root) {
  Task t = coll::bcast_task(c, key, data.data(), bytes, root);
  co_await finished(t);
  if (c.rank != root) data.finish();
}

Task reduce_op(const Communicator& c, Key key, Staged in, Staged out, bool in_place, int elements, Combine combine,
                int root) {
  Task t = coll::reduce_task(c, key, in_place ? out.data() : in.data(), out.data(), elements, combine, root);
  co_await finished(t);
  if (root < 0 || c.rank == root) out.finish();
}

Task scan_op(const Communicator& c, Key key, Staged in, Staged out, bool in_place, int elements, Combine combine,
              bool exclusive) {
  Task t = coll::scan_task(c, key, in_place ? out.data() : in.data(), out.data(), elements, combine, exclusive);
  co_await finished(t);
  out.finish();
}

Task reduce_scatter_op(const Communicator& c, Key reduce_key, Key scatter_key, Staged in, Staged out, int elements,
                       Combine combine, std::uint64_t total, std::vector<std::uint64_t> bytes,
                       std::vector<std::uint64_t> offsets) {
  std::vector<std::byte> full(c.rank == 0 ? total : 0);
  Task r = coll::reduce_task(c, reduce_key, in.data(), full.data(), elements, combine, 0);
  co_await finished(r);
  const std::uint64_t mine = bytes[static_cast<std::size_t>(c.rank)];
  Task s = coll::scatterv_task(c, scatter_key, full.data(), std::move(bytes), std::move(offsets), out.data(), mine, 0);
  co_await finished(s);
  out.finish();
}

Task gatherv_op(const Communicator& c, Key key, Staged send, bool in_place, std::uint64_t send_bytes, void* recvbuf,
                Blocks recv, int root) {
  Task t = coll::gatherv_task(c, key, in_place ? nullptr : send.data(), send_bytes, recv.base(recvbuf), recv.bytes,
                              recv.offsets, root);
  co_await finished(t);
  if (c.rank == root) unpack_blocks(recv, recvbuf);
}

Task scatterv_op(const Communicator& c, Key key, const void* sendbuf, Blocks send, Staged recv, bool in_place,
                 std::uint64_t recv_bytes, int root) {
  Task t = coll::scatterv_task(c, key, send.base(sendbuf), send.bytes, send.offsets, in_place ? nullptr : recv.data(),
                               recv_bytes, root);
  co_await finished(t);
  if (!in_place) recv.finish();
}

// Allgatherv on the blocks as the algorithms see them (packed in rank
// order in a staging buffer when the gather and broadcast move them, or
// when a type is not contiguous), then unpacked.
Task allgatherv_op(const Communicator& c, Key gather_key, Key bcast_key, std::vector<std::byte> mine_copy,
                   const std::byte* mine, std::uint64_t send_bytes, void* recvbuf, Blocks recv) {
  if (mine_copy.size() > 0) mine = mine_copy.data();
  const std::uint64_t largest = *std::max_element(recv.bytes.begin(), recv.bytes.end());
  if (coll::allgather_packed(c, largest) && !recv.staged) recv.stage();
  Task t = coll::allgatherv_task(c, gather_key, bcast_key, mine, send_bytes, recv.base(recvbuf), recv.bytes,
                                 recv.offsets);
  co_await finished(t);
  unpack_blocks(recv, recvbuf);
}

Task alltoallw_op(const Communicator& c, Key key, const void* sendbuf, Blocks send, void* recvbuf, Blocks recv) {
  Task t = coll::alltoallv_task(c, key, send.base(sendbuf), send.bytes, send.offsets, recv.base(recvbuf), recv.bytes,
                                recv.offsets);
  co_await finished(t);
  unpack_blocks(recv, recvbuf);
}

// ---- argument checks, then launch -----------------------------------------

int barrier_impl(const char* call, MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), CollKind::barrier, request != nullptr);
  if (comm_of(comm).inter) return inter::barrier(call, comm, request);
  Communicator& c = comm_of(comm);
  const Key key = c.next_collective(coll::kBarrier, -1);
  if (request == nullptr && coll::barrier_by_steps(c, key, call)) return MPI_SUCCESS;
  return launch(call, comm, -1, coll::barrier_task(c, key), request);
}

int bcast_impl(const char* call, void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), CollKind::bcast, request != nullptr);
  if (comm_of(comm).inter) return inter::bcast(call, buffer, count, datatype, root, comm, request);
  if (int rc = check_root(call, comm, root)) return rc;
  if (int rc = check_buffer(call, comm, "", buffer, count, datatype, &bytes)) return rc;
  Communicator& c = comm_of(comm);
  const Key key = c.next_collective(coll::kBcast, root);
  if (in_place_type(datatype)) {
    if (request == nullptr && coll::bcast_by_steps(c, key, buffer, bytes, root, call)) return MPI_SUCCESS;
    return launch(call, comm, root, coll::bcast_task(c, key, buffer, bytes, root), request);
  }
  Staged data(buffer, static_cast<std::uint64_t>(count), datatype, c.rank == root);
  return launch(call, comm, root, bcast_op(c, key, std::move(data), bytes, root), request);
}

int reduce_impl(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), CollKind::reduce, request != nullptr);
  if (comm_of(comm).inter) return inter::reduce(call, sendbuf, recvbuf, count, datatype, op, root, comm, request);
  if (int rc = check_root(call, comm, root)) return rc;
  MPI_Datatype element = datatype;
  int elements = count;
  if (int rc = check_op(call, comm, op, datatype, count, &element, &elements)) return rc;
  const Combine combine = combine_of(op, element);
  Communicator& c = comm_of(comm);
  const bool is_root = c.rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return in_place_error(call, comm, "is for the root only");
  if (int rc = check_buffer(call, comm, "send", in_place ? recvbuf : sendbuf, count, datatype, &bytes)) return rc;
  if (is_root) {
    if (int rc = check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes)) return rc;
  }
  const Key key = c.next_collective(coll::kReduce, root);
  if (in_place_type(datatype)) {
    const void* send = in_place ? recvbuf : sendbuf;
    void* recv = is_root ? recvbuf : nullptr;
    if (request == nullptr && coll::reduce_by_steps(c, key, send, recv, elements, combine, root, call)) {
      return MPI_SUCCESS;
    }
    return launch(call, comm, root, coll::reduce_task(c, key, send, recv, elements, combine, root), request);
  }
  Staged in(in_place ? nullptr : sendbuf, static_cast<std::uint64_t>(in_place ? 0 : count), in_place ? MPI_BYTE : datatype,
            true);
  Staged out(is_root ? recvbuf : nullptr, static_cast<std::uint64_t>(is_root ? count : 0), is_root ? datatype : MPI_BYTE,
             in_place);
  return launch(call, comm, root, reduce_op(c, key, std::move(in), std::move(out), in_place, elements, combine, root),
                request);
}

// The reductions every rank gets a result of: kind 0 Allreduce, 1 Scan, 2 Exscan.
int all_reduction(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, int kind, MPI_Request* request) {
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  const CollKind operation = kind == 0 ? CollKind::allreduce : kind == 1 ? CollKind::scan : CollKind::exscan;
  const CollectiveScope scope(comm_of(comm), operation, request != nullptr);
  if (comm_of(comm).inter) {
    if (kind == 0) return inter::allreduce(call, sendbuf, recvbuf, count, datatype, op, comm, request);
    return comm_error(call, comm, MPI_ERR_COMM, "scans are not defined on intercommunicators (MPI 3.1 §5.11)");
  }
  MPI_Datatype element = datatype;
  int elements = count;
  if (int rc = check_op(call, comm, op, datatype, count, &element, &elements)) return rc;
  const Combine combine = combine_of(op, element);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    if (int rc = check_buffer(call, comm, "send", sendbuf, count, datatype, &bytes)) return rc;
  }
  if (int rc = check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes)) return rc;
  Communicator& c = comm_of(comm);
  if (kind == 0 && in_place_type(datatype)) {
    const Key key = c.next_collective(coll::kAllreduce, -1);
    const void* send = in_place ? recvbuf : sendbuf;
    if (request == nullptr && coll::reduce_by_steps(c, key, send, recvbuf, elements, combine, -1, call)) {
      return MPI_SUCCESS;
    }
    return launch(call, comm, -1,
                  coll::reduce_task(c, key, send, recvbuf, elements, combine, -1), request);
  }
  Staged out(recvbuf, static_cast<std::uint64_t>(count), datatype, in_place);
  Staged in(in_place ? nullptr : sendbuf, static_cast<std::uint64_t>(in_place ? 0 : count), in_place ? MPI_BYTE : datatype,
            true);
  if (kind == 0) {
    const Key key = c.next_collective(coll::kAllreduce, -1);
    return launch(call, comm, -1, reduce_op(c, key, std::move(in), std::move(out), in_place, elements, combine, -1),
                  request);
  }
  const Key key = c.next_collective(kind == 2 ? coll::kExscan : coll::kScan, -1);
  return launch(call, comm, -1,
                scan_op(c, key, std::move(in), std::move(out), in_place, elements, combine, kind == 2), request);
}

// A reduction of every rank's blocks to rank 0, then the blocks scattered.
int reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  Communicator& c = comm_of(comm);
  const int n = c.size();
  std::int64_t total_count = 0;
  for (int i = 0; i < n; ++i) {
    if (recvcounts[i] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        "negative receive count " + std::to_string(recvcounts[i]) + " for rank " + std::to_string(i));
    }
    total_count += recvcounts[i];
  }
  if (total_count > INT32_MAX) {
    return comm_error(call, comm, MPI_ERR_COUNT,
                      "the receive counts add up to " + std::to_string(total_count) + " elements, more than INT_MAX");
  }
  MPI_Datatype element = datatype;
  int elements = 0;
  if (int rc = check_op(call, comm, op, datatype, static_cast<int>(total_count), &element, &elements)) return rc;
  const Combine combine = combine_of(op, element);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::uint64_t total = 0, mine = 0;
  if (int rc = check_buffer(call, comm, "send", in_place ? recvbuf : sendbuf, static_cast<int>(total_count), datatype, &total)) return rc;
  if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcounts[c.rank], datatype, &mine)) return rc;
  const std::size_t size = find_type(datatype)->size;
  Staged in(in_place ? recvbuf : sendbuf, static_cast<std::uint64_t>(total_count), datatype, true);
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
  std::uint64_t at = 0;
  for (int i = 0; i < n; ++i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(recvcounts[i]) * size;
    offsets[static_cast<std::size_t>(i)] = at;
    at += bytes[static_cast<std::size_t>(i)];
  }
  Staged out(recvbuf, static_cast<std::uint64_t>(recvcounts[c.rank]), datatype, false);
  const Key reduce_key = c.next_collective(coll::kReduce, 0);
  const Key scatter_key = c.next_collective(coll::kScatterv, 0);
  return launch(call, comm, -1,
                reduce_scatter_op(c, reduce_key, scatter_key, std::move(in), std::move(out), elements, combine,
                                  total, std::move(bytes), std::move(offsets)),
                request);
}

int gatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const std::vector<std::int64_t>& displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_root(call, comm, root)) return rc;
  Communicator& c = comm_of(comm);
  const bool is_root = c.rank == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return in_place_error(call, comm, "is for the root only");
  std::uint64_t send_bytes = 0;
  if (!in_place) {
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
  }
  Blocks recv;
  const std::vector<MPI_Datatype> types(static_cast<std::size_t>(c.size()), recvtype);
  if (is_root) {
    if (recvcounts == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "receive counts array is NULL");
    if (int rc = check_blocks(call, comm, "receive", recvbuf, c.size(), recvcounts, displs, types, recv)) return rc;
    if (!in_place && send_bytes != recv.bytes[static_cast<std::size_t>(root)]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "the root sends " + std::to_string(send_bytes) + " bytes to itself but receives " +
                            std::to_string(recv.bytes[static_cast<std::size_t>(root)]));
    }
  }
  Staged send(in_place ? nullptr : sendbuf, static_cast<std::uint64_t>(in_place ? 0 : sendcount),
              in_place ? MPI_BYTE : sendtype, true);
  if (is_root && in_place && recv.staged) pack_block(recv, recvbuf, static_cast<std::size_t>(root));
  const Key key = c.next_collective(coll::kGatherv, root);
  return launch(call, comm, root, gatherv_op(c, key, std::move(send), in_place, send_bytes, recvbuf, std::move(recv), root),
                request);
}

int scatterv_impl(const char* call, const void* sendbuf, const int sendcounts[], const std::vector<std::int64_t>& displs,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  if (int rc = check_root(call, comm, root)) return rc;
  Communicator& c = comm_of(comm);
  const bool is_root = c.rank == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return in_place_error(call, comm, "is for the root only");
  std::uint64_t recv_bytes = 0;
  if (!in_place) {
    if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcount, recvtype, &recv_bytes)) return rc;
  }
  Blocks send;
  const std::vector<MPI_Datatype> types(static_cast<std::size_t>(c.size()), sendtype);
  if (is_root) {
    if (sendcounts == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "send counts array is NULL");
    if (int rc = check_blocks(call, comm, "send", sendbuf, c.size(), sendcounts, displs, types, send)) return rc;
    if (!in_place && recv_bytes < send.bytes[static_cast<std::size_t>(root)]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "the root sends " + std::to_string(send.bytes[static_cast<std::size_t>(root)]) +
                            " bytes to itself but receives only " + std::to_string(recv_bytes));
    }
    pack_blocks(send, sendbuf);
  }
  Staged recv(in_place ? nullptr : recvbuf, static_cast<std::uint64_t>(in_place ? 0 : recvcount),
              in_place ? MPI_BYTE : recvtype, false);
  const Key key = c.next_collective(coll::kScatterv, root);
  return launch(call, comm, root, scatterv_op(c, key, sendbuf, std::move(send), std::move(recv), in_place, recv_bytes, root),
                request);
}

int allgatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const std::vector<std::int64_t>& displs, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  Communicator& c = comm_of(comm);
  const int n = c.size();
  if (recvcounts == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "receive counts array is NULL");
  Blocks recv;
  const std::vector<MPI_Datatype> types(static_cast<std::size_t>(n), recvtype);
  if (int rc = check_blocks(call, comm, "receive", recvbuf, n, recvcounts, displs, types, recv)) return rc;
  const auto me = static_cast<std::size_t>(c.rank);
  std::vector<std::byte> mine;
  const std::byte* send = nullptr;
  std::uint64_t send_bytes = recv.bytes[me];
  if (sendbuf == MPI_IN_PLACE) {
    // Copied now: the receive buffer is overwritten before the gather ends.
    mine.resize(send_bytes);
    pack(*recv.types[me], static_cast<std::byte*>(recvbuf) + displs[me], static_cast<std::uint64_t>(recvcounts[c.rank]),
         mine.data());
  } else {
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
    if (send_bytes != recv.bytes[me]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "rank " + std::to_string(c.rank) + " sends " + std::to_string(send_bytes) +
                            " bytes but its receive count for itself is " + std::to_string(recv.bytes[me]) + " bytes");
    }
    send = contiguous_source(*find_type(sendtype), sendbuf, static_cast<std::uint64_t>(sendcount), mine);
  }
  const Key gather_key = c.next_collective(coll::kGatherv, 0);
  const Key bcast_key = c.next_collective(coll::kBcast, 0);
  return launch(call, comm, -1,
                allgatherv_op(c, gather_key, bcast_key, std::move(mine), send, send_bytes, recvbuf, std::move(recv)),
                request);
}

int alltoallw_impl(const char* call, const void* sendbuf, const int sendcounts[], const std::vector<std::int64_t>& sdispls,
                   const std::vector<MPI_Datatype>& sendtypes, void* recvbuf, const int recvcounts[],
                   const std::vector<std::int64_t>& rdispls, const std::vector<MPI_Datatype>& recvtypes, MPI_Comm comm,
                   MPI_Request* request) {
  Communicator& c = comm_of(comm);
  const int n = c.size();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Blocks recv, send;
  if (int rc = check_blocks(call, comm, "receive", recvbuf, n, recvcounts, rdispls, recvtypes, recv)) return rc;
  if (in_place) {
    // The data to send is the receive buffer as it is now: packed aside.
    send = recv;
    send.stage();
    pack_blocks(send, recvbuf);
  } else {
    if (int rc = check_blocks(call, comm, "send", sendbuf, n, sendcounts, sdispls, sendtypes, send)) return rc;
    pack_blocks(send, sendbuf);
  }
  const Key key = c.next_collective(coll::kAlltoallv, -1);
  return launch(call, comm, -1, alltoallw_op(c, key, sendbuf, std::move(send), recvbuf, std::move(recv)), request);
}

int null_arrays(const char* call, MPI_Comm comm) {
  return comm_error(call, comm, MPI_ERR_ARG, "a count, displacement or datatype array is NULL");
}

// A v-collective's blocks: `counts` (null: the plain call's equal blocks of
// `count`, in rank order, and `counts` is pointed at `equal`) and their
// displacements in bytes. MPI_SUCCESS, or the error class when only the
// displacements are null.
int blocks_in_bytes(const char* call, MPI_Comm comm, int n, int count, const int*& counts, const int* displs,
                    MPI_Datatype type, std::vector<int>& equal, std::vector<std::int64_t>& bytes_displs) {
  std::vector<int> places;
  if (counts == nullptr) {
    equal.assign(static_cast<std::size_t>(n), count);
    places.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) places[static_cast<std::size_t>(i)] = i * count;
    counts = equal.data();
    displs = places.data();
  } else if (displs == nullptr) {
    return null_arrays(call, comm);
  }
  bytes_displs = scaled(displs, n, type);
  return MPI_SUCCESS;
}

// ---- the MPI entry points' shared bodies (blocking: request == nullptr) -------

int gather_entry(const char* call, CollKind kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                 int root, MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::gather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts, displs, recvtype, root,
                         comm, request);
  }
  const int n = comm_size(comm);
  std::vector<int> counts;
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root && root >= 0 && root < n) {
    if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
    if (int rc = blocks_in_bytes(call, comm, n, recvcount, recvcounts, displs, recvtype, counts, bytes_displs)) {
      return rc;
    }
  }
  return gatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, bytes_displs, recvtype, root, comm,
                      request);
}

int scatter_entry(const char* call, CollKind kind, const void* sendbuf, int sendcount, const int* sendcounts,
                  const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::scatter(call, sendbuf, sendcount, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                          comm, request);
  }
  const int n = comm_size(comm);
  std::vector<int> counts;
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root && root >= 0 && root < n) {
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
    if (int rc = blocks_in_bytes(call, comm, n, sendcount, sendcounts, displs, sendtype, counts, bytes_displs)) {
      return rc;
    }
  }
  return scatterv_impl(call, sendbuf, sendcounts, bytes_displs, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request);
}

int allgather_entry(const char* call, CollKind kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                    void* recvbuf, int recvcount, const int* recvcounts, const int* displs, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts, displs, recvtype, comm,
                            request);
  }
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const int n = comm_size(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcounts == nullptr && recvcount >= 0 && in_place_type(recvtype) &&
      (in_place || (sendcount >= 0 && in_place_type(sendtype)))) {
    // MPI_Allgather on contiguous types: the algorithms work on the user's
    // buffers, block i at i * bytes, with no staging and no per-block
    // bookkeeping. Anything unusual (sizes that differ, a NULL buffer)
    // takes the general path, which reports it.
    const std::uint64_t bytes = static_cast<std::uint64_t>(recvcount) * find_type(recvtype)->size;
    const std::uint64_t send_bytes =
        in_place ? bytes : static_cast<std::uint64_t>(sendcount) * find_type(sendtype)->size;
    if (send_bytes == bytes && (bytes == 0 || (recvbuf != nullptr && (in_place || sendbuf != nullptr)))) {
      Communicator& c = comm_of(comm);
      auto* out = static_cast<std::byte*>(recvbuf);
      const void* send = in_place ? out + static_cast<std::uint64_t>(c.rank) * bytes : sendbuf;
      std::vector<std::uint64_t> each(static_cast<std::size_t>(n), bytes), places(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < places.size(); ++i) places[i] = i * bytes;
      const Key gather_key = c.next_collective(coll::kGatherv, 0);
      const Key bcast_key = c.next_collective(coll::kBcast, 0);
      return launch(call, comm, -1,
                    coll::allgatherv_task(c, gather_key, bcast_key, send, bytes, recvbuf, std::move(each),
                                          std::move(places)),
                    request);
    }
  }
  std::vector<int> counts;
  std::vector<std::int64_t> bytes_displs;
  if (int rc = blocks_in_bytes(call, comm, n, recvcount, recvcounts, displs, recvtype, counts, bytes_displs)) return rc;
  return allgatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, bytes_displs, recvtype, comm,
                         request);
}

// Alltoall and Alltoallv in the form of Alltoallw (byte displacements, a
// type per peer). `sendcounts` null: MPI_Alltoall's equal blocks.
int alltoall_entry(const char* call, CollKind kind, const void* sendbuf, int sendcount, const int* sendcounts,
                   const int* sdispls, MPI_Datatype sendtype, void* recvbuf, int recvcount, const int* recvcounts,
                   const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::alltoall(call, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf, recvcount, recvcounts,
                           rdispls, recvtype, comm, request);
  }
  const int n = comm_size(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const bool equal = recvcounts == nullptr;
  if (equal && !in_place && in_place_type(sendtype) && in_place_type(recvtype)) {
    // MPI_Alltoall on contiguous types: the algorithm works on the user's
    // buffers, blocks at i * bytes (a size mismatch takes the general path,
    // which reports it).
    std::uint64_t send_bytes = 0, recv_bytes = 0;
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
    if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcount, recvtype, &recv_bytes)) return rc;
    if (send_bytes == recv_bytes && (send_bytes == 0 || sendbuf != recvbuf)) {
      Communicator& c = comm_of(comm);
      const Key key = c.next_collective(coll::kAlltoallv, -1);
      if (request == nullptr && coll::alltoall_by_steps(c, key, sendbuf, recvbuf, send_bytes, call)) return MPI_SUCCESS;
      return launch(call, comm, -1, coll::alltoall_task(c, key, sendbuf, recvbuf, send_bytes), request);
    }
  }
  std::vector<int> sc, sd, rc_, rd;
  if (equal) {
    sc.assign(static_cast<std::size_t>(n), sendcount);
    rc_.assign(static_cast<std::size_t>(n), recvcount);
    sd.resize(static_cast<std::size_t>(n));
    rd.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      sd[static_cast<std::size_t>(i)] = i * sendcount;
      rd[static_cast<std::size_t>(i)] = i * recvcount;
    }
    sendcounts = sc.data();
    sdispls = sd.data();
    recvcounts = rc_.data();
    rdispls = rd.data();
  } else if (rdispls == nullptr || (!in_place && (sendcounts == nullptr || sdispls == nullptr))) {
    return null_arrays(call, comm);
  }
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  if (!in_place) {
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  }
  const std::vector<MPI_Datatype> st(static_cast<std::size_t>(n), sendtype), rt(static_cast<std::size_t>(n), recvtype);
  return alltoallw_impl(call, sendbuf, sendcounts, in_place ? std::vector<std::int64_t>() : scaled(sdispls, n, sendtype),
                        st, recvbuf, recvcounts, scaled(rdispls, n, recvtype), rt, comm, request);
}

int alltoallw_entry(const char* call, CollKind kind, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                            comm, request);
  }
  const auto n = static_cast<std::size_t>(comm_size(comm));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr ||
      (!in_place && (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr))) {
    return null_arrays(call, comm);
  }
  std::vector<std::int64_t> sd(n), rd(rdispls, rdispls + n);
  std::vector<MPI_Datatype> st(n), rt(recvtypes, recvtypes + n);
  if (!in_place) {
    sd.assign(sdispls, sdispls + n);
    st.assign(sendtypes, sendtypes + n);
  }
  return alltoallw_impl(call, sendbuf, sendcounts, sd, st, recvbuf, recvcounts, rd, rt, comm, request);
}

// `recvcounts` null: MPI_Reduce_scatter_block's equal blocks of `recvcount`.
int reduce_scatter_entry(const char* call, CollKind kind, const void* sendbuf, void* recvbuf, int recvcount,
                         const int* recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  if (int rc = check_comm(call, comm)) return rc;
  const CollectiveScope scope(comm_of(comm), kind, request != nullptr);
  if (comm_of(comm).inter) {
    return inter::reduce_scatter(call, sendbuf, recvbuf, recvcount, recvcounts, datatype, op, comm, request);
  }
  std::vector<int> counts;
  if (recvcounts == nullptr) {
    counts.assign(static_cast<std::size_t>(comm_size(comm)), recvcount);
    recvcounts = counts.data();
  }
  return reduce_scatter(call, sendbuf, recvbuf, recvcounts, datatype, op, comm, request);
}

}  // namespace

int barrier_as(const char* call, MPI_Comm comm) { return barrier_impl(call, comm, nullptr); }

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

// Blocking forms.
int PMPI_Barrier(MPI_Comm comm) { return barrier_impl("MPI_Barrier", comm, nullptr); }
int PMPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return bcast_impl("MPI_Bcast", buffer, count, datatype, root, comm, nullptr);
}
int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm) {
  return reduce_impl("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, nullptr);
}
int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, 0, nullptr);
}
int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 1, nullptr);
}
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 2, nullptr);
}
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm) {
  return reduce_scatter_entry("MPI_Reduce_scatter_block", CollKind::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                              nullptr, datatype, op, comm, nullptr);
}
int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm) {
  if (recvcounts == nullptr) return comm_error("MPI_Reduce_scatter", comm, MPI_ERR_ARG, "receive counts array is NULL");
  return reduce_scatter_entry("MPI_Reduce_scatter", CollKind::reduce_scatter, sendbuf, recvbuf, 0, recvcounts, datatype,
                              op, comm, nullptr);
}
int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather_entry("MPI_Gather", CollKind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                      nullptr, recvtype, root, comm, nullptr);
}
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (recvcounts == nullptr && rank_is_root(comm, root)) {
    return comm_error("MPI_Gatherv", comm, MPI_ERR_ARG, "receive counts array is NULL");
  }
  return gather_entry("MPI_Gatherv", CollKind::gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                      recvtype, root, comm, nullptr);
}
int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter_entry("MPI_Scatter", CollKind::scatter, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, nullptr);
}
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (sendcounts == nullptr && rank_is_root(comm, root)) {
    return comm_error("MPI_Scatterv", comm, MPI_ERR_ARG, "send counts array is NULL");
  }
  return scatter_entry("MPI_Scatterv", CollKind::scatterv, sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, nullptr);
}
int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_entry("MPI_Allgather", CollKind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         nullptr, nullptr, recvtype, comm, nullptr);
}
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (recvcounts == nullptr) return comm_error("MPI_Allgatherv", comm, MPI_ERR_ARG, "receive counts array is NULL");
  return allgather_entry("MPI_Allgatherv", CollKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, comm, nullptr);
}
int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_entry("MPI_Alltoall", CollKind::alltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                        recvcount, nullptr, nullptr, recvtype, comm, nullptr);
}
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (recvcounts == nullptr) return null_arrays("MPI_Alltoallv", comm);
  return alltoall_entry("MPI_Alltoallv", CollKind::alltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                        recvcounts, rdispls, recvtype, comm, nullptr);
}
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm) {
  return alltoallw_entry("MPI_Alltoallw", CollKind::alltoallw, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                         recvcounts, rdispls, recvtypes, comm, nullptr);
}

// Nonblocking forms: the same operations, kept in the request.
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ibarrier", comm);
  return barrier_impl("MPI_Ibarrier", comm, request);
}
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ibcast", comm);
  return bcast_impl("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}
int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ireduce", comm);
  return reduce_impl("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request);
}
int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iallreduce", comm);
  return all_reduction("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, 0, request);
}
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iscan", comm);
  return all_reduction("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, 1, request);
}
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iexscan", comm);
  return all_reduction("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, 2, request);
}
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ireduce_scatter_block", comm);
  return reduce_scatter_entry("MPI_Ireduce_scatter_block", CollKind::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                              nullptr, datatype, op, comm, request);
}
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ireduce_scatter", comm);
  if (recvcounts == nullptr) return comm_error("MPI_Ireduce_scatter", comm, MPI_ERR_ARG, "receive counts array is NULL");
  return reduce_scatter_entry("MPI_Ireduce_scatter", CollKind::reduce_scatter, sendbuf, recvbuf, 0, recvcounts,
                              datatype, op, comm, request);
}
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Igather", comm);
  return gather_entry("MPI_Igather", CollKind::gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                      nullptr, recvtype, root, comm, request);
}
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Igatherv", comm);
  if (recvcounts == nullptr && rank_is_root(comm, root)) {
    return comm_error("MPI_Igatherv", comm, MPI_ERR_ARG, "receive counts array is NULL");
  }
  return gather_entry("MPI_Igatherv", CollKind::gatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                      recvtype, root, comm, request);
}
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iscatter", comm);
  return scatter_entry("MPI_Iscatter", CollKind::scatter, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, request);
}
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iscatterv", comm);
  if (sendcounts == nullptr && rank_is_root(comm, root)) {
    return comm_error("MPI_Iscatterv", comm, MPI_ERR_ARG, "send counts array is NULL");
  }
  return scatter_entry("MPI_Iscatterv", CollKind::scatterv, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, request);
}
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iallgather", comm);
  return allgather_entry("MPI_Iallgather", CollKind::allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         nullptr, nullptr, recvtype, comm, request);
}
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Iallgatherv", comm);
  if (recvcounts == nullptr) return comm_error("MPI_Iallgatherv", comm, MPI_ERR_ARG, "receive counts array is NULL");
  return allgather_entry("MPI_Iallgatherv", CollKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, comm, request);
}
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ialltoall", comm);
  return alltoall_entry("MPI_Ialltoall", CollKind::alltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                        recvcount, nullptr, nullptr, recvtype, comm, request);
}
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ialltoallv", comm);
  if (recvcounts == nullptr) return null_arrays("MPI_Ialltoallv", comm);
  return alltoall_entry("MPI_Ialltoallv", CollKind::alltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                        recvcounts, rdispls, recvtype, comm, request);
}
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request* request) {
  if (request == nullptr) return null_request("MPI_Ialltoallw", comm);
  return alltoallw_entry("MPI_Ialltoallw", CollKind::alltoallw, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                         recvcounts, rdispls, recvtypes, comm, request);
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Exscan = PMPI_Exscan
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
#pragma weak MPI_Ibcast = PMPI_Ibcast
#pragma weak MPI_Ireduce = PMPI_Ireduce
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
#pragma weak MPI_Iscan = PMPI_Iscan
#pragma weak MPI_Iexscan = PMPI_Iexscan
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
#pragma weak MPI_Igather = PMPI_Igather
#pragma weak MPI_Igatherv = PMPI_Igatherv
#pragma weak MPI_Iscatter = PMPI_Iscatter
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
#pragma weak MPI_Iallgather = PMPI_Iallgather
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw

}  // extern "C"
