// How an MPI call reports an error. Until error handlers arrive with the
// point-to-point layer, every communicator has MPI_ERRORS_ARE_FATAL: the error
// is printed once, naming the call, the rank and the bad argument, and the
// job ends through mpfrun.
#pragma once

#include <string>

namespace mpf::mpi {

// Reports `detail` for `call` with error class `error_class` and ends the job.
[[noreturn]] void fatal_error(const char* call, int error_class, const std::string& detail);

// The rank to name in messages: the world rank once initialised, else "?".
std::string rank_label();

}  // namespace mpf::mpi
