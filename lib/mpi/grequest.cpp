// Generalized requests (MPI-3.1 §12.2) and the calls that let a program
// fill in a status (§12.3): how libraries built on MPI (I/O layers,
// task runtimes) give their own operations MPI requests.
#include <mpi.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "core/runtime.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

int free_grequest(MpiRequest& r, const char* call) {
  Grequest& g = *r.grequest;
  if (g.free == nullptr) return MPI_SUCCESS;
  MPI_Grequest_free_function* free_fn = std::exchange(g.free, nullptr);
  if (const int rc = free_fn(g.extra_state); rc != MPI_SUCCESS) {
    return comm_error(call, MPI_COMM_WORLD, rc, "the generalized request's free callback failed with error " +
                                                    std::to_string(rc));
  }
  return MPI_SUCCESS;
}

int finish_grequest(MpiRequest& r, MPI_Status* status, const char* call, bool set_error_field) {
  // The query callback fills a status even when the caller ignores it.
  MPI_Status local;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &local : status;
  empty_status(st);
  r.active = false;
  const int query_rc = r.grequest->query(r.grequest->extra_state, st);
  const int free_rc = free_grequest(r, call);
  if (query_rc != MPI_SUCCESS) {
    if (set_error_field) st->MPI_ERROR = query_rc;
    return comm_error(call, MPI_COMM_WORLD, query_rc,
                      "the generalized request's query callback failed with error " + std::to_string(query_rc));
  }
  if (set_error_field) st->MPI_ERROR = MPI_SUCCESS;
  return free_rc;
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

namespace {

// Bytes that hold `elements` basic elements of `type` (whole elements of
// the type first, then the pieces of one more), so that MPI_Get_elements
// and MPI_Get_count read back what MPI_Status_set_elements wrote.
MPI_Count bytes_for_elements(const TypeInfo& t, MPI_Count elements) {
  if (elements <= 0 || t.size == 0) return 0;
  std::uint64_t per_element = 0;
  for (const Block& b : t.blocks) per_element += b.count * (b.bytes / std::max<std::uint32_t>(b.basic_size, 1));
  if (per_element == 0) return 0;
  auto left = static_cast<std::uint64_t>(elements);
  std::uint64_t bytes = left / per_element * t.size;
  left %= per_element;
  for (const Block& b : t.blocks) {
    for (std::uint64_t k = 0; k < b.count && left > 0; ++k) {
      const std::uint64_t in_piece = b.bytes / std::max<std::uint32_t>(b.basic_size, 1);
      const std::uint64_t take = std::min(in_piece, left);
      bytes += take * std::max<std::uint32_t>(b.basic_size, 1);
      left -= take;
    }
  }
  return static_cast<MPI_Count>(bytes);
}

}  // namespace

extern "C" {

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  const char* call = "MPI_Grequest_start";
  require_initialized(call);
  if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "query_fn, free_fn and cancel_fn must all be given");
  }
  if (request == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST, "request argument is NULL");
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  r.call = call;
  r.active = true;
  r.grequest = std::make_shared<Grequest>();
  r.grequest->query = query_fn;
  r.grequest->free = free_fn;
  r.grequest->cancel = cancel_fn;
  r.grequest->extra_state = extra_state;
  *request = handle;
  return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request) {
  const char* call = "MPI_Grequest_complete";
  require_initialized(call);
  MpiRequest* r = requests().get(request);
  if (r == nullptr || !r->grequest) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_REQUEST,
                      "request " + std::to_string(request) + " is not a generalized request");
  }
  r->grequest->complete.store(true, std::memory_order_release);
  // The rank may sleep in MPI_Wait on it, waiting for another thread's call.
  mpf::core::Runtime& rt = mpf::core::Runtime::instance();
  rt.transport().wake(rt.job().rank);
  return MPI_SUCCESS;
}

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  const char* call = "MPI_Status_set_elements_x";
  require_initialized(call);
  if (status == nullptr || status == MPI_STATUS_IGNORE) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "status is NULL");
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_TYPE, datatype_problem(datatype));
  if (count < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  status->mpf_bytes = bytes_for_elements(*t, count);
  return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return PMPI_Status_set_elements_x(status, datatype, count);
}

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  require_initialized("MPI_Status_set_cancelled");
  if (status == nullptr || status == MPI_STATUS_IGNORE) {
    return comm_error("MPI_Status_set_cancelled", MPI_COMM_WORLD, MPI_ERR_ARG, "status is NULL");
  }
  status->mpf_cancelled = flag != 0 ? 1 : 0;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Grequest_start = PMPI_Grequest_start
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled

}  // extern "C"
