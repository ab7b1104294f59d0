// One way to describe a failed system call to a person: the call, then the
// errno text ("memfd_create: Too many open files").
#pragma once

#include <cstring>
#include <string>

namespace mpf::common {

inline std::string system_error_text(const std::string& call, int err) {
  return call + ": " + std::strerror(err);
}

}  // namespace mpf::common
