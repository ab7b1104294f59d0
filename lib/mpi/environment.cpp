// The MPI environment chapter: init, finalize, abort, versions and timers.
#include <mpi.h>

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

#include "common/version.hpp"
#include "core/runtime.hpp"
#include "mpi/attributes.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"

namespace {

using mpf::core::Runtime;

int provided_thread_level = MPI_THREAD_SINGLE;
std::thread::id main_thread;  // the thread that initialised MPI (MPI_Is_thread_main)

// Copies text into a caller's fixed-size MPI string buffer.
void copy_out(const std::string& text, char* out, int capacity, int* length) {
  const auto n = std::min<std::size_t>(text.size(), static_cast<std::size_t>(capacity - 1));
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
  *length = static_cast<int>(n);
}

int init(const char* call, int required) {
  Runtime& rt = Runtime::instance();
  if (rt.joined(mpf::core::Api::mpi) || rt.left(mpf::core::Api::mpi)) {
    mpf::mpi::fatal_error(call, MPI_ERR_OTHER,
                          rt.joined(mpf::core::Api::mpi) ? "MPI is already initialised; call MPI_Init only once"
                                                         : "MPI was finalized and cannot be initialised again");
  }
  try {
    rt.join(mpf::core::Api::mpi);
    mpf::mpi::init_communicators(rt.job().rank, rt.job().size);
    mpf::mpi::g_check_signatures = rt.tunables().boolean(mpf::common::Tunable::datatype_check);
  } catch (const std::exception& e) {
    mpf::mpi::fatal_error(call, MPI_ERR_INTERN, e.what());
  }
  main_thread = std::this_thread::get_id();
  // The runtime is safe to call from one thread at a time, whichever thread.
  provided_thread_level = std::min(required, MPI_THREAD_SERIALIZED);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Init(int*, char***) { return init("MPI_Init", MPI_THREAD_SINGLE); }

int PMPI_Init_thread(int*, char***, int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    mpf::mpi::fatal_error("MPI_Init_thread", MPI_ERR_ARG,
                          "invalid thread level " + std::to_string(required) +
                              " (use MPI_THREAD_SINGLE .. MPI_THREAD_MULTIPLE)");
  }
  const int rc = init("MPI_Init_thread", required);
  if (provided != nullptr) *provided = provided_thread_level;
  return rc;
}

int PMPI_Finalize(void) {
  Runtime& rt = Runtime::instance();
  if (rt.left(mpf::core::Api::mpi)) mpf::mpi::fatal_error("MPI_Finalize", MPI_ERR_OTHER, "MPI is already finalized");
  if (!rt.joined(mpf::core::Api::mpi)) mpf::mpi::fatal_error("MPI_Finalize", MPI_ERR_OTHER, "MPI is not initialised");
  // First, as if MPI_COMM_SELF were freed: its attributes' delete callbacks
  // run while MPI is still fully usable (MPI-3.1 §8.7.1).
  if (int rc = mpf::mpi::delete_attributes(MPI_COMM_SELF)) {
    return mpf::mpi::comm_error("MPI_Finalize", MPI_COMM_SELF, rc,
                                "an attribute delete callback on MPI_COMM_SELF failed with error " + std::to_string(rc));
  }
  try {
    rt.leave(mpf::core::Api::mpi, "MPI_Finalize");
  } catch (const std::exception& e) {
    mpf::mpi::fatal_error("MPI_Finalize", MPI_ERR_INTERN, e.what());
  }
  return MPI_SUCCESS;
}

int PMPI_Initialized(int* flag) {
  const Runtime& rt = Runtime::instance();
  *flag = rt.joined(mpf::core::Api::mpi) || rt.left(mpf::core::Api::mpi) ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Finalized(int* flag) {
  *flag = Runtime::instance().left(mpf::core::Api::mpi) ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Query_thread(int* provided) {
  *provided = provided_thread_level;
  return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  Runtime& rt = Runtime::instance();
  const std::string text = "MPI_Abort(" +
                           std::string(comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD"
                                       : comm == MPI_COMM_SELF ? "MPI_COMM_SELF"
                                                               : "communicator " + std::to_string(comm)) +
                           ", " + std::to_string(errorcode) + ") called by rank " + mpf::mpi::rank_label();
  if (!rt.initialized()) {
    std::fprintf(stderr, "%s\n", text.c_str());
    std::_Exit(errorcode);
  }
  // Every communicator's abort ends the whole job: the standard allows it,
  // and a partial abort would leave the rest of the job waiting for ever.
  rt.abort(errorcode, text);
}

int PMPI_Get_processor_name(char* name, int* resultlen) {
  copy_out(Runtime::instance().initialized() ? Runtime::instance().job().hostname : std::string("localhost"),
           name, MPI_MAX_PROCESSOR_NAME, resultlen);
  return MPI_SUCCESS;
}

int PMPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int PMPI_Get_library_version(char* version, int* resultlen) {
  copy_out(mpf::common::version_line("libmpi"), version, MPI_MAX_LIBRARY_VERSION_STRING,
           resultlen);
  return MPI_SUCCESS;
}

double PMPI_Wtime(void) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double PMPI_Wtick(void) {
  timespec ts{};
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

int PMPI_Is_thread_main(int* flag) {
  mpf::mpi::require_initialized("MPI_Is_thread_main");
  if (flag == nullptr) return mpf::mpi::comm_error("MPI_Is_thread_main", MPI_COMM_WORLD, MPI_ERR_ARG, "flag is NULL");
  *flag = std::this_thread::get_id() == main_thread ? 1 : 0;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Init = PMPI_Init
#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
#pragma weak MPI_Init_thread = PMPI_Init_thread
#pragma weak MPI_Finalize = PMPI_Finalize
#pragma weak MPI_Initialized = PMPI_Initialized
#pragma weak MPI_Finalized = PMPI_Finalized
#pragma weak MPI_Query_thread = PMPI_Query_thread
#pragma weak MPI_Abort = PMPI_Abort
#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
#pragma weak MPI_Get_version = PMPI_Get_version
#pragma weak MPI_Get_library_version = PMPI_Get_library_version
#pragma weak MPI_Wtime = PMPI_Wtime
#pragma weak MPI_Wtick = PMPI_Wtick

}  // extern "C"
