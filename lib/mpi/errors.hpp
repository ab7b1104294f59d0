// How MPI calls report errors (SPEC §3, §10): every error names the call, the
// rank and the bad argument, e.g.
//   MPI_Send (rank 3): invalid destination rank 99 in a communicator of size 4
// What happens next is the communicator's error handler: MPI_ERRORS_ARE_FATAL
// (the default) prints the message and ends the job through mpfrun;
// MPI_ERRORS_RETURN returns the error class to the caller.
#pragma once

#include <mpi.h>

#include <string>

#include "core/runtime.hpp"

namespace mpf::mpi {

// Reports `detail` for `call` and ends the job (errors with no communicator
// to take a handler from, and errors before MPI_Init).
[[noreturn]] void fatal_error(const char* call, int error_class, const std::string& detail);

// Reports an error on `comm` through its error handler; returns the error
// class when the handler returns.
int comm_error(const char* call, MPI_Comm comm, int error_class, const std::string& detail);

// Reports an error on object `object` (a communicator, a window) through
// error handler `h`: returns the error class when the handler returns.
int handle_error(const char* call, MPI_Errhandler h, int object, int error_class, const std::string& detail);
// A predefined or program-made error handler.
bool errhandler_is_valid(MPI_Errhandler h);
// A new handler calling `function` (MPI_Comm_create_errhandler and
// MPI_Win_create_errhandler: handles are ints, so their functions agree).
MPI_Errhandler add_errhandler(MPI_Comm_errhandler_function* function);

// The rank to name in messages: the world rank once initialised, else "?".
std::string rank_label();

// The highest error code in use: MPI_ERR_LASTCODE, or the last one the
// program added (the MPI_LASTUSEDCODE attribute).
int last_used_error_code();

// The communicator's handler (MPI_ERRORS_ARE_FATAL or MPI_ERRORS_RETURN).
MPI_Errhandler errhandler_of(MPI_Comm comm);

// Ends the job: `call` came before MPI_Init or after MPI_Finalize.
[[noreturn]] void not_initialized(const char* call);
// Checks that MPI is initialised and not finalized; fatal otherwise. Inline:
// every call pays it.
inline void require_initialized(const char* call) {
  const core::Runtime& rt = core::Runtime::instance();
  if (!rt.joined(core::Api::mpi)) [[unlikely]] not_initialized(call);
}

}  // namespace mpf::mpi
