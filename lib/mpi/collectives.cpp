// The collective chapter's blocking calls: arguments checked and reported
// as SPEC §3 asks, MPI_IN_PLACE resolved, counts turned into bytes; the
// algorithms are in coll/ (over the collective slots, not point-to-point).
#include <mpi.h>

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

// A buffer of `count` elements of `type`: bytes in *bytes. `what` names the
// argument ("send", "receive").
int check_buffer(const char* call, MPI_Comm comm, const char* what, const void* buf, int count, MPI_Datatype type,
                 std::uint64_t* bytes) {
  if (count < 0) {
    return comm_error(call, comm, MPI_ERR_COUNT, std::string("negative ") + what + " count " + std::to_string(count));
  }
  const auto size = datatype_size(type);
  if (!size) return comm_error(call, comm, MPI_ERR_TYPE, std::string("invalid ") + what + " datatype " + datatype_name(type));
  *bytes = static_cast<std::uint64_t>(count) * *size;
  if (*bytes > 0 && buf == nullptr) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      std::string(what) + " buffer is NULL for " + std::to_string(count) + " elements");
  }
  return MPI_SUCCESS;
}

int check_vector(const char* call, MPI_Comm comm, const char* what, const int* counts, const int* displs, int n,
                 MPI_Datatype type, std::vector<std::uint64_t>& bytes, std::vector<std::uint64_t>& offsets) {
  if (counts == nullptr || displs == nullptr) {
    return comm_error(call, comm, MPI_ERR_ARG, std::string(what) + (counts == nullptr ? " counts" : " displacements") +
                                                   " array is NULL");
  }
  const auto size = datatype_size(type);
  if (!size) return comm_error(call, comm, MPI_ERR_TYPE, std::string("invalid ") + what + " datatype " + datatype_name(type));
  bytes.resize(static_cast<std::size_t>(n));
  offsets.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        std::string("negative ") + what + " count " + std::to_string(counts[i]) + " for rank " +
                            std::to_string(i));
    }
    bytes[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(counts[i]) * *size;
    offsets[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(static_cast<std::int64_t>(displs[i]) *
                                                                       static_cast<std::int64_t>(*size));
  }
  return MPI_SUCCESS;
}

int check_op(const char* call, MPI_Comm comm, MPI_Op op, MPI_Datatype type) {
  if (!datatype_size(type)) return comm_error(call, comm, MPI_ERR_TYPE, "invalid datatype " + datatype_name(type));
  const std::string problem = coll::op_problem(op, type);
  return problem.empty() ? MPI_SUCCESS : comm_error(call, comm, MPI_ERR_OP, problem);
}

// The checks of the reductions every rank gets a result of (Allreduce,
// Scan, Exscan); *send is the data to combine (the receive buffer when in place).
int check_all_reduction(const char* call, MPI_Comm comm, const void* sendbuf, void* recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, const void** send) {
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_op(call, comm, op, datatype)) return rc;
  *send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (int rc = check_buffer(call, comm, "send", *send, count, datatype, &bytes)) return rc;
  return check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes);
}

int in_place_error(const char* call, MPI_Comm comm, const char* detail) {
  return comm_error(call, comm, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE ") + detail);
}

std::vector<std::uint64_t> uniform(int n, std::uint64_t value) { return std::vector<std::uint64_t>(static_cast<std::size_t>(n), value); }
std::vector<std::uint64_t> strided(int n, std::uint64_t stride) {
  std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * stride;
  return v;
}

// Allgatherv: gather the blocks at rank 0, packed in rank order, then
// broadcast the packed blocks and place each one.
void allgather_blocks(Communicator& c, const void* send, std::uint64_t send_bytes, void* recv,
                      const std::vector<std::uint64_t>& bytes, const std::vector<std::uint64_t>& displs,
                      const char* call) {
  const std::vector<std::uint64_t> packed_displs = [&] {
    std::vector<std::uint64_t> d(bytes.size());
    std::exclusive_scan(bytes.begin(), bytes.end(), d.begin(), std::uint64_t{0});
    return d;
  }();
  const std::uint64_t total = packed_displs.empty() ? 0 : packed_displs.back() + bytes.back();
  std::vector<std::byte> packed(total);
  coll::gatherv(c, send, send_bytes, packed.data(), bytes, packed_displs, 0, call);
  coll::bcast(c, packed.data(), total, 0, call);
  auto* out = static_cast<std::byte*>(recv);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] > 0) std::memcpy(out + displs[i], packed.data() + packed_displs[i], bytes[i]);
  }
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
  coll::bcast(comm_of(comm), buffer, bytes, root, call);
  return MPI_SUCCESS;
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  const char* call = "MPI_Reduce";
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_root(call, comm, root)) return rc;
  if (int rc = check_op(call, comm, op, datatype)) return rc;
  const bool is_root = comm_rank(comm) == root;
  if (sendbuf == MPI_IN_PLACE && !is_root) return in_place_error(call, comm, "is for the root only");
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (int rc = check_buffer(call, comm, "send", send, count, datatype, &bytes)) return rc;
  if (is_root) {
    if (int rc = check_buffer(call, comm, "receive", recvbuf, count, datatype, &bytes)) return rc;
  }
  coll::reduce(comm_of(comm), send, recvbuf, count, datatype, op, root, call);
  return MPI_SUCCESS;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const void* send = nullptr;
  if (int rc = check_all_reduction("MPI_Allreduce", comm, sendbuf, recvbuf, count, datatype, op, &send)) return rc;
  coll::reduce(comm_of(comm), send, recvbuf, count, datatype, op, -1, "MPI_Allreduce");
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_block";
  std::uint64_t bytes = 0;
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_op(call, comm, op, datatype)) return rc;
  if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcount, datatype, &bytes)) return rc;
  Communicator& c = comm_of(comm);
  const int n = c.size();
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::uint64_t total = 0;
  if (int rc = check_buffer(call, comm, "send", send, recvcount * n, datatype, &total)) return rc;
  std::vector<std::byte> full(c.rank == 0 ? total : 0);
  coll::reduce(c, send, full.data(), recvcount * n, datatype, op, 0, call);
  coll::scatterv(c, full.data(), uniform(n, bytes), strided(n, bytes), recvbuf, bytes, 0, call);
  return MPI_SUCCESS;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter";
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_op(call, comm, op, datatype)) return rc;
  if (recvcounts == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "receive counts array is NULL");
  Communicator& c = comm_of(comm);
  const int n = c.size();
  std::vector<int> displs(static_cast<std::size_t>(n));
  std::int64_t total_count = 0;
  for (int i = 0; i < n; ++i) {
    displs[static_cast<std::size_t>(i)] = static_cast<int>(total_count);
    total_count += recvcounts[i];
  }
  std::vector<std::uint64_t> bytes, offsets;
  if (int rc = check_vector(call, comm, "receive", recvcounts, displs.data(), n, datatype, bytes, offsets)) return rc;
  const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::uint64_t total = 0;
  if (int rc = check_buffer(call, comm, "send", send, static_cast<int>(total_count), datatype, &total)) return rc;
  std::vector<std::byte> full(c.rank == 0 ? total : 0);
  coll::reduce(c, send, full.data(), static_cast<int>(total_count), datatype, op, 0, call);
  coll::scatterv(c, full.data(), bytes, offsets, recvbuf, bytes[static_cast<std::size_t>(c.rank)], 0, call);
  return MPI_SUCCESS;
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const void* send = nullptr;
  if (int rc = check_all_reduction("MPI_Scan", comm, sendbuf, recvbuf, count, datatype, op, &send)) return rc;
  coll::scan(comm_of(comm), send, recvbuf, count, datatype, op, false, "MPI_Scan");
  return MPI_SUCCESS;
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const void* send = nullptr;
  if (int rc = check_all_reduction("MPI_Exscan", comm, sendbuf, recvbuf, count, datatype, op, &send)) return rc;
  coll::scan(comm_of(comm), send, recvbuf, count, datatype, op, true, "MPI_Exscan");
  return MPI_SUCCESS;
}

static int gatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_root(call, comm, root)) return rc;
  Communicator& c = comm_of(comm);
  const bool is_root = c.rank == root;
  if (sendbuf == MPI_IN_PLACE && !is_root) return in_place_error(call, comm, "is for the root only");
  std::uint64_t send_bytes = 0;
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
  }
  std::vector<std::uint64_t> bytes, offsets;
  if (is_root) {
    if (int rc = check_vector(call, comm, "receive", recvcounts, displs, c.size(), recvtype, bytes, offsets)) return rc;
    if (sendbuf != MPI_IN_PLACE && send_bytes != bytes[static_cast<std::size_t>(root)]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "the root sends " + std::to_string(send_bytes) + " bytes to itself but receives " +
                            std::to_string(bytes[static_cast<std::size_t>(root)]));
    }
  }
  coll::gatherv(c, sendbuf == MPI_IN_PLACE ? nullptr : sendbuf, send_bytes, recvbuf, bytes, offsets, root, call);
  return MPI_SUCCESS;
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int rc = check_comm("MPI_Gather", comm)) return rc;
  const int n = comm_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(n), recvcount), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * recvcount;
  if (recvcount < 0 && comm_rank(comm) == root) {
    return comm_error("MPI_Gather", comm, MPI_ERR_COUNT, "negative receive count " + std::to_string(recvcount));
  }
  const int rc = gatherv_impl("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, comm);
  return rc;
}

static int scatterv_impl(const char* call, const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
  if (int rc = check_root(call, comm, root)) return rc;
  Communicator& c = comm_of(comm);
  const bool is_root = c.rank == root;
  if (recvbuf == MPI_IN_PLACE && !is_root) return in_place_error(call, comm, "is for the root only");
  std::uint64_t recv_bytes = 0;
  if (recvbuf != MPI_IN_PLACE) {
    if (int rc = check_buffer(call, comm, "receive", recvbuf, recvcount, recvtype, &recv_bytes)) return rc;
  }
  std::vector<std::uint64_t> bytes, offsets;
  if (is_root) {
    if (int rc = check_vector(call, comm, "send", sendcounts, displs, c.size(), sendtype, bytes, offsets)) return rc;
    if (recvbuf != MPI_IN_PLACE && recv_bytes < bytes[static_cast<std::size_t>(root)]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "the root sends " + std::to_string(bytes[static_cast<std::size_t>(root)]) +
                            " bytes to itself but receives only " + std::to_string(recv_bytes));
    }
  }
  coll::scatterv(c, sendbuf, bytes, offsets, recvbuf == MPI_IN_PLACE ? nullptr : recvbuf, recv_bytes, root, call);
  return MPI_SUCCESS;
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (int rc = check_comm("MPI_Scatter", comm)) return rc;
  const int n = comm_size(comm);
  if (sendcount < 0 && comm_rank(comm) == root) {
    return comm_error("MPI_Scatter", comm, MPI_ERR_COUNT, "negative send count " + std::to_string(sendcount));
  }
  std::vector<int> counts(static_cast<std::size_t>(n), sendcount), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * sendcount;
  return scatterv_impl("MPI_Scatter", sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, comm);
}

static int allgatherv_impl(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
  Communicator& c = comm_of(comm);
  std::vector<std::uint64_t> bytes, offsets;
  if (int rc = check_vector(call, comm, "receive", recvcounts, displs, c.size(), recvtype, bytes, offsets)) return rc;
  const auto me = static_cast<std::size_t>(c.rank);
  std::uint64_t send_bytes = bytes[me];
  const void* send = static_cast<const std::byte*>(recvbuf) + offsets[me];
  if (sendbuf != MPI_IN_PLACE) {
    if (int rc = check_buffer(call, comm, "send", sendbuf, sendcount, sendtype, &send_bytes)) return rc;
    send = sendbuf;
    if (send_bytes != bytes[me]) {
      return comm_error(call, comm, MPI_ERR_TRUNCATE,
                        "rank " + std::to_string(c.rank) + " sends " + std::to_string(send_bytes) +
                            " bytes but its receive count for itself is " + std::to_string(bytes[me]) + " bytes");
    }
  }
  allgather_blocks(c, send, send_bytes, recvbuf, bytes, offsets, call);
  return MPI_SUCCESS;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (int rc = check_comm("MPI_Allgather", comm)) return rc;
  if (recvcount < 0) {
    return comm_error("MPI_Allgather", comm, MPI_ERR_COUNT, "negative receive count " + std::to_string(recvcount));
  }
  const int n = comm_size(comm);
  std::vector<int> counts(static_cast<std::size_t>(n), recvcount), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = i * recvcount;
  return allgatherv_impl("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, comm);
}

static int alltoallw_impl(const char* call, const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
  Communicator& c = comm_of(comm);
  const auto n = static_cast<std::size_t>(c.size());
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (recvcounts == nullptr || rdispls == nullptr || recvtypes == nullptr ||
      (!in_place && (sendcounts == nullptr || sdispls == nullptr || sendtypes == nullptr))) {
    return comm_error(call, comm, MPI_ERR_ARG, "a count, displacement or datatype array is NULL");
  }
  std::vector<std::uint64_t> sbytes(n), soff(n), rbytes(n), roff(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t b = 0;
    const std::string peer = " for rank " + std::to_string(i);
    if (int rc = check_buffer(call, comm, ("receive" + peer).c_str(), recvbuf, recvcounts[i], recvtypes[i], &b)) return rc;
    rbytes[i] = b;
    roff[i] = static_cast<std::uint64_t>(rdispls[i]);
    if (!in_place) {
      if (int rc = check_buffer(call, comm, ("send" + peer).c_str(), sendbuf, sendcounts[i], sendtypes[i], &b)) return rc;
      sbytes[i] = b;
      soff[i] = static_cast<std::uint64_t>(sdispls[i]);
    }
  }
  // In place: the data to send is the receive buffer as it is now.
  std::vector<std::byte> copy;
  const void* send = sendbuf;
  if (in_place) {
    std::uint64_t end = 0;
    for (std::size_t i = 0; i < n; ++i) end = std::max(end, roff[i] + rbytes[i]);
    copy.assign(static_cast<const std::byte*>(recvbuf), static_cast<const std::byte*>(recvbuf) + end);
    send = copy.data();
    sbytes = rbytes;
    soff = roff;
  }
  coll::alltoallv(c, send, sbytes, soff, recvbuf, rbytes, roff, call);
  return MPI_SUCCESS;
}

static int alltoallv_impl(const char* call, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (int rc = check_comm(call, comm)) return rc;
  const int n = comm_size(comm);
  const auto send_size = datatype_size(sendtype);
  const auto recv_size = datatype_size(recvtype);
  if (!recv_size) return comm_error(call, comm, MPI_ERR_TYPE, "invalid receive datatype " + datatype_name(recvtype));
  if (sendbuf != MPI_IN_PLACE && !send_size) {
    return comm_error(call, comm, MPI_ERR_TYPE, "invalid send datatype " + datatype_name(sendtype));
  }
  if (recvcounts == nullptr || rdispls == nullptr || (sendbuf != MPI_IN_PLACE && (sendcounts == nullptr || sdispls == nullptr))) {
    return comm_error(call, comm, MPI_ERR_ARG, "a count or displacement array is NULL");
  }
  // Byte displacements and one datatype per peer: MPI_Alltoallw's form.
  std::vector<int> sd(static_cast<std::size_t>(n)), rd(static_cast<std::size_t>(n));
  std::vector<MPI_Datatype> st(static_cast<std::size_t>(n), sendtype), rt(static_cast<std::size_t>(n), recvtype);
  for (int i = 0; i < n; ++i) {
    rd[static_cast<std::size_t>(i)] = rdispls[i] * static_cast<int>(*recv_size);
    if (sendbuf != MPI_IN_PLACE) sd[static_cast<std::size_t>(i)] = sdispls[i] * static_cast<int>(*send_size);
  }
  return alltoallw_impl(call, sendbuf, sendcounts, sd.data(), st.data(), recvbuf, recvcounts, rd.data(), rt.data(), comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gatherv_impl("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatterv_impl("MPI_Scatterv", sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv_impl("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  return alltoallw_impl("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv_impl("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  if (int rc = check_comm("MPI_Alltoall", comm)) return rc;
  const int n = comm_size(comm);
  std::vector<int> sc(static_cast<std::size_t>(n), sendcount), rc_(static_cast<std::size_t>(n), recvcount);
  std::vector<int> sd(static_cast<std::size_t>(n)), rd(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    sd[static_cast<std::size_t>(i)] = i * sendcount;
    rd[static_cast<std::size_t>(i)] = i * recvcount;
  }
  return alltoallv_impl("MPI_Alltoall", sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc_.data(), rd.data(), recvtype, comm);
}

}  // extern "C"
