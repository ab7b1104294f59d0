#include "mpi/errors.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"

namespace mpf::mpi {
namespace {

// User error handlers (MPI_Comm_create_errhandler): handle = kFirstUserHandler + index.
constexpr MPI_Errhandler kFirstUserHandler = 3;
std::vector<MPI_Comm_errhandler_function*> g_user_handlers;

MPI_Comm_errhandler_function* user_handler(MPI_Errhandler h) {
  if (h < kFirstUserHandler || static_cast<std::size_t>(h - kFirstUserHandler) >= g_user_handlers.size()) return nullptr;
  return g_user_handlers[static_cast<std::size_t>(h - kFirstUserHandler)];
}


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
    case MPI_ERR_KEYVAL: return "invalid keyval";
    case MPI_ERR_INFO_KEY: return "info key too long or empty";
    case MPI_ERR_INFO_VALUE: return "info value too long";
    case MPI_ERR_INFO_NOKEY: return "info key not defined";
    case MPI_ERR_INFO: return "invalid info object";
    case MPI_ERR_ACCESS: return "permission denied";
    case MPI_ERR_AMODE: return "invalid file access mode";
    case MPI_ERR_ASSERT: return "invalid assertion";
    case MPI_ERR_BAD_FILE: return "invalid file name";
    case MPI_ERR_BASE: return "invalid base address";
    case MPI_ERR_CONVERSION: return "data conversion failed";
    case MPI_ERR_DISP: return "invalid displacement";
    case MPI_ERR_DUP_DATAREP: return "data representation already defined";
    case MPI_ERR_FILE_EXISTS: return "file exists";
    case MPI_ERR_FILE_IN_USE: return "file in use";
    case MPI_ERR_FILE: return "invalid file handle";
    case MPI_ERR_IO: return "I/O error";
    case MPI_ERR_LOCKTYPE: return "invalid lock type";
    case MPI_ERR_NAME: return "service name not published";
    case MPI_ERR_NO_MEM: return "out of memory";
    case MPI_ERR_NOT_SAME: return "collective arguments differ between ranks";
    case MPI_ERR_NO_SPACE: return "out of disk space";
    case MPI_ERR_NO_SUCH_FILE: return "no such file";
    case MPI_ERR_PORT: return "invalid port name";
    case MPI_ERR_QUOTA: return "quota exceeded";
    case MPI_ERR_READ_ONLY: return "read-only file or file system";
    case MPI_ERR_RMA_ATTACH: return "memory cannot be attached to the window";
    case MPI_ERR_RMA_CONFLICT: return "conflicting accesses to a window";
    case MPI_ERR_RMA_RANGE: return "target memory outside the window";
    case MPI_ERR_RMA_SHARED: return "memory cannot be shared";
    case MPI_ERR_RMA_SYNC: return "RMA call outside its synchronization";
    case MPI_ERR_RMA_FLAVOR: return "wrong window flavor for the call";
    case MPI_ERR_SERVICE: return "invalid service name";
    case MPI_ERR_SIZE: return "invalid size";
    case MPI_ERR_SPAWN: return "could not spawn processes";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "unsupported data representation";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "unsupported operation";
    case MPI_ERR_WIN: return "invalid window";
    case MPI_T_ERR_MEMORY: return "out of memory in the tool interface";
    case MPI_T_ERR_NOT_INITIALIZED: return "the tool interface is not initialized (call MPI_T_init_thread first)";
    case MPI_T_ERR_CANNOT_INIT: return "the tool interface cannot be initialized";
    case MPI_T_ERR_INVALID_INDEX: return "invalid variable or category index";
    case MPI_T_ERR_INVALID_ITEM: return "invalid enumeration item";
    case MPI_T_ERR_INVALID_HANDLE: return "invalid handle, or a handle of another session";
    case MPI_T_ERR_OUT_OF_HANDLES: return "no more handles";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "no more performance variable sessions";
    case MPI_T_ERR_INVALID_SESSION: return "invalid performance variable session";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "the control variable cannot be set (tunables are fixed when the job starts)";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "the performance variable is continuous: it cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "the performance variable is read-only: it cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "the performance variable cannot be read and reset at once";
    case MPI_T_ERR_INVALID_NAME: return "no variable or category of that name";
    case MPI_T_ERR_INVALID:
      return "invalid use of the tool interface (a NULL or bad argument, or performance variables before MPI_Init)";
    default: return nullptr;
  }
}

// Error classes and codes the program adds (MPI_Add_error_class, _code),
// numbered from MPI_ERR_LASTCODE + 1: each one's class (a class is its own)
// and its string (MPI_Add_error_string; empty until set).
struct UserCode {
  int error_class;
  std::string text;
};
std::vector<UserCode> g_user_codes;

UserCode* user_code(int code) {
  if (code <= MPI_ERR_LASTCODE || static_cast<std::size_t>(code - MPI_ERR_LASTCODE - 1) >= g_user_codes.size()) {
    return nullptr;
  }
  return &g_user_codes[static_cast<std::size_t>(code - MPI_ERR_LASTCODE - 1)];
}

int add_code(int error_class) {
  g_user_codes.push_back({error_class, {}});
  const int code = MPI_ERR_LASTCODE + static_cast<int>(g_user_codes.size());
  if (error_class < 0) g_user_codes.back().error_class = code;
  return code;
}

}  // namespace

int last_used_error_code() { return MPI_ERR_LASTCODE + static_cast<int>(g_user_codes.size()); }

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
  const Communicator* c = any_comm(comm);
  return c != nullptr ? c->errhandler : MPI_ERRORS_ARE_FATAL;
}

bool errhandler_is_valid(MPI_Errhandler h) {
  return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || user_handler(h) != nullptr;
}

MPI_Errhandler add_errhandler(MPI_Comm_errhandler_function* function) {
  g_user_handlers.push_back(function);
  return kFirstUserHandler + static_cast<MPI_Errhandler>(g_user_handlers.size() - 1);
}

int handle_error(const char* call, MPI_Errhandler h, int object, int error_class, const std::string& detail) {
  if (h == MPI_ERRORS_RETURN) return error_class;
  if (MPI_Comm_errhandler_function* f = user_handler(h)) {
    int handle = object;
    int code = error_class;
    f(&handle, &code, call, detail.c_str());
    return error_class;
  }
  fatal_error(call, error_class, detail);
}

int comm_error(const char* call, MPI_Comm comm, int error_class, const std::string& detail) {
  return handle_error(call, errhandler_of(comm), comm, error_class, detail);
}

void not_initialized(const char* call) {
  const bool before = !core::Runtime::instance().left(core::Api::mpi);
  fatal_error(call, MPI_ERR_OTHER, before ? "called before MPI_Init" : "called after MPI_Finalize");
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  require_initialized("MPI_Comm_set_errhandler");
  if (!comm_is_valid(comm)) {
    return comm_error("MPI_Comm_set_errhandler", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  }
  if (!errhandler_is_valid(errhandler)) {
    return comm_error("MPI_Comm_set_errhandler", comm, MPI_ERR_ARG,
                      "invalid error handler " + std::to_string(errhandler));
  }
  comm_of(comm).errhandler = errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  require_initialized("MPI_Comm_get_errhandler");
  if (!comm_is_valid(comm)) {
    return comm_error("MPI_Comm_get_errhandler", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  }
  *errhandler = comm_of(comm).errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  require_initialized("MPI_Comm_create_errhandler");
  if (function == nullptr || errhandler == nullptr) {
    return comm_error("MPI_Comm_create_errhandler", MPI_COMM_WORLD, MPI_ERR_ARG, "function or errhandler is NULL");
  }
  *errhandler = add_errhandler(function);
  return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  require_initialized("MPI_Comm_call_errhandler");
  if (!comm_is_valid(comm)) {
    return comm_error("MPI_Comm_call_errhandler", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  }
  comm_error("MPI_Comm_call_errhandler", comm, errorcode, "error " + std::to_string(errorcode) + " raised by the program");
  return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  // The predefined handlers are never really freed; the handle is reset.
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (const UserCode* u = user_code(errorcode)) {
    *errorclass = u->error_class;
    return MPI_SUCCESS;
  }
  if (class_text(errorcode) == nullptr) {
    return comm_error("MPI_Error_class", MPI_COMM_WORLD, MPI_ERR_ARG,
                      "invalid error code " + std::to_string(errorcode));
  }
  *errorclass = errorcode;  // every predefined code is its own class
  return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (const UserCode* u = user_code(errorcode)) {
    std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->text.c_str());
    *resultlen = static_cast<int>(std::strlen(string));
    return MPI_SUCCESS;
  }
  const char* text = class_text(errorcode);
  if (text == nullptr) {
    return comm_error("MPI_Error_string", MPI_COMM_WORLD, MPI_ERR_ARG,
                      "invalid error code " + std::to_string(errorcode));
  }
  const char* prefix = errorcode == MPI_SUCCESS                                       ? "MPI_SUCCESS"
                       : errorcode >= MPI_T_ERR_MEMORY && errorcode <= MPI_T_ERR_INVALID ? "MPI_T_ERR"
                                                                                         : "MPI_ERR";
  const std::string full = std::string(prefix) + ": " + text;
  std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", full.c_str());
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

int PMPI_Add_error_class(int* errorclass) {
  require_initialized("MPI_Add_error_class");
  if (errorclass == nullptr) return comm_error("MPI_Add_error_class", MPI_COMM_WORLD, MPI_ERR_ARG, "errorclass is NULL");
  *errorclass = add_code(-1);
  return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  const char* call = "MPI_Add_error_code";
  require_initialized(call);
  if (errorcode == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "errorcode is NULL");
  const UserCode* u = user_code(errorclass);
  const bool is_class = u != nullptr ? u->error_class == errorclass : class_text(errorclass) != nullptr;
  if (!is_class) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, std::to_string(errorclass) + " is not an error class");
  }
  *errorcode = add_code(errorclass);
  return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char* string) {
  const char* call = "MPI_Add_error_string";
  require_initialized(call);
  UserCode* u = user_code(errorcode);
  if (u == nullptr) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      errorcode <= MPI_ERR_LASTCODE && errorcode >= 0
                          ? "error code " + std::to_string(errorcode) + " is predefined; its string cannot change"
                          : "invalid error code " + std::to_string(errorcode) + " (not added by MPI_Add_error_code)");
  }
  if (string == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "string is NULL");
  if (std::strlen(string) >= MPI_MAX_ERROR_STRING) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG,
                      "the string has " + std::to_string(std::strlen(string)) + " characters (at most " +
                          std::to_string(MPI_MAX_ERROR_STRING - 1) + ")");
  }
  u->text = string;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Add_error_class = PMPI_Add_error_class
#pragma weak MPI_Add_error_code = PMPI_Add_error_code
#pragma weak MPI_Add_error_string = PMPI_Add_error_string
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
#pragma weak MPI_Error_class = PMPI_Error_class
#pragma weak MPI_Error_string = PMPI_Error_string

}  // extern "C"
