#include "mpi/block_exchange.hpp"

#include "coll/task.hpp"
#include "core/internal_p2p.hpp"
#include "core/runtime.hpp"
#include "mpi/coll_launch.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi::exchange {
namespace {

progress::Request* start(bool is_send, const Transfer& t, std::uint32_t context) {
  return core::start_internal(is_send, t.peer, context, t.tag, t.data, t.bytes, t.signature);
}

// What went wrong with a received block, in the words point-to-point uses;
// `what` names the call when its request reports it (MPI_Wait...), or is
// empty.
void record_error(coll::CollectiveError& error, const std::string& what, const Transfer& t,
                  const progress::Completion& st) {
  if (error.error_class != MPI_SUCCESS) return;  // the first is reported
  const std::string block = "receive block " + std::to_string(t.block);
  const std::string from = " from rank " + std::to_string(t.rank);
  if (st.error == progress::kErrorSignature) {
    error = {MPI_ERR_TYPE, what + "datatype mismatch: the data for " + block + from +
                               " was sent with another type signature (checked because datatype_check is on)"};
  } else if (st.error == progress::kErrorTransport) {
    error = {MPI_ERR_OTHER, what + "the data for " + block + from +
                                " could not be moved (the rank's error output says why)"};
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
    const progress::Completion st = recvs[i]->status;
    engine.free_request(recvs[i]);
    const Transfer& t = x.recvs[i];
    if (st.error != 0) {
      record_error(*x.error, x.what, t, st);
    } else if (t.layout && st.bytes > 0) {
      unpack(*t.layout, t.data, st.bytes, t.user);
    }
  }
  for (progress::Request* r : sends) engine.free_request(r);
  if (x.then && x.error->error_class == MPI_SUCCESS) x.then(x);
}

}  // namespace

Blocks equal_blocks(const void* buf, std::size_t n, int count, MPI_Datatype type, bool shared) {
  Blocks b{buf, std::vector<int>(n, count), std::vector<std::int64_t>(n), std::vector<MPI_Datatype>(n, type), shared};
  const std::int64_t stride = shared ? 0 : static_cast<std::int64_t>(count) * find_type(type)->extent();
  for (std::size_t k = 0; k < n; ++k) b.displs[k] = static_cast<std::int64_t>(k) * stride;
  return b;
}

Blocks varying_blocks(const void* buf, std::size_t n, const int counts[], const int displs[], MPI_Datatype type) {
  Blocks b{buf, {counts, counts + n}, std::vector<std::int64_t>(n), std::vector<MPI_Datatype>(n, type), false};
  const std::int64_t extent = find_type(type)->extent();
  for (std::size_t k = 0; k < n; ++k) b.displs[k] = static_cast<std::int64_t>(displs[k]) * extent;
  return b;
}

int check_type(const char* call, MPI_Comm comm, const char* what, MPI_Datatype type) {
  if (usable_type(type) != nullptr) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_TYPE, std::string(what) + " datatype: " + datatype_problem(type));
}

int null_array(const char* call, MPI_Comm comm, const char* what) {
  return comm_error(call, comm, MPI_ERR_ARG, std::string(what) + " array is NULL");
}

int check_blocks(const char* call, MPI_Comm comm, const char* what, const Blocks& b, const std::vector<int>& ranks) {
  if (b.buf == MPI_IN_PLACE && !ranks.empty()) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      std::string("MPI_IN_PLACE as the ") + what + " buffer (" +
                          (comm_of(comm).inter ? "collectives on an intercommunicator" : "neighbourhood collectives") +
                          " have no in-place form)");
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

Exchange begin(const char* call, bool nonblocking, Communicator& c, std::uint32_t* seq) {
  *seq = ++c.exchange_seq;
  Exchange x;
  x.what = nonblocking ? std::string(call) + ": " : std::string();
  x.context = c.context | kContextBit;
  return x;
}

void add_transfers(Exchange& x, bool is_send, const Blocks& b, const std::vector<int>& ranks,
                   const std::vector<std::uint32_t>& group, const std::function<std::int32_t(std::size_t)>& tag,
                   bool keep_packed) {
  std::vector<Transfer>& out = is_send ? x.sends : x.recvs;
  std::byte* packed_once = nullptr;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k] == MPI_PROC_NULL) continue;
    const TypeInfo& type = *find_type(b.types[k]);
    const auto count = static_cast<std::uint64_t>(b.counts[k]);
    auto* user = static_cast<std::byte*>(const_cast<void*>(b.buf)) + b.displs[k];
    Transfer t{static_cast<std::int32_t>(group[static_cast<std::size_t>(ranks[k])]),
               tag(k),
               user,
               count * type.size,
               checked_signature(type),
               ranks[k],
               k,
               nullptr,
               nullptr};
    if ((!type.contiguous || (keep_packed && !is_send)) && t.bytes > 0) {
      if (is_send && b.shared && packed_once != nullptr) {
        t.data = packed_once;
      } else {
        x.staging.emplace_back(t.bytes);
        t.data = x.staging.back().data();
        if (is_send) {
          pack(type, user, count, t.data);
          packed_once = t.data;
        } else if (!keep_packed) {
          t.layout = share_type(b.types[k]);
          t.user = user;
        }
      }
    }
    out.push_back(std::move(t));
  }
}

int run(const char* call, MPI_Comm comm, Exchange x, MPI_Request* request) {
  std::shared_ptr<coll::CollectiveError> error = x.error;
  if (request != nullptr) {
    return launch(call, comm, -1, exchange_task(std::move(x)), request, /*independent=*/true, std::move(error));
  }
  mpf::coll::Task task = exchange_task(std::move(x));
  core::Runtime& rt = core::Runtime::instance();
  task.run(rt.engine(), collective_wait(comm_of(comm), -1, call));
  rt.transport().flush_wakes();
  if (error->error_class != MPI_SUCCESS) return comm_error(call, comm, error->error_class, error->detail);
  return MPI_SUCCESS;
}

}  // namespace mpf::mpi::exchange
