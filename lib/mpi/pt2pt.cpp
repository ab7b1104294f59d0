// The point-to-point chapter: sends in every mode and form, receives,
// probes, matched probes, persistent requests, cancel and Request_free.
// Arguments are checked here and reported as SPEC §3 asks; the work is the
// engine's (lib/progress).
#include <mpi.h>

#include <climits>
#include <cstring>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/buffered.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/large_count.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

constinit RequestTable g_requests;

namespace {

using core::Runtime;
using progress::SendMode;

progress::Engine& engine() { return Runtime::instance().engine(); }

// Checks shared by every call: the communicator, count, datatype and buffer.
// Returns MPI_SUCCESS (with the type in *type, if asked), or the error class
// after the handler returned.
int check_data(const char* call, MPI_Comm comm, const void* buf, int count, MPI_Datatype datatype,
               std::uint64_t* bytes, const TypeInfo** type = nullptr) {
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (count < 0) return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) return comm_error(call, comm, MPI_ERR_TYPE, datatype_problem(datatype));
  if (type != nullptr) *type = t;
  *bytes = static_cast<std::uint64_t>(count) * t->size;
  // NULL is MPI_BOTTOM for a derived type with absolute addresses.
  if (*bytes > 0 && buf == nullptr && t->predefined) {
    return comm_error(call, comm, MPI_ERR_BUFFER, "buffer is NULL for " + std::to_string(count) + " elements");
  }
  return MPI_SUCCESS;
}

int check_peer(const char* call, MPI_Comm comm, int rank, bool is_source) {
  if (rank == MPI_PROC_NULL || (is_source && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  const Communicator& c = comm_of(comm);
  const int size = c.peer_count();
  if (rank < 0 || rank >= size) {
    return comm_error(call, comm, MPI_ERR_RANK,
                      std::string("invalid ") + (is_source ? "source" : "destination") + " rank " +
                          std::to_string(rank) + (c.inter ? " in a remote group of size " : " in a communicator of size ") +
                          std::to_string(size));
  }
  return MPI_SUCCESS;
}

int check_tag(const char* call, MPI_Comm comm, int tag, bool allow_any) {
  if (tag >= 0 || (allow_any && tag == MPI_ANY_TAG)) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_TAG,
                    "invalid tag " + std::to_string(tag) + " (tags are 0.." + std::to_string(INT_MAX) + ")");
}

int check_request_ptr(const char* call, MPI_Comm comm, const void* request) {
  if (request != nullptr) return MPI_SUCCESS;
  return comm_error(call, comm, MPI_ERR_REQUEST, "request argument is NULL");
}

// A send or receive as the engine sees it: contiguous bytes between this
// rank and a world rank, in a communicator's matching context.
struct Route {
  std::int32_t world;  // the peer's world rank, or -1 for MPI_ANY_SOURCE
  std::uint32_t context;
  std::uint64_t bytes;
  std::uint16_t signature;  // checked_signature() of the datatype
};

// Starts an engine request for `route` and returns it.
progress::Request* start_engine(bool is_send, const Route& route, int tag, const void* data, SendMode mode) {
  progress::Request* e = engine().new_request();
  e->peer = route.world;
  e->tag = tag;
  e->context = route.context;
  e->buffer = static_cast<std::byte*>(const_cast<void*>(data));
  e->bytes = route.bytes;
  e->signature = route.signature;
  e->mode = mode;
  if (is_send) {
    engine().start_send(e);
  } else {
    engine().start_recv(e);
  }
  return e;
}

// The common case of a blocking send or receive, recognised in one pass
// over its arguments: MPI initialised, a valid communicator, a peer in it
// (not MPI_PROC_NULL), a valid tag, a committed datatype used in place.
// Fills `route` and says true; anything else, every error included, says
// false and takes the general path (prepare()), which reports it.
bool direct_route(bool is_send, const void* buf, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                  Route& route) {
  const Runtime& rt = Runtime::instance();
  const Communicator* c = find_comm(comm);
  const TypeInfo* t = usable_type(datatype);
  if (!rt.joined(core::Api::mpi) || c == nullptr || t == nullptr || !t->contiguous || count < 0) return false;
  if (tag < 0 && (is_send || tag != MPI_ANY_TAG)) return false;
  const std::vector<std::uint32_t>& peers = c->peers();
  if (peer >= 0 && static_cast<std::size_t>(peer) < peers.size()) {
    route.world = static_cast<std::int32_t>(peers[static_cast<std::size_t>(peer)]);
  } else if (!is_send && peer == MPI_ANY_SOURCE) {
    route.world = -1;
  } else {
    return false;
  }
  route.bytes = static_cast<std::uint64_t>(count) * t->size;
  if (route.bytes > 0 && buf == nullptr) return false;
  route.context = c->context;
  route.signature = checked_signature(*t);
  return true;
}

// Starts the operation a (possibly persistent) request describes.
void start(MpiRequest& r) {
  r.active = true;
  if (r.proc_null) {
    r.fixed_status = progress::Completion{};
    r.fixed_status.source = MPI_PROC_NULL;
    r.fixed_status.tag = MPI_ANY_TAG;
    return;
  }
  const std::uint64_t bytes = r.bytes;
  if (r.buffered) {
    // The message is copied into the attached buffer and sent from there;
    // the request itself is complete once the copy is made.
    r.fixed_status = progress::Completion{};
    return;
  }
  const void* data = r.buffer;
  if (r.layout) {
    // Sends take a packed copy now (the standard lets the program reuse
    // nothing until completion, but packing at start keeps the engine to
    // contiguous bytes); receives land packed and are unpacked at completion.
    r.staging.resize(bytes);
    if (r.is_send) pack(*r.layout, r.buffer, static_cast<std::uint64_t>(r.count), r.staging.data());
    data = r.staging.data();
  }
  r.engine = start_engine(r.is_send, {to_world(r.comm, r.peer), comm_context(r.comm), bytes, r.signature}, r.tag,
                          data, r.mode);
}

// The operation a request stands for, as its completion and MPI_Start read it.
void describe(MpiRequest& r, const char* call, bool is_send, const void* buf, int count, MPI_Datatype datatype,
              int peer, int tag, MPI_Comm comm, SendMode mode, std::uint64_t bytes, std::uint16_t signature) {
  r.is_send = is_send;
  r.call = call;
  r.comm = comm;
  r.datatype = datatype;
  r.buffer = buf;
  r.count = count;
  r.peer = peer;
  r.tag = tag;
  r.mode = mode;
  r.bytes = bytes;
  r.signature = signature;
}

// Checks a send's or receive's arguments and describes the operation in `r`
// (not started). Returns MPI_SUCCESS or the error class.
int prepare(const char* call, bool is_send, const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
            MPI_Comm comm, SendMode mode, bool buffered, bool persistent, MpiRequest& r) {
  require_initialized(call);
  std::uint64_t bytes = 0;
  const TypeInfo* t = nullptr;
  if (int rc = check_data(call, comm, buf, count, datatype, &bytes, &t)) return rc;
  if (int rc = check_peer(call, comm, peer, !is_send)) return rc;
  if (int rc = check_tag(call, comm, tag, !is_send)) return rc;
  const TypeInfo& type = *t;
  if (buffered && !persistent && peer != MPI_PROC_NULL) {
    std::vector<std::byte> packed;
    const std::byte* data = contiguous_source(type, buf, static_cast<std::uint64_t>(count), packed);
    if (int rc = buffered_send(call, data, bytes, to_world(comm, peer), tag, comm, &r.buffered_copy)) return rc;
  }
  r.in_use = true;
  r.persistent = persistent;
  r.buffered = buffered;
  r.proc_null = peer == MPI_PROC_NULL;
  describe(r, call, is_send, buf, count, datatype, peer, tag, comm, mode, bytes, checked_signature(type));
  if (!type.contiguous) r.layout = share_type(datatype);
  return MPI_SUCCESS;
}

// Creates a request for a send or receive; `persistent` ones are not started.
int make_request(const char* call, bool is_send, const void* buf, int count, MPI_Datatype datatype, int peer,
                 int tag, MPI_Comm comm, SendMode mode, bool buffered, bool persistent, MPI_Request* request) {
  if (int rc = check_request_ptr(call, comm, request)) return rc;
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  if (int rc = prepare(call, is_send, buf, count, datatype, peer, tag, comm, mode, buffered, persistent, r)) {
    requests().remove(handle);
    return rc;
  }
  if (!persistent) start(r);
  *request = handle;
  return MPI_SUCCESS;
}

// The blocking call's engine request, when the call could not complete at
// once (blocking() below): started, waited for, finished.
[[gnu::noinline]] int blocking_request(const char* call, bool is_send, const Route& route, const void* buf, int count,
                                       MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, SendMode mode,
                                       MPI_Status* status) {
  progress::Request* e = start_engine(is_send, route, tag, buf, mode);
  if (!e->done()) {
    engine().wait_until([e] { return e->done(); }, p2p_wait(is_send, route.world, tag, route.context, call));
  }
  if (e->status.error == 0) [[likely]] {
    if (!is_send) received_status(e->status, comm, status);
    engine().free_request(e);
    return MPI_SUCCESS;
  }
  // Truncated, or a type mismatch (rare): the general finish names it,
  // from the request the general path would have made.
  MpiRequest r;
  prepare(call, is_send, buf, count, datatype, peer, tag, comm, mode, false, false, r);  // valid: cannot fail
  r.active = true;
  r.engine = e;
  return finish_operation(r, status, call, false);
}

// A blocking call the direct route cannot take (buffered sends,
// MPI_PROC_NULL, packed datatypes, errors), through an MpiRequest.
[[gnu::noinline]] int blocking_general(const char* call, bool is_send, const void* buf, int count,
                                       MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, SendMode mode,
                                       bool buffered, MPI_Status* status) {
  MpiRequest r;
  if (int rc = prepare(call, is_send, buf, count, datatype, peer, tag, comm, mode, buffered, false, r)) return rc;
  start(r);
  if (r.engine != nullptr && !r.engine->done()) {
    progress::Request* e = r.engine;
    engine().wait_until([e] { return e->done(); },
                        p2p_wait(is_send, to_world(comm, peer), tag, comm_context(comm), call));
  }
  return finish_operation(r, status, call, false);
}

// A blocking send or receive: the same operation as a request's, without a
// handle in the table. Inline in each MPI function, so that MPI_Send and
// MPI_Recv are a few checks and a call into the engine when the message
// can go or come at once; waiting and the general path are out of line.
[[gnu::always_inline]] inline int blocking(const char* call, bool is_send, const void* buf, int count,
                                           MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, SendMode mode,
                                           bool buffered, MPI_Status* status) {
  Route route;
  if (buffered || !direct_route(is_send, buf, count, datatype, peer, tag, comm, route)) [[unlikely]] {
    return blocking_general(call, is_send, buf, count, datatype, peer, tag, comm, mode, buffered, status);
  }
  // No MpiRequest: its fields, checks and table are what a ping-pong of
  // small messages spent most of its instructions on. A small standard
  // send needs no request at all: into the ring and done. Nor does a
  // receive from one rank whose message comes next in that rank's ring.
  if (is_send) {
    if (mode != SendMode::synchronous &&
        engine().try_send_now(static_cast<std::uint32_t>(route.world), tag, route.context, buf, route.bytes,
                              route.signature)) {
      return MPI_SUCCESS;
    }
  } else if (route.world >= 0) {
    progress::Completion received;
    if (engine().try_recv_now(static_cast<std::uint32_t>(route.world), tag, route.context, const_cast<void*>(buf),
                              route.bytes, route.signature, received)) {
      received_status(received, comm, status);
      return MPI_SUCCESS;
    }
  }
  return blocking_request(call, is_send, route, buf, count, datatype, peer, tag, comm, mode, status);
}

// A nonblocking send or receive that is neither persistent nor buffered:
// recognised in the one pass blocking() uses, and its request given only
// the fields its completion reads (prepare() and start() are for the
// rest).
[[gnu::always_inline]] inline int nonblocking(const char* call, bool is_send, const void* buf, int count,
                                              MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                                              SendMode mode, MPI_Request* request) {
  Route route;
  if (request == nullptr || !direct_route(is_send, buf, count, datatype, peer, tag, comm, route)) [[unlikely]] {
    return make_request(call, is_send, buf, count, datatype, peer, tag, comm, mode, false, false, request);
  }
  MpiRequest& r = requests().add(request);
  r.active = true;
  r.plain = true;
  describe(r, call, is_send, buf, count, datatype, peer, tag, comm, mode, route.bytes, route.signature);
  // Always an engine request, even for a send that could go out at once
  // without one: MPI_Cancel of the send needs it to name the message.
  r.engine = start_engine(is_send, route, tag, buf, mode);
  return MPI_SUCCESS;
}

// A status for a message found by a probe.
void probe_status(MPI_Comm comm, const match::UnexpectedMessage& m, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = from_world(comm, static_cast<std::int32_t>(m.source));
  status->MPI_TAG = m.tag;
  status->mpf_bytes = static_cast<MPI_Count>(m.bytes);
  status->mpf_cancelled = 0;
}

// Matched-probe messages (MPI_Message handles): index + 1 into this table.
struct Claimed {
  match::UnexpectedMessage* message;
  MPI_Comm comm;
};
std::vector<Claimed> g_messages;
std::vector<std::size_t> g_free_messages;

MPI_Message remember(match::UnexpectedMessage* m, MPI_Comm comm) {
  std::size_t slot;
  if (!g_free_messages.empty()) {
    slot = g_free_messages.back();
    g_free_messages.pop_back();
    g_messages[slot] = {m, comm};
  } else {
    slot = g_messages.size();
    g_messages.push_back({m, comm});
  }
  return static_cast<MPI_Message>(slot + 1);
}

int probe_args(const char* call, int source, int tag, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (int rc = check_peer(call, comm, source, true)) return rc;
  return check_tag(call, comm, tag, true);
}

int do_mprobe(const char* call, int source, int tag, MPI_Comm comm, bool blocking_probe, int* flag,
              MPI_Message* message, MPI_Status* status) {
  if (int rc = probe_args(call, source, tag, comm)) return rc;
  if (source == MPI_PROC_NULL) {
    if (flag != nullptr) *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  const std::int32_t world = to_world(comm, source);
  const std::uint32_t context = comm_context(comm);
  match::UnexpectedMessage* m = nullptr;
  if (blocking_probe) {
    engine().wait_until([&] { return (m = engine().claim(world, tag, context)) != nullptr; },
                        p2p_wait(false, world, tag, context, call));
  } else {
    engine().progress();
    m = engine().claim(world, tag, context);
    *flag = m != nullptr ? 1 : 0;
    if (m == nullptr) return MPI_SUCCESS;
  }
  probe_status(comm, *m, status);
  *message = remember(m, comm);
  return MPI_SUCCESS;
}

int do_mrecv(const char* call, void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
             MPI_Request* request) {
  require_initialized(call);
  if (message == nullptr || *message == MPI_MESSAGE_NULL) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST, "message is MPI_MESSAGE_NULL");
  }
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    return make_request(call, false, buf, count, datatype, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF,
                        SendMode::standard, false, false, request);
  }
  const auto slot = static_cast<std::size_t>(*message) - 1;
  if (*message < 0 || slot >= g_messages.size() || g_messages[slot].message == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST, "invalid message handle " + std::to_string(*message));
  }
  const Claimed claimed = g_messages[slot];
  std::uint64_t bytes = 0;
  const TypeInfo* type = nullptr;
  if (int rc = check_data(call, claimed.comm, buf, count, datatype, &bytes, &type)) return rc;
  g_messages[slot].message = nullptr;
  g_free_messages.push_back(slot);
  *message = MPI_MESSAGE_NULL;

  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  r.call = call;
  r.comm = claimed.comm;
  r.datatype = datatype;
  r.buffer = buf;
  r.count = count;
  r.peer = from_world(claimed.comm, static_cast<std::int32_t>(claimed.message->source));
  r.tag = claimed.message->tag;
  r.active = true;
  r.bytes = bytes;
  progress::Request* e = engine().new_request();
  e->buffer = static_cast<std::byte*>(buf);
  if (!type->contiguous) {
    r.layout = share_type(datatype);
    r.staging.resize(bytes);
    e->buffer = r.staging.data();
  }
  e->bytes = bytes;
  e->signature = checked_signature(*type);
  e->context = comm_context(claimed.comm);
  r.engine = e;
  engine().receive_claimed(e, claimed.message);
  *request = handle;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;
using mpf::progress::SendMode;

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return blocking("MPI_Send", true, buf, count, datatype, dest, tag, comm, SendMode::standard, false,
                  MPI_STATUS_IGNORE);
}
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return blocking("MPI_Ssend", true, buf, count, datatype, dest, tag, comm, SendMode::synchronous, false,
                  MPI_STATUS_IGNORE);
}
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return blocking("MPI_Bsend", true, buf, count, datatype, dest, tag, comm, SendMode::standard, true,
                  MPI_STATUS_IGNORE);
}
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  // A ready send may assume the receive is posted; sending it as a standard
  // send is always correct.
  return blocking("MPI_Rsend", true, buf, count, datatype, dest, tag, comm, SendMode::ready, false,
                  MPI_STATUS_IGNORE);
}

int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonblocking("MPI_Isend", true, buf, count, datatype, dest, tag, comm, SendMode::standard, request);
}
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return nonblocking("MPI_Issend", true, buf, count, datatype, dest, tag, comm, SendMode::synchronous, request);
}
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return make_request("MPI_Ibsend", true, buf, count, datatype, dest, tag, comm, SendMode::standard, true, false,
                      request);
}
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  return nonblocking("MPI_Irsend", true, buf, count, datatype, dest, tag, comm, SendMode::ready, request);
}

int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_request("MPI_Send_init", true, buf, count, datatype, dest, tag, comm, SendMode::standard, false,
                      true, request);
}
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_request("MPI_Ssend_init", true, buf, count, datatype, dest, tag, comm, SendMode::synchronous, false,
                      true, request);
}
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_request("MPI_Bsend_init", true, buf, count, datatype, dest, tag, comm, SendMode::standard, true,
                      true, request);
}
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  return make_request("MPI_Rsend_init", true, buf, count, datatype, dest, tag, comm, SendMode::ready, false, true,
                      request);
}

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return blocking("MPI_Recv", false, buf, count, datatype, source, tag, comm, SendMode::standard, false, status);
}
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return nonblocking("MPI_Irecv", false, buf, count, datatype, source, tag, comm, SendMode::standard, request);
}
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return make_request("MPI_Recv_init", false, buf, count, datatype, source, tag, comm, SendMode::standard, false,
                      true, request);
}

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (int rc = make_request("MPI_Sendrecv", false, recvbuf, recvcount, recvtype, source, recvtag, comm,
                            SendMode::standard, false, false, &requests[0])) {
    return rc;
  }
  if (int rc = make_request("MPI_Sendrecv", true, sendbuf, sendcount, sendtype, dest, sendtag, comm,
                            SendMode::standard, false, false, &requests[1])) {
    return rc;
  }
  for (MPI_Request handle : requests) {
    MpiRequest& r = *mpf::mpi::requests().get(handle);
    if (r.engine == nullptr) continue;
    mpf::progress::Request* e = r.engine;
    mpf::core::Runtime::instance().engine().wait_until(
        [e] { return e->done(); },
        mpf::mpi::p2p_wait(r.is_send, to_world(comm, r.peer), r.tag, comm_context(comm), "MPI_Sendrecv"));
  }
  const int send_rc = finish_request(&requests[1], MPI_STATUS_IGNORE, "MPI_Sendrecv", false);
  const int recv_rc = finish_request(&requests[0], status, "MPI_Sendrecv", false);
  return recv_rc != MPI_SUCCESS ? recv_rc : send_rc;
}

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status* status) {
  require_initialized("MPI_Sendrecv_replace");
  std::uint64_t bytes = 0;
  const TypeInfo* type = nullptr;
  if (int rc = check_data("MPI_Sendrecv_replace", comm, buf, count, datatype, &bytes, &type)) return rc;
  // The outgoing message is packed aside so the same buffer can receive.
  std::vector<std::byte> outgoing(bytes);
  pack(*type, buf, static_cast<std::uint64_t>(count), outgoing.data());
  // More than INT_MAX packed bytes go as one element of a byte type that long.
  mpf::mpi::large::Counted packed;
  if (int rc = packed.describe("MPI_Sendrecv_replace", comm, "", outgoing.data(), static_cast<MPI_Count>(bytes),
                               MPI_BYTE)) {
    return rc;
  }
  return PMPI_Sendrecv(outgoing.data(), packed.count(), packed.type(), dest, sendtag, buf, count, datatype, source,
                      recvtag, comm, status);
}

// MPI_Isendrecv (MPI-4.0): one request for a receive and a send, done when
// both are; its status is the receive's. `outgoing` holds the data to
// send when the caller's buffer cannot be used as it is (the receive
// overwrites it: MPI_Isendrecv_replace), sent as bytes.
static int isendrecv(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                     std::vector<std::byte>* outgoing, MPI_Request* request) {
  if (int rc = check_request_ptr(call, comm, request)) return rc;
  MpiRequest send;
  mpf::mpi::large::Counted packed;  // more than INT_MAX bytes: one element of a byte type that long
  if (outgoing != nullptr) {
    if (int rc = packed.describe(call, comm, "", outgoing->data(), static_cast<MPI_Count>(outgoing->size()), MPI_BYTE)) {
      return rc;
    }
    sendbuf = outgoing->data();
    sendcount = packed.count();
    sendtype = packed.type();
  }
  if (int rc = prepare(call, true, sendbuf, sendcount, sendtype, dest, sendtag, comm, SendMode::standard, false, true,
                       send)) {
    return rc;
  }
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  if (int rc = prepare(call, false, recvbuf, recvcount, recvtype, source, recvtag, comm, SendMode::standard, false,
                       false, r)) {
    requests().remove(handle);
    return rc;
  }
  start(r);
  if (outgoing != nullptr) r.outgoing = std::move(*outgoing);  // the heap block, and so send.buffer, stays put
  start(send);
  r.send_half = send.engine;
  if (!send.staging.empty()) r.outgoing = std::move(send.staging);  // the packed copy the send reads
  *request = handle;
  return MPI_SUCCESS;
}

int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  require_initialized("MPI_Isendrecv");
  return isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
                   recvtag, comm, nullptr, request);
}

int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Isendrecv_replace";
  require_initialized(call);
  std::uint64_t bytes = 0;
  const TypeInfo* type = nullptr;
  if (int rc = check_data(call, comm, buf, count, datatype, &bytes, &type)) return rc;
  // The outgoing message is packed aside so the same buffer can receive.
  std::vector<std::byte> outgoing(bytes);
  pack(*type, buf, static_cast<std::uint64_t>(count), outgoing.data());
  return isendrecv(call, nullptr, 0, MPI_BYTE, dest, sendtag, buf, count, datatype, source, recvtag, comm, &outgoing,
                   request);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (int rc = probe_args("MPI_Probe", source, tag, comm)) return rc;
  if (source == MPI_PROC_NULL) {
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  auto& eng = mpf::core::Runtime::instance().engine();
  const std::int32_t world = to_world(comm, source);
  const mpf::match::UnexpectedMessage* m = nullptr;
  eng.wait_until([&] { return (m = eng.unexpected().find(world, tag, comm_context(comm))) != nullptr; },
                 mpf::mpi::p2p_wait(false, world, tag, comm_context(comm), "MPI_Probe"));
  probe_status(comm, *m, status);
  return MPI_SUCCESS;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  if (int rc = probe_args("MPI_Iprobe", source, tag, comm)) return rc;
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    proc_null_status(status);
    return MPI_SUCCESS;
  }
  const auto* m =
      mpf::core::Runtime::instance().engine().probe(to_world(comm, source), tag, comm_context(comm));
  *flag = m != nullptr ? 1 : 0;
  if (m != nullptr) probe_status(comm, *m, status);
  return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return do_mprobe("MPI_Mprobe", source, tag, comm, true, nullptr, message, status);
}

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  return do_mprobe("MPI_Improbe", source, tag, comm, false, flag, message, status);
}

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  MPI_Request request = MPI_REQUEST_NULL;
  if (int rc = do_mrecv("MPI_Mrecv", buf, count, datatype, message, &request)) return rc;
  return PMPI_Wait(&request, status);
}

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return do_mrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

int PMPI_Start(MPI_Request* request) {
  require_initialized("MPI_Start");
  MpiRequest* r = request != nullptr ? mpf::mpi::requests().get(*request) : nullptr;
  if (r == nullptr || !r->persistent) {
    return comm_error("MPI_Start", MPI_COMM_WORLD, MPI_ERR_REQUEST,
                      "request " + std::to_string(request != nullptr ? *request : 0) + " is not a persistent request");
  }
  if (r->active) {
    return comm_error("MPI_Start", r->comm, MPI_ERR_REQUEST, "persistent request is already active");
  }
  if (r->persistent_coll) return mpf::mpi::start_persistent_collective(*request);
  if (r->buffered && !r->proc_null) {
    std::vector<std::byte> packed;
    const std::byte* data = r->layout ? contiguous_source(*r->layout, r->buffer, static_cast<std::uint64_t>(r->count), packed)
                                      : static_cast<const std::byte*>(r->buffer);
    if (int rc = buffered_send("MPI_Start", data, r->bytes, to_world(r->comm, r->peer), r->tag, r->comm,
                               &r->buffered_copy)) {
      return rc;
    }
  }
  start(*r);
  return MPI_SUCCESS;
}

int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  for (int i = 0; i < count; ++i) {
    if (int rc = PMPI_Start(&array_of_requests[i])) return rc;
  }
  return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request* request) {
  require_initialized("MPI_Cancel");
  MpiRequest* r = request != nullptr ? mpf::mpi::requests().get(*request) : nullptr;
  if (r == nullptr) return comm_error("MPI_Cancel", MPI_COMM_WORLD, MPI_ERR_REQUEST, "invalid request");
  if (r->coll || r->persistent_coll) {
    return comm_error("MPI_Cancel", r->comm, MPI_ERR_REQUEST,
                      std::string("the request of ") + r->call + " is a nonblocking collective, which cannot be cancelled");
  }
  if (r->grequest) {
    // The program's cancel callback decides; it is told whether the
    // operation has completed already.
    const int complete = r->grequest->complete.load(std::memory_order_acquire) ? 1 : 0;
    if (const int rc = r->grequest->cancel(r->grequest->extra_state, complete); rc != MPI_SUCCESS) {
      return comm_error("MPI_Cancel", MPI_COMM_WORLD, rc,
                        "the generalized request's cancel callback failed with error " + std::to_string(rc));
    }
    return MPI_SUCCESS;
  }
  // A receive not yet matched is cancelled at once. A send asks its
  // receiver to drop the message if no receive has matched it; the Wait or
  // Test that completes the request has the answer (MPI_Test_cancelled).
  // A buffered send cancels the send of its copy.
  if (r->buffered_copy != nullptr) mpf::core::Runtime::instance().engine().cancel_send(r->buffered_copy);
  if (r->engine != nullptr) {
    mpf::progress::Engine& engine = mpf::core::Runtime::instance().engine();
    if (r->is_send) {
      engine.cancel_send(r->engine);
    } else {
      engine.cancel_recv(r->engine);
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  *flag = status->mpf_cancelled;
  return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request* request) {
  require_initialized("MPI_Request_free");
  MpiRequest* r = request != nullptr ? mpf::mpi::requests().get(*request) : nullptr;
  if (r == nullptr) return comm_error("MPI_Request_free", MPI_COMM_WORLD, MPI_ERR_REQUEST, "invalid request");
  if ((r->coll || r->persistent_coll) && r->active) {
    return comm_error("MPI_Request_free", r->comm, MPI_ERR_REQUEST,
                      std::string("the request of ") + r->call +
                          " is a nonblocking collective in flight: complete it with MPI_Wait or MPI_Test");
  }
  if (r->grequest && !mpf::mpi::request_done(*r)) {
    // Its free callback runs once the program completes it (reap_orphans).
    r->orphaned = true;
    mpf::mpi::requests().orphans().push_back(*request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  }
  if (r->grequest) {
    const int rc = mpf::mpi::free_grequest(*r, "MPI_Request_free");
    mpf::mpi::requests().remove(*request);
    *request = MPI_REQUEST_NULL;
    return rc;
  }
  if (!mpf::mpi::request_done(*r)) {
    // Still in flight: it is released once the engine completes it.
    r->orphaned = true;
    mpf::mpi::requests().orphans().push_back(*request);
  } else {
    if (r->engine != nullptr) mpf::core::Runtime::instance().engine().free_request(r->engine);
    if (r->send_half != nullptr) mpf::core::Runtime::instance().engine().free_request(r->send_half);
    mpf::mpi::release_buffered_copy(*r);
    mpf::mpi::requests().remove(*request);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Ssend = PMPI_Ssend
#pragma weak MPI_Bsend = PMPI_Bsend
#pragma weak MPI_Rsend = PMPI_Rsend
#pragma weak MPI_Isend = PMPI_Isend
#pragma weak MPI_Issend = PMPI_Issend
#pragma weak MPI_Ibsend = PMPI_Ibsend
#pragma weak MPI_Irsend = PMPI_Irsend
#pragma weak MPI_Send_init = PMPI_Send_init
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
#pragma weak MPI_Recv = PMPI_Recv
#pragma weak MPI_Irecv = PMPI_Irecv
#pragma weak MPI_Recv_init = PMPI_Recv_init
#pragma weak MPI_Sendrecv = PMPI_Sendrecv
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
#pragma weak MPI_Probe = PMPI_Probe
#pragma weak MPI_Isendrecv = PMPI_Isendrecv
#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
#pragma weak MPI_Iprobe = PMPI_Iprobe
#pragma weak MPI_Mprobe = PMPI_Mprobe
#pragma weak MPI_Improbe = PMPI_Improbe
#pragma weak MPI_Mrecv = PMPI_Mrecv
#pragma weak MPI_Imrecv = PMPI_Imrecv
#pragma weak MPI_Start = PMPI_Start
#pragma weak MPI_Startall = PMPI_Startall
#pragma weak MPI_Cancel = PMPI_Cancel
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
#pragma weak MPI_Request_free = PMPI_Request_free

}  // extern "C"
