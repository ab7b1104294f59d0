// How every mpftune subcommand ends and speaks: its exit statuses and its
// one-line messages on standard error.
#pragma once

#include <cstdio>
#include <string>

namespace mpf::tune::bench {

inline constexpr int kFailedStatus = 1;
inline constexpr int kUsageStatus = 2;
inline constexpr int kInterruptedStatus = 130;

// "mpftune: MESSAGE" on standard error, at once.
inline void say(const std::string& message) {
  std::fprintf(stderr, "mpftune: %s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace mpf::tune::bench
