// MPI requests as the application holds them (MPI_Request handles), over the
// engine's requests. A handle is an index into this table plus one
// (MPI_REQUEST_NULL is 0). Persistent requests keep their arguments here and
// get a fresh engine request at every MPI_Start.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "coll/pending.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "progress/request.hpp"

namespace mpf::mpi {

// The plain part of a request: a fresh one is these defaults, set with a
// few stores (RequestTable::add).
struct RequestFields {
  bool in_use = false;
  bool is_send = false;
  bool persistent = false;
  bool active = false;            // has an operation in flight or completed but not yet waited for
  bool orphaned = false;          // MPI_Request_free while active: release when it completes
  bool buffered = false;          // Bsend family
  bool proc_null = false;         // peer MPI_PROC_NULL: completes at once, empty status
  // A nonblocking send or receive of contiguous data with an engine request
  // and nothing else (no staging, no buffered copy, not persistent): its
  // completion takes the short way (finish_request).
  bool plain = false;
  progress::SendMode mode = progress::SendMode::standard;
  const char* call = "";          // the call that created it, for error messages
  progress::Request* engine = nullptr;
  progress::Completion fixed_status;  // status of a request completed without the engine
  progress::Request* buffered_copy = nullptr;  // Bsend family: the send of the attached buffer's copy (buffered.hpp)
  // The operation's arguments (kept for persistent requests and for statuses).
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  const void* buffer = nullptr;
  int count = 0;
  int peer = 0;  // rank in comm, MPI_ANY_SOURCE or MPI_PROC_NULL
  int tag = 0;
  std::uint16_t signature = 0;  // checked_signature() of the datatype
  std::uint64_t bytes = 0;      // count * the datatype's size
};

// A generalized request (MPI_Grequest_start): the program's callbacks, and
// whether it has called MPI_Grequest_complete (from any thread, hence
// atomic).
struct Grequest {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra_state = nullptr;
  std::atomic<bool> complete{false};
};

// A persistent collective (MPI_Bcast_init, ...): how to start its
// operation, and the operation's own (nonblocking) request while active.
struct PersistentCollective {
  std::function<int(MPI_Request*)> start;
  MPI_Request operation = MPI_REQUEST_NULL;
};

struct MpiRequest : RequestFields {
  // A non-contiguous datatype's layout: the data moves packed, through
  // `staging` (packed at start for sends, unpacked at completion for receives).
  std::shared_ptr<const TypeInfo> layout;
  std::vector<std::byte> staging;
  // MPI_Isendrecv: the send half (the receive is `engine`), and the data it
  // sends when that had to be copied (packed, or MPI_Isendrecv_replace's).
  progress::Request* send_half = nullptr;
  std::vector<std::byte> outgoing;
  // A nonblocking collective (MPI_Ibcast, ...): its task, instead of an
  // engine request.
  std::shared_ptr<coll::PendingCollective> coll;
  // A generalized request, instead of an engine request.
  std::shared_ptr<Grequest> grequest;
  // A persistent collective, instead of an engine request.
  std::shared_ptr<PersistentCollective> persistent_coll;
};

class RequestTable {
 public:
  // A fresh request (in use, nothing else set) and its handle, built in
  // place: the data path copies no request. The reference is good until the
  // next add(). The staging buffer keeps its memory from the slot's last use.
  MpiRequest& add(MPI_Request* handle) {
    std::size_t slot;
    if (!free_.empty()) [[likely]] {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = requests_.size();
      requests_.emplace_back();
    }
    MpiRequest& r = requests_[slot];
    static_cast<RequestFields&>(r) = RequestFields{};  // layout and coll were reset by remove()
    r.staging.clear();
    r.outgoing.clear();
    r.in_use = true;
    *handle = static_cast<MPI_Request>(slot + 1);
    return r;
  }
  // The request a handle names, or null for MPI_REQUEST_NULL and bad handles.
  MpiRequest* get(MPI_Request handle) {
    if (handle <= 0 || static_cast<std::size_t>(handle) > requests_.size()) return nullptr;
    MpiRequest& r = requests_[static_cast<std::size_t>(handle) - 1];
    return r.in_use ? &r : nullptr;
  }
  void remove(MPI_Request handle) {
    MpiRequest& r = requests_[static_cast<std::size_t>(handle) - 1];
    r.in_use = false;
    r.layout.reset();  // a freed datatype or communicator is not kept alive by a free slot
    r.coll.reset();
    r.grequest.reset();
    r.persistent_coll.reset();
    r.send_half = nullptr;
    free_.push_back(static_cast<std::size_t>(handle) - 1);
    const Communicator* c = any_comm(r.comm);
    if (c != nullptr && c->freed) [[unlikely]] release_freed_comm(r.comm);
  }
  // True when a request (active, or persistent and inactive) uses `comm`.
  bool uses(MPI_Comm comm) const {
    return std::any_of(requests_.begin(), requests_.end(), [comm](const MpiRequest& r) { return r.in_use && r.comm == comm; });
  }
  // Requests freed by the application while still active.
  std::vector<MPI_Request>& orphans() { return orphans_; }

 private:
  std::vector<MpiRequest> requests_;
  std::vector<std::size_t> free_;
  std::vector<MPI_Request> orphans_;
};

// The process's table. Constant-initialised (empty vectors), so it is
// usable from the first call without a guard.
extern RequestTable g_requests;
inline RequestTable& requests() { return g_requests; }

// True when the request's operation has finished (or it has none).
bool request_done_general(const MpiRequest& r);
inline bool request_done(const MpiRequest& r) { return r.plain ? r.engine->done() : request_done_general(r); }
// Fills `status` (may be MPI_STATUS_IGNORE) from a done operation, releases
// its engine request and makes it inactive. Returns MPI_SUCCESS or the
// operation's error class (already reported through the communicator's
// error handler as `call`).
int finish_operation(MpiRequest& r, MPI_Status* status, const char* call, bool set_error_field);
// finish_operation for a handle: then frees it (or, if persistent, leaves
// it inactive) and sets *handle accordingly.
// Returns MPI_SUCCESS or the request's error class (already reported through
// the communicator's error handler as `call`).
int finish_request(MPI_Request* handle, MPI_Status* status, const char* call, bool set_error_field);
// The status of a receive the engine completed with `st`, in `comm`'s ranks
// (`status` may be MPI_STATUS_IGNORE; MPI_ERROR is left alone).
void received_status(const progress::Completion& st, MPI_Comm comm, MPI_Status* status);
// An empty status (inactive or null requests).
void empty_status(MPI_Status* status);
// The status of an operation on MPI_PROC_NULL: source MPI_PROC_NULL, tag
// MPI_ANY_TAG, count 0.
void proc_null_status(MPI_Status* status);
// Releases requests freed while active once they are done.
void reap_orphans();
// A done generalized request (grequest.cpp): its status from the query
// callback, then its free callback. Returns MPI_SUCCESS or the callbacks'
// error (reported through MPI_COMM_WORLD's handler as `call`).
int finish_grequest(MpiRequest& r, MPI_Status* status, const char* call, bool set_error_field);
// Its free callback alone (MPI_Request_free on a done one).
int free_grequest(MpiRequest& r, const char* call);
// Lets go of a buffered send's copy (buffered.hpp), if it holds one.
void release_buffered_copy(MpiRequest& r);
// MPI_Start of a persistent collective (persistent_coll.cpp).
int start_persistent_collective(MPI_Request handle);
// A persistent collective request (MPI_Bcast_init, ...) whose MPI_Start
// runs `start` (the nonblocking call with the bound arguments); checks what
// MPI_Start cannot (the communicator, the info, the request pointer).
int bind_persistent_collective(const char* call, MPI_Comm comm, MPI_Info info, MPI_Request* request,
                               std::function<int(MPI_Request*)> start);

}  // namespace mpf::mpi
