// Completing requests: the Wait and Test families, Request_get_status,
// Get_count and Get_elements.
#include <mpi.h>

#include <climits>
#include <utility>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/buffered.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

void received_status(const progress::Completion& st, MPI_Comm comm, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = from_world(comm, st.source);
  status->MPI_TAG = st.tag;
  status->mpf_bytes = static_cast<MPI_Count>(st.bytes);
  status->mpf_cancelled = st.cancelled ? 1 : 0;
}

namespace {

progress::Engine& engine() { return core::Runtime::instance().engine(); }

// The status a request reports, before handles are released.
void fill_status(const MpiRequest& r, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  if (r.proc_null || !r.active) {
    empty_status(status);
    return;
  }
  const progress::Completion& st = r.engine != nullptr ? r.engine->status : r.fixed_status;
  if (!r.is_send) {
    received_status(st, r.comm, status);
    return;
  }
  status->MPI_SOURCE = r.peer;
  status->MPI_TAG = r.tag;
  status->mpf_bytes = static_cast<MPI_Count>(r.engine == nullptr ? 0 : st.bytes);
  const bool copy_cancelled = r.buffered_copy != nullptr && r.buffered_copy->status.cancelled;
  status->mpf_cancelled = st.cancelled || copy_cancelled ? 1 : 0;
}

// Checks an array of handles; reports the first bad one.
int check_handles(const char* call, int count, const MPI_Request handles[]) {
  if (count < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  if (count > 0 && handles == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST, "array of requests is NULL");
  }
  for (int i = 0; i < count; ++i) {
    if (handles[i] != MPI_REQUEST_NULL && requests().get(handles[i]) == nullptr) {
      return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST,
                        "invalid request " + std::to_string(handles[i]) + " at index " + std::to_string(i));
    }
  }
  return MPI_SUCCESS;
}

// A request that can still complete (not null, and active).
bool pending(MPI_Request handle) {
  const MpiRequest* r = requests().get(handle);
  return r != nullptr && r->active;
}

bool done(MPI_Request handle) {
  const MpiRequest* r = requests().get(handle);
  return r == nullptr || !r->active || request_done(*r);
}

// The wait for requests, described by `handle` (the first incomplete one).
progress::BlockedCall blocked_on(const char* call, MPI_Request handle) {
  const MpiRequest* r = requests().get(handle);
  if (r == nullptr || r->proc_null || r->grequest)
    return progress::BlockedCall::request_unknown(progress::WaitApi::mpi, call);
  if (r->persistent_coll) return blocked_on(call, r->persistent_coll->operation);
  if (r->coll) return coll::pending_wait(*r->coll, call);
  const std::int32_t world = r->peer == MPI_ANY_SOURCE ? progress::kAnySource : to_world(r->comm, r->peer);
  return progress::BlockedCall::request(p2p_wait(r->is_send, world, r->tag, comm_context(r->comm), call), call);
}

MPI_Status* at(MPI_Status* statuses, int i) { return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]; }

// Finishes every done request in [0, count); returns MPI_ERR_IN_STATUS if
// any of them failed, with each status's MPI_ERROR set.
int finish_all(const char* call, int count, MPI_Request handles[], MPI_Status statuses[]) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < count; ++i) {
    if (finish_request(&handles[i], at(statuses, i), call, true) != MPI_SUCCESS) rc = MPI_ERR_IN_STATUS;
  }
  return rc;
}

}  // namespace

bool request_done_general(const MpiRequest& r) {
  if (r.grequest) return r.grequest->complete.load(std::memory_order_acquire);
  if (r.persistent_coll) {
    const MpiRequest* op = requests().get(r.persistent_coll->operation);
    return op == nullptr || request_done(*op);
  }
  if (r.coll) {
    coll::advance_pending();
    return r.coll->done;
  }
  // A buffered send is done once copied, unless the program cancels it:
  // then the answer is awaited.
  const bool cancelling = r.buffered_copy != nullptr && r.buffered_copy->cancel_pending;
  return (r.engine == nullptr || r.engine->done()) && (r.send_half == nullptr || r.send_half->done()) && !cancelling;
}

void release_buffered_copy(MpiRequest& r) {
  if (r.buffered_copy != nullptr) release_buffered(std::exchange(r.buffered_copy, nullptr));
}

void empty_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = MPI_SUCCESS;  // part of an empty status (MPI 3.1 §3.7.3)
  status->mpf_bytes = 0;
  status->mpf_cancelled = 0;
}

void proc_null_status(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  // MPI_ERROR is left alone: a call that returns one status never sets it
  // (MPI 3.1 §3.2.5), and this one completed (MPI_Recv, MPI_Mprobe ... from
  // MPI_PROC_NULL); the calls that return several set it themselves.
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_TAG = MPI_ANY_TAG;
  status->mpf_bytes = 0;
  status->mpf_cancelled = 0;
}

int finish_operation(MpiRequest& r, MPI_Status* status, const char* call, bool set_error_field) {
  if (r.grequest) return finish_grequest(r, status, call, set_error_field);
  if (r.persistent_coll) {
    // Its operation's request completes and goes; it stays, inactive.
    r.active = false;
    MPI_Request op = std::exchange(r.persistent_coll->operation, MPI_REQUEST_NULL);
    return finish_request(&op, status, call, set_error_field);
  }
  if (r.send_half != nullptr) engine().free_request(std::exchange(r.send_half, nullptr));
  if (r.proc_null && r.active) {
    proc_null_status(status);
  } else {
    fill_status(r, status);
  }
  release_buffered_copy(r);
  if (r.coll != nullptr && r.coll->failed()) [[unlikely]] {
    r.active = false;
    const coll::CollectiveError error = *r.coll->error;
    if (status != MPI_STATUS_IGNORE && set_error_field) status->MPI_ERROR = error.error_class;
    return comm_error(call, r.comm, error.error_class, error.detail);
  }
  // The engine request goes back first: an error handler that returns must
  // not leak it.
  progress::Request* e = r.engine;
  r.engine = nullptr;
  r.active = false;
  if (e != nullptr && !r.is_send && r.layout && e->status.bytes > 0) {
    unpack(*r.layout, r.staging.data(), e->status.bytes, const_cast<void*>(r.buffer));
  }
  if (e == nullptr || e->status.error == 0) {
    if (e != nullptr) engine().free_request(e);
    if (status != MPI_STATUS_IGNORE && set_error_field) status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
  }
  const progress::Completion st = e->status;
  const std::uint64_t capacity = e->bytes;
  const std::int32_t e_peer = e->peer;
  engine().free_request(e);
  if (st.error == progress::kErrorSignature) {
    if (status != MPI_STATUS_IGNORE && set_error_field) status->MPI_ERROR = MPI_ERR_TYPE;
    return comm_error(call, r.comm, MPI_ERR_TYPE,
                      "datatype mismatch: the message from rank " + std::to_string(from_world(r.comm, st.source)) +
                          " (tag " + std::to_string(st.tag) + ") was sent with another type signature than " +
                          datatype_name(r.datatype) + " (checked because datatype_check is on)");
  }
  if (st.error == progress::kErrorTransport) {
    if (status != MPI_STATUS_IGNORE && set_error_field) status->MPI_ERROR = MPI_ERR_OTHER;
    return comm_error(call, r.comm, MPI_ERR_OTHER,
                      std::string("the message ") + (r.is_send ? "to" : "from") + " rank " +
                          std::to_string(from_world(r.comm, r.is_send ? e_peer : st.source)) +
                          " could not be moved (the rank's error output says why)");
  }
  if (status != MPI_STATUS_IGNORE && set_error_field) status->MPI_ERROR = MPI_ERR_TRUNCATE;
  return comm_error(call, r.comm, MPI_ERR_TRUNCATE,
                    "message truncated: " + std::to_string(st.message_bytes) + " bytes arrived from rank " +
                        std::to_string(from_world(r.comm, st.source)) + " (tag " + std::to_string(st.tag) +
                        ") for a receive buffer of " + std::to_string(capacity) + " bytes");
}

int finish_request(MPI_Request* handle, MPI_Status* status, const char* call, bool set_error_field) {
  MpiRequest* r = requests().get(*handle);
  if (r == nullptr) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (r->plain && r->engine->status.error == 0) [[likely]] {
    // What finish_operation() would do for it, without the cases it cannot be.
    progress::Request* e = r->engine;
    if (status != MPI_STATUS_IGNORE) {
      if (r->is_send) {
        status->MPI_SOURCE = r->peer;
        status->MPI_TAG = r->tag;
        status->mpf_bytes = static_cast<MPI_Count>(e->status.bytes);
        status->mpf_cancelled = e->status.cancelled ? 1 : 0;
      } else {
        received_status(e->status, r->comm, status);
      }
      if (set_error_field) status->MPI_ERROR = MPI_SUCCESS;
    }
    engine().free_request(e);
    r->engine = nullptr;
    r->active = false;
    requests().remove(std::exchange(*handle, MPI_REQUEST_NULL));
    return MPI_SUCCESS;
  }
  if (!r->persistent) {
    const MPI_Request h = *handle;
    *handle = MPI_REQUEST_NULL;
    const bool failed = (r->engine != nullptr && r->engine->status.error != 0) || (r->coll && r->coll->failed());
    if (!failed) [[likely]] {
      // No error handler can run: finish in place, no copy.
      const int rc = finish_operation(*r, status, call, set_error_field);
      requests().remove(h);
      return rc;
    }
    // Taken out of the table before the error handler can run.
    MpiRequest done = std::move(*r);
    requests().remove(h);
    return finish_operation(done, status, call, set_error_field);
  }
  if (!r->active) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  return finish_operation(*r, status, call, set_error_field);
}

void reap_orphans() {
  std::vector<MPI_Request>& orphans = requests().orphans();
  for (std::size_t i = 0; i < orphans.size();) {
    MpiRequest* r = requests().get(orphans[i]);
    if (r != nullptr && request_done(*r)) {
      if (r->engine != nullptr) engine().free_request(r->engine);
      if (r->send_half != nullptr) engine().free_request(r->send_half);
      release_buffered_copy(*r);
      if (r->grequest) free_grequest(*r, "MPI_Request_free");
      requests().remove(orphans[i]);
      orphans[i] = orphans.back();
      orphans.pop_back();
    } else {
      ++i;
    }
  }
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  require_initialized("MPI_Wait");
  if (request == nullptr) return comm_error("MPI_Wait", MPI_COMM_WORLD, MPI_ERR_REQUEST, "request argument is NULL");
  if (int rc = check_handles("MPI_Wait", 1, request)) return rc;
  const MPI_Request handle = *request;
  if (pending(handle) && !done(handle)) {
    engine().wait_until([handle] { return done(handle); }, blocked_on("MPI_Wait", handle));
  }
  reap_orphans();
  return finish_request(request, status, "MPI_Wait", false);
}

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  require_initialized("MPI_Test");
  if (request == nullptr) return comm_error("MPI_Test", MPI_COMM_WORLD, MPI_ERR_REQUEST, "request argument is NULL");
  if (int rc = check_handles("MPI_Test", 1, request)) return rc;
  engine().progress();
  reap_orphans();
  *flag = done(*request) ? 1 : 0;
  if (*flag == 0) return MPI_SUCCESS;
  return finish_request(request, status, "MPI_Test", false);
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  require_initialized("MPI_Waitall");
  if (int rc = check_handles("MPI_Waitall", count, array_of_requests)) return rc;
  // Requests never go back from done to not done, so the scan resumes where
  // it stopped: one Waitall over n requests costs O(n), not O(n^2).
  int first = 0;
  auto all_done = [&] {
    while (first < count && done(array_of_requests[first])) ++first;
    return first == count;
  };
  if (!all_done()) {
    engine().wait_until(all_done, blocked_on("MPI_Waitall", array_of_requests[first]));
  }
  reap_orphans();
  return finish_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]) {
  require_initialized("MPI_Testall");
  if (int rc = check_handles("MPI_Testall", count, array_of_requests)) return rc;
  engine().progress();
  reap_orphans();
  for (int i = 0; i < count; ++i) {
    if (!done(array_of_requests[i])) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return finish_all("MPI_Testall", count, array_of_requests, array_of_statuses);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  require_initialized("MPI_Waitany");
  if (int rc = check_handles("MPI_Waitany", count, array_of_requests)) return rc;
  int any_pending = -1;
  for (int i = 0; i < count; ++i) {
    if (pending(array_of_requests[i])) any_pending = i;
  }
  if (any_pending < 0) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int found = -1;
  auto some_done = [&] {
    for (int i = 0; i < count; ++i) {
      if (pending(array_of_requests[i]) && done(array_of_requests[i])) {
        found = i;
        return true;
      }
    }
    return false;
  };
  engine().wait_until(some_done, blocked_on("MPI_Waitany", array_of_requests[any_pending]));
  reap_orphans();
  *index = found;
  return finish_request(&array_of_requests[found], status, "MPI_Waitany", false);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  require_initialized("MPI_Testany");
  if (int rc = check_handles("MPI_Testany", count, array_of_requests)) return rc;
  engine().progress();
  reap_orphans();
  bool any_pending = false;
  for (int i = 0; i < count; ++i) {
    if (!pending(array_of_requests[i])) continue;
    any_pending = true;
    if (done(array_of_requests[i])) {
      *flag = 1;
      *index = i;
      return finish_request(&array_of_requests[i], status, "MPI_Testany", false);
    }
  }
  // No active request at all counts as completion with index MPI_UNDEFINED.
  *flag = any_pending ? 0 : 1;
  *index = MPI_UNDEFINED;
  if (!any_pending) empty_status(status);
  return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  require_initialized("MPI_Waitsome");
  if (int rc = check_handles("MPI_Waitsome", incount, array_of_requests)) return rc;
  int any_pending = -1;
  for (int i = 0; i < incount; ++i) {
    if (pending(array_of_requests[i])) any_pending = i;
  }
  if (any_pending < 0) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  auto some_done = [&] {
    for (int i = 0; i < incount; ++i) {
      if (pending(array_of_requests[i]) && done(array_of_requests[i])) return true;
    }
    return false;
  };
  engine().wait_until(some_done, blocked_on("MPI_Waitsome", array_of_requests[any_pending]));
  return PMPI_Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                  MPI_Status array_of_statuses[]) {
  require_initialized("MPI_Testsome");
  if (int rc = check_handles("MPI_Testsome", incount, array_of_requests)) return rc;
  engine().progress();
  reap_orphans();
  int n = 0;
  bool any_pending = false;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < incount; ++i) {
    if (!pending(array_of_requests[i])) continue;
    any_pending = true;
    if (!done(array_of_requests[i])) continue;
    if (finish_request(&array_of_requests[i], at(array_of_statuses, n), "MPI_Testsome", true) != MPI_SUCCESS) {
      rc = MPI_ERR_IN_STATUS;
    }
    array_of_indices[n++] = i;
  }
  *outcount = any_pending ? n : MPI_UNDEFINED;
  return rc;
}

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  require_initialized("MPI_Request_get_status");
  if (int rc = check_handles("MPI_Request_get_status", 1, &request)) return rc;
  engine().progress();
  *flag = done(request) ? 1 : 0;
  if (*flag == 0) return MPI_SUCCESS;
  const MpiRequest* r = requests().get(request);
  if (r == nullptr) {
    empty_status(status);
  } else {
    if (r->proc_null && r->active) {
      proc_null_status(status);
    } else {
      fill_status(*r, status);
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error("MPI_Get_count", MPI_COMM_WORLD, MPI_ERR_TYPE, problem);
  const auto size = datatype_size(datatype);
  if (*size == 0) {
    *count = 0;
    return MPI_SUCCESS;
  }
  const auto bytes = static_cast<std::uint64_t>(status->mpf_bytes);
  *count = bytes % *size == 0 && bytes / *size <= static_cast<std::uint64_t>(INT_MAX) ? static_cast<int>(bytes / *size)
                                                                                       : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error("MPI_Get_elements", MPI_COMM_WORLD, MPI_ERR_TYPE, problem);
  const std::uint64_t elements = basic_elements(*find_type(datatype), static_cast<std::uint64_t>(status->mpf_bytes));
  // More than an int holds: MPI_UNDEFINED (MPI_Get_elements_x has the number).
  *count = elements > static_cast<std::uint64_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(elements);
  return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error("MPI_Get_elements_x", MPI_COMM_WORLD, MPI_ERR_TYPE, problem);
  *count = static_cast<MPI_Count>(basic_elements(*find_type(datatype), static_cast<std::uint64_t>(status->mpf_bytes)));
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Wait = PMPI_Wait
#pragma weak MPI_Test = PMPI_Test
#pragma weak MPI_Waitall = PMPI_Waitall
#pragma weak MPI_Testall = PMPI_Testall
#pragma weak MPI_Waitany = PMPI_Waitany
#pragma weak MPI_Testany = PMPI_Testany
#pragma weak MPI_Waitsome = PMPI_Waitsome
#pragma weak MPI_Testsome = PMPI_Testsome
#pragma weak MPI_Request_get_status = PMPI_Request_get_status
#pragma weak MPI_Get_count = PMPI_Get_count
#pragma weak MPI_Get_elements = PMPI_Get_elements
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

}  // extern "C"
