#include "mpi/errors.hpp"

#include <cstdio>

#include "core/runtime.hpp"

namespace mpf::mpi {

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

}  // namespace mpf::mpi
