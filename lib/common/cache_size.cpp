// last_level_cache_bytes (common/streaming_copy.hpp): from sysfs, not
// sysconf(_SC_LEVEL3_CACHE_SIZE): in a VM glibc's CPUID answer can be the
// host package's (256 MiB on this project's test machine, where sysfs
// says the 32 MiB the two vCPUs share).
#include <sched.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "common/streaming_copy.hpp"

namespace mpf::common {
namespace {

// "32768K" -> 33554432; 0 when it is not a size.
std::uint64_t parse_cache_size(const std::string& text) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (...) {
    return 0;
  }
  const char unit = used < text.size() ? text[used] : ' ';
  if (unit == 'K') return value << 10;
  if (unit == 'M') return value << 20;
  if (unit == 'G') return value << 30;
  return value;
}

std::uint64_t read_last_level_cache() {
  const int cpu = sched_getcpu();
  const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu < 0 ? 0 : cpu) + "/cache/index";
  std::uint64_t largest = 0;
  for (int index = 0; index < 8; ++index) {
    std::ifstream size(dir + std::to_string(index) + "/size");
    std::string text;
    if (!(size >> text)) break;
    const std::uint64_t bytes = parse_cache_size(text);
    if (bytes > largest) largest = bytes;
  }
  return largest;
}

}  // namespace

std::uint64_t last_level_cache_bytes() {
  static const std::uint64_t bytes = read_last_level_cache();
  return bytes;
}

}  // namespace mpf::common
