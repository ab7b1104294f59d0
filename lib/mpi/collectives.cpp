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

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/ops.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

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

int check_type(const char* call, MPI_Comm comm, const std::string& what, MPI_Datatype type) {
  const std::string problem = datatype_problem(type);
  if (problem.empty()) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_TYPE, (what.empty() ? "" : what + " ") + problem);
}

// A buffer of `count` elements of `type`: bytes in *bytes. `what` names the
// argument ("send", "receive").
int check_buffer(const char* call, MPI_Comm comm, const std::string& what, const void* buf, int count,
                 MPI_Datatype type, std::uint64_t* bytes) {
  if (count < 0) {
    return comm_error(call, comm, MPI_ERR_COUNT, "negative " + what + " count " + std::to_string(count));
  }
  if (int rc = check_type(call, comm, what, type)) return rc;
  *bytes = static_cast<std::uint64_t>(count) * find_type(type)->size;
  // NULL is MPI_BOTTOM for a derived type with absolute addresses.
  if (*bytes > 0 && buf == nullptr && find_type(type)->predefined) {
    return comm_error(call, comm, MPI_ERR_BUFFER, what + " buffer is NULL for " + std::to_string(count) + " elements");
  }
  return MPI_SUCCESS;
}

// Contiguous bytes for `count` elements of `type` at `buf`: the buffer
// itself, or a packed copy (filled from the buffer when `load`); finish()
// unpacks a packed copy back (a receive buffer).
class Staged {
 public:
  Staged(const void* buf, std::uint64_t count, MPI_Datatype type, bool load)
      : user_(const_cast<void*>(buf)), type_(find_type(type)) {
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
  const TypeInfo* type_;
  std::vector<std::byte> packed_;
  std::byte* data_ = nullptr;
};

// The blocks of a v-collective's buffer: block i is counts[i] elements of
// types[i] at byte displacement displs[i]. The algorithms see contiguous
// blocks: in place when every type is contiguous, else packed one after the
// other in a staging buffer.
struct Blocks {
  std::vector<std::uint64_t> bytes, offsets;
  std::vector<std::byte> staging;
  bool staged = false;

  std::byte* base(const void* user) { return staged ? staging.data() : static_cast<std::byte*>(const_cast<void*>(user)); }
};

int check_blocks(const char* call, MPI_Comm comm, const char* what, const void* buf, int n, const int counts[],
                 const std::vector<std::int64_t>& byte_displs, const std::vector<MPI_Datatype>& types, Blocks& out) {
  out.bytes.resize(static_cast<std::size_t>(n));
  out.offsets.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto iu = static_cast<std::size_t>(i);
    if (counts[i] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        std::string("negative ") + what + " count " + std::to_string(counts[i]) + " for rank " +
                            std::to_string(i));
    }
    if (int rc = check_type(call, comm, std::string(what) + " datatype for rank " + std::to_string(i) + ":", types[iu])) return rc;
    const TypeInfo& t = *find_type(types[iu]);
    out.bytes[iu] = static_cast<std::uint64_t>(counts[i]) * t.size;
    if (out.bytes[iu] > 0 && buf == nullptr && t.predefined) {
      return comm_error(call, comm, MPI_ERR_BUFFER, std::string(what) + " buffer is NULL");
    }
    if (!t.contiguous) out.staged = true;
    out.offsets[iu] = static_cast<std::uint64_t>(byte_displs[iu]);
  }
  if (out.staged) {
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < out.bytes.size(); ++i) {
      out.offsets[i] = at;
      at += out.bytes[i];
    }
    out.staging.resize(at);
  }
  return MPI_SUCCESS;
}

void pack_blocks(Blocks& b, const void* buf, const int counts[], const std::vector<std::int64_t>& byte_displs,
                 const std::vector<MPI_Datatype>& types) {
  if (!b.staged) return;
  for (std::size_t i = 0; i < b.bytes.size(); ++i) {
    pack(*find_type(types[i]), static_cast<const std::byte*>(buf) + byte_displs[i], static_cast<std::uint64_t>(counts[i]),
         b.staging.data() + b.offsets[i]);
  }
}

void unpack_blocks(Blocks& b, void* buf, const std::vector<std::int64_t>& byte_displs,
                   const std::vector<MPI_Datatype>& types, int skip = -1) {
  if (!b.staged) return;
  for (std::size_t i = 0; i < b.bytes.size(); ++i) {
    if (static_cast<int>(i) == skip) continue;
    unpack(*find_type(types[i]), b.staging.data() + b.offsets[i], b.bytes[i], static_cast<std::byte*>(buf) + byte_displs[i]);
  }
}

// Element displacements in units of `type`'s extent, as bytes.
std::vector<std::int64_t> scaled(const int displs[], int n, MPI_Datatype type) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  const std::int64_t extent = find_type(type)->extent();
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(displs[i]) * extent;
  return out;
}

// A reduction's operation and element type: predefined operations work on
// the basic type a derived type is made of; user operations get the
// program's own type, so it must be contiguous.
int check_op(const char* call, MPI_Comm comm, MPI_Op op, MPI_Datatype type, int count, MPI_Datatype* element,
             int* elements) {
  if (int rc = check_type(call, comm, "", type)) return rc;
  const TypeInfo& t = *find_type(type);
  *element = type;
  *elements = count;
  const bool predefined_op = op >= MPI_MAX && op <= MPI_NO_OP;
  if (!t.predefined && predefined_op) {
    if (t.basic == MPI_DATATYPE_NULL) {
      return comm_error(call, comm, MPI_ERR_TYPE,
                        datatype_name(type) + " mixes several predefined types; a predefined operation needs one");
    }
    *element = t.basic;
    *elements = static_cast<int>(static_cast<std::uint64_t>(count) * t.basic_count);
  } else if (!t.predefined && !t.contiguous) {
    return comm_error(call, comm, MPI_ERR_TYPE,
                      "user operations on a non-contiguous datatype (" + datatype_name(type) + ") are not supported");
  }
  const std::string problem = coll::op_problem(op, *element);
  return problem.empty() ? MPI_SUCCESS : comm_error(call, comm, MPI_ERR_OP, problem);
}

int in_place_error(const char* call, MPI_Comm comm, const char* detail) {
  return comm_error(call, comm, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE ") + detail);
}

// The reductions every rank gets a result of (Allreduce, Scan, Exscan).
int all_reduction(const char* call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm, int kind) {
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  MPI_Datatype element = datatype;
  int elements = count;
  if (int rc = check_op(call, comm, op, datatype, count, &element, &elements)) return rc;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) {
    if (int rc = check_buffer(call, comm, "send", sendbuf, count, datatype, &bytes)) return rc;
  }
  if (int rc = check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes)) return rc;
  Staged out(recvbuf, static_cast<std::uint64_t>(count), datatype, in_place);
  Staged in(in_place ? nullptr : sendbuf, static_cast<std::uint64_t>(in_place ? 0 : count), in_place ? MPI_BYTE : datatype,
            true);
  Communicator& c = comm_of(comm);
  if (kind == 0) {
    coll::reduce(c, in_place ? out.data() : in.data(), out.data(), elements, element, op, -1, call);
  } else {
    coll::scan(c, in_place ? out.data() : in.data(), out.data(), elements, element, op, kind == 2, call);
  }
  out.finish();
  return MPI_SUCCESS;
}

// A reduction of `count` elements to rank 0, then their blocks scattered.
int reduce_scatter(const char* call, const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm) {
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
  MPI_Datatype element = datatype;
  int elements = 0;
  if (int rc = check_op(call, comm, op, datatype, static_cast<int>(total_count), &element, &elements)) return rc;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::uint64_t total = 0, mine = 0;
  if (int rc = check_buffer(call, comm, "send", in_place ? recvbuf : sendbuf, static_cast<int>(total_count), datatype, &total)) return rc;
  if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcounts[c.rank], datatype, &mine)) return rc;
  const std::size_t size = find_type(datatype)->size;
  Staged in(in_place ? recvbuf : sendbuf, static_cast<std::uint64_t>(total_count), datatype, true);
  std::vector<std::byte> full(c.rank == 0 ? total : 0);
  coll::reduce(c, in.data(), full.data(), elements, element, op, 0, call);
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(n)), offsets(static_cast<std::size_t>(n));
  std::uint64_t at = 0;
  for (int i = 0; i < n; ++i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(recvcounts[i]) * size;
    offsets[static_cast<std::size_t>(i)] = at;
    at += bytes[static_cast<std::size_t>(i)];
  }
  Staged out(recvbuf, static_cast<std::uint64_t>(recvcounts[c.rank]), datatype, false);
  coll::scatterv(c, full.data(), bytes, offsets, out.data(), mine, 0, call);
  out.finish();
  return MPI_SUCCESS;
}

int gatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const std::vector<std::int64_t>& displs, MPI_Datatype recvtype, int root,
                 MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
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
  if (is_root && in_place && recv.staged) {
    const auto r = static_cast<std::size_t>(root);
    pack(*find_type(recvtype), static_cast<std::byte*>(recvbuf) + displs[r], static_cast<std::uint64_t>(recvcounts[root]),
         recv.staging.data() + recv.offsets[r]);
  }
  coll::gatherv(c, in_place ? nullptr : send.data(), send_bytes, recv.base(recvbuf), recv.bytes, recv.offsets, root, call);
  if (is_root) unpack_blocks(recv, recvbuf, displs, types);
  return MPI_SUCCESS;
}

int scatterv_impl(const char* call, const void* sendbuf, const int sendcounts[], const std::vector<std::int64_t>& displs,
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
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
    pack_blocks(send, sendbuf, sendcounts, displs, types);
  }
  Staged recv(in_place ? nullptr : recvbuf, static_cast<std::uint64_t>(in_place ? 0 : recvcount),
              in_place ? MPI_BYTE : recvtype, false);
  coll::scatterv(c, send.base(sendbuf), send.bytes, send.offsets, in_place ? nullptr : recv.data(), recv_bytes, root, call);
  if (!in_place) recv.finish();
  return MPI_SUCCESS;
}

// Allgatherv: the blocks gathered at rank 0, packed in rank order, then
// broadcast and placed.
int allgatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const std::vector<std::int64_t>& displs, MPI_Datatype recvtype,
                    MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
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
    send = contiguous_source(*find_type(recvtype), static_cast<std::byte*>(recvbuf) + displs[me],
                             static_cast<std::uint64_t>(recvcounts[c.rank]), mine);
  } else {
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
    if (send_bytes != recv.bytes[me]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "rank " + std::to_string(c.rank) + " sends " + std::to_string(send_bytes) +
                            " bytes but its receive count for itself is " + std::to_string(recv.bytes[me]) + " bytes");
    }
    send = contiguous_source(*find_type(sendtype), sendbuf, static_cast<std::uint64_t>(sendcount), mine);
  }
  std::vector<std::uint64_t> packed_displs(recv.bytes.size());
  std::exclusive_scan(recv.bytes.begin(), recv.bytes.end(), packed_displs.begin(), std::uint64_t{0});
  const std::uint64_t total = packed_displs.empty() ? 0 : packed_displs.back() + recv.bytes.back();
  std::vector<std::byte> packed(total);
  coll::gatherv(c, send, send_bytes, packed.data(), recv.bytes, packed_displs, 0, call);
  coll::bcast(c, packed.data(), total, 0, call);
  for (std::size_t i = 0; i < recv.bytes.size(); ++i) {
    unpack(*find_type(recvtype), packed.data() + packed_displs[i], recv.bytes[i], static_cast<std::byte*>(recvbuf) + displs[i]);
  }
  return MPI_SUCCESS;
}

int alltoallw_impl(const char* call, const void* sendbuf, const int sendcounts[], const std::vector<std::int64_t>& sdispls,
                   const std::vector<MPI_Datatype>& sendtypes, void* recvbuf, const int recvcounts[],
                   const std::vector<std::int64_t>& rdispls, const std::vector<MPI_Datatype>& recvtypes, MPI_Comm comm) {
  Communicator& c = comm_of(comm);
  const int n = c.size();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  Blocks recv, send;
  if (int rc = check_blocks(call, comm, "receive", recvbuf, n, recvcounts, rdispls, recvtypes, recv)) return rc;
  if (in_place) {
    // The data to send is the receive buffer as it is now: packed aside.
    send = recv;
    send.staged = true;
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < send.bytes.size(); ++i) {
      send.offsets[i] = at;
      at += send.bytes[i];
    }
    send.staging.resize(at);
    pack_blocks(send, recvbuf, recvcounts, rdispls, recvtypes);
  } else {
    if (int rc = check_blocks(call, comm, "send", sendbuf, n, sendcounts, sdispls, sendtypes, send)) return rc;
    pack_blocks(send, sendbuf, sendcounts, sdispls, sendtypes);
  }
  coll::alltoallv(c, send.base(sendbuf), send.bytes, send.offsets, recv.base(recvbuf), recv.bytes, recv.offsets, call);
  unpack_blocks(recv, recvbuf, rdispls, recvtypes);
  return MPI_SUCCESS;
}

int null_arrays(const char* call, MPI_Comm comm) {
  return comm_error(call, comm, MPI_ERR_ARG, "a count, displacement or datatype array is NULL");
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  if (int rc = check_comm("MPI_Barrier", comm)) return rc;
  coll::barrier(comm_of(comm), "MPI_Barrier");
  return MPI_SUCCESS;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* call = "MPI_Bcast";
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_root(call, comm, root)) return rc;
  if (int rc = check_buffer(call, comm, "", buffer, count, datatype, &bytes)) return rc;
  const bool is_root = comm_rank(comm) == root;
  Staged data(buffer, static_cast<std::uint64_t>(count), datatype, is_root);
  coll::bcast(comm_of(comm), data.data(), bytes, root, call);
  if (!is_root) data.finish();
  return MPI_SUCCESS;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  const char* call = "MPI_Reduce";
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_root(call, comm, root)) return rc;
  MPI_Datatype element = datatype;
  int elements = count;
  if (int rc = check_op(call, comm, op, datatype, count, &element, &elements)) return rc;
  const bool is_root = comm_rank(comm) == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root) return in_place_error(call, comm, "is for the root only");
  if (int rc = check_buffer(call, comm, "send", in_place ? recvbuf : sendbuf, count, datatype, &bytes)) return rc;
  if (is_root) {
    if (int rc = check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes)) return rc;
  }
  Staged in(in_place ? recvbuf : sendbuf, static_cast<std::uint64_t>(count), datatype, true);
  Staged out(is_root ? recvbuf : nullptr, static_cast<std::uint64_t>(is_root ? count : 0), is_root ? datatype : MPI_BYTE, false);
  coll::reduce(comm_of(comm), in.data(), out.data(), elements, element, op, root, call);
  if (is_root) out.finish();
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, 0);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 1);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return all_reduction("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 2);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  if (int rc = check_comm("MPI_Reduce_scatter_block", comm)) return rc;
  const std::vector<int> counts(static_cast<std::size_t>(comm_size(comm)), recvcount);
  return reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, counts.data(), datatype, op, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  if (int rc = check_comm("MPI_Reduce_scatter", comm)) return rc;
  if (recvcounts == nullptr) return comm_error("MPI_Reduce_scatter", comm, MPI_ERR_ARG, "receive counts array is NULL");
  return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gatherv";
  if (int rc = check_comm(call, comm)) return rc;
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root) {
    if (displs == nullptr) return null_arrays(call, comm);
    if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
    bytes_displs = scaled(displs, comm_size(comm), recvtype);
  }
  return gatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, bytes_displs, recvtype, root, comm);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gather";
  if (int rc = check_comm(call, comm)) return rc;
  const int n = comm_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(n), recvcount), displs(static_cast<std::size_t>(n));
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root) {
    if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
    for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * recvcount;
    bytes_displs = scaled(displs.data(), n, recvtype);
  }
  return gatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, counts.data(), bytes_displs, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatterv";
  if (int rc = check_comm(call, comm)) return rc;
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root) {
    if (displs == nullptr) return null_arrays(call, comm);
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
    bytes_displs = scaled(displs, comm_size(comm), sendtype);
  }
  return scatterv_impl(call, sendbuf, sendcounts, bytes_displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatter";
  if (int rc = check_comm(call, comm)) return rc;
  const int n = comm_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(n), sendcount), displs(static_cast<std::size_t>(n));
  std::vector<std::int64_t> bytes_displs;
  if (comm_rank(comm) == root) {
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
    for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * sendcount;
    bytes_displs = scaled(displs.data(), n, sendtype);
  }
  return scatterv_impl(call, sendbuf, counts.data(), bytes_displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgatherv";
  if (int rc = check_comm(call, comm)) return rc;
  if (displs == nullptr) return null_arrays(call, comm);
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  return allgatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                         scaled(displs, comm_size(comm), recvtype), recvtype, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgather";
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  const int n = comm_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(n), recvcount), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * recvcount;
  return allgatherv_impl(call, sendbuf, sendcount, sendtype, recvbuf, counts.data(), scaled(displs.data(), n, recvtype),
                         recvtype, comm);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  const char* call = "MPI_Alltoallw";
  if (int rc = check_comm(call, comm)) return rc;
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
  return alltoallw_impl(call, sendbuf, sendcounts, sd, st, recvbuf, recvcounts, rd, rt, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoallv";
  if (int rc = check_comm(call, comm)) return rc;
  const int n = comm_size(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcounts == nullptr || rdispls == nullptr || (!in_place && (sendcounts == nullptr || sdispls == nullptr))) {
    return null_arrays(call, comm);
  }
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  if (!in_place) {
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  }
  const std::vector<MPI_Datatype> st(static_cast<std::size_t>(n), sendtype), rt(static_cast<std::size_t>(n), recvtype);
  return alltoallw_impl(call, sendbuf, sendcounts, in_place ? std::vector<std::int64_t>() : scaled(sdispls, n, sendtype),
                        st, recvbuf, recvcounts, scaled(rdispls, n, recvtype), rt, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoall";
  if (int rc = check_comm(call, comm)) return rc;
  const int n = comm_size(comm);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int rc = check_type(call, comm, "receive", recvtype)) return rc;
  if (!in_place) {
    if (int rc = check_type(call, comm, "send", sendtype)) return rc;
  }
  std::vector<int> sc(static_cast<std::size_t>(n), sendcount), rc_(static_cast<std::size_t>(n), recvcount);
  std::vector<int> sd(static_cast<std::size_t>(n)), rd(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    sd[static_cast<std::size_t>(i)] = i * sendcount;
    rd[static_cast<std::size_t>(i)] = i * recvcount;
  }
  const std::vector<MPI_Datatype> st(static_cast<std::size_t>(n), sendtype), rt(static_cast<std::size_t>(n), recvtype);
  return alltoallw_impl(call, sendbuf, sc.data(), in_place ? std::vector<std::int64_t>() : scaled(sd.data(), n, sendtype),
                        st, recvbuf, rc_.data(), scaled(rd.data(), n, recvtype), rt, comm);
}

}  // extern "C"
