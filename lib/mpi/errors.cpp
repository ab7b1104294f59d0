#include "mpi/errors.hpp"

#include <cstdio>
#include <cstring>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"

namespace mpf::mpi {
namespace {

// The error handler of MPI_COMM_WORLD and MPI_COMM_SELF (index = handle).
MPI_Errhandler g_errhandlers[3] = {MPI_ERRHANDLER_NULL, MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ARE_FATAL};

// The error classes' texts, one voice (MPI_Error_string).
const char* class_text(int error_class) {
  switch (error_class) {
    case MPI_SUCCESS: return "no error";
    case MPI_ERR_BUFFER: return "invalid buffer pointer";
    case MPI_ERR_COUNT: return "invalid count argument";
    case MPI_ERR_TYPE: return "invalid datatype";
    case MPI_ERR_TAG: return "invalid tag";
    case MPI_ERR_COMM: return "invalid communicator";
    case MPI_ERR_RANK: return "invalid rank";
    case MPI_ERR_REQUEST: return "invalid request";
    case MPI_ERR_ROOT: return "invalid root";
    case MPI_ERR_GROUP: return "invalid group";
    case MPI_ERR_OP: return "invalid operation";
    case MPI_ERR_TOPOLOGY: return "invalid topology";
    case MPI_ERR_DIMS: return "invalid dimension argument";
    case MPI_ERR_ARG: return "invalid argument";
    case MPI_ERR_UNKNOWN: return "unknown error";
    case MPI_ERR_TRUNCATE: return "message truncated";
    case MPI_ERR_OTHER: return "known error not in this list";
    case MPI_ERR_INTERN: return "internal error";
    case MPI_ERR_IN_STATUS: return "error code is in status";
    case MPI_ERR_PENDING: return "pending request";
    default: return nullptr;
  }
}

}  // namespace

std::string rank_label() {
  const core::Runtime& rt = core::Runtime::instance();
  return rt.initialized() ? std::to_string(rt.job().rank) : std::string("?");
}

void fatal_error(const char* call, int error_class, const std::string& detail) {
  const std::string text = std::string(call) + " (rank " + rank_label() + "): " + detail;
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  core::Runtime& rt = core::Runtime::instance();
  if (rt.initialized()) rt.abort(error_class, text);
  std::_Exit(error_class);
}

MPI_Errhandler errhandler_of(MPI_Comm comm) {
  return comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF ? g_errhandlers[comm] : MPI_ERRORS_ARE_FATAL;
}

int comm_error(const char* call, MPI_Comm comm, int error_class, const std::string& detail) {
  if (errhandler_of(comm) == MPI_ERRORS_RETURN) return error_class;
  fatal_error(call, error_class, detail);
}

void require_initialized(const char* call) {
  const core::Runtime& rt = core::Runtime::instance();
  if (!rt.initialized()) fatal_error(call, MPI_ERR_OTHER, "called before MPI_Init");
  if (rt.finalized()) fatal_error(call, MPI_ERR_OTHER, "called after MPI_Finalize");
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  require_initialized("MPI_Comm_set_errhandler");
  if (!comm_is_valid(comm)) {
    return comm_error("MPI_Comm_set_errhandler", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  }
  if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN) {
    return comm_error("MPI_Comm_set_errhandler", comm, MPI_ERR_ARG,
                      "invalid error handler " + std::to_string(errhandler));
  }
  g_errhandlers[comm] = errhandler;
  return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  require_initialized("MPI_Comm_get_errhandler");
  if (!comm_is_valid(comm)) {
    return comm_error("MPI_Comm_get_errhandler", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  }
  *errhandler = g_errhandlers[comm];
  return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler* errhandler) {
  // The predefined handlers are never really freed; the handle is reset.
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (class_text(errorcode) == nullptr) {
    return comm_error("MPI_Error_class", MPI_COMM_WORLD, MPI_ERR_ARG,
                      "invalid error code " + std::to_string(errorcode));
  }
  *errorclass = errorcode;  // every code is its own class
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* text = class_text(errorcode);
  if (text == nullptr) {
    return comm_error("MPI_Error_string", MPI_COMM_WORLD, MPI_ERR_ARG,
                      "invalid error code " + std::to_string(errorcode));
  }
  const std::string full = std::string("MPI_") + (errorcode == 0 ? "SUCCESS" : "ERR") + ": " + text;
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", full.c_str());
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

}  // extern "C"
