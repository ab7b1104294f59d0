// Debug reports chosen with the `debug` tunable. Each report is one line on
// standard error, "mpf debug: rank R: ...". A report that is off costs one
// predictable branch, so they may stand on hot paths behind [[unlikely]].
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/tunables.hpp"

namespace mpf::common {

struct DebugTopics {
  bool wireup = false;
  bool protocol = false;
  bool wait = false;

  static DebugTopics from(const Tunables& tunables) {
    const std::string& t = tunables.text(Tunable::debug);
    const bool all = t == "all";
    return {all || t == "wireup", all || t == "protocol", all || t == "wait"};
  }
};

// Prints one report line for `rank`.
[[gnu::format(printf, 2, 3)]] inline void debug_report(std::uint32_t rank, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  std::fprintf(stderr, "mpf debug: rank %u: %s\n", rank, line);
}

}  // namespace mpf::common
