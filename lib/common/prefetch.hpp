// Prefetching cache lines that this CPU is about to write.
#pragma once

#include <cstddef>

namespace mpf::common {

// Asks for the cache lines of [p, p + bytes) in a state this CPU can write
// (x86 PREFETCHW; a write prefetch elsewhere), without waiting for them. A
// line another CPU wrote or read last is then fetched in the background
// instead of when the write comes: in shared memory, the time of one
// transfer between CPUs per line. A hint only: nothing is written.
inline void prefetch_for_write(const void* p, std::size_t bytes) {
  const char* line = static_cast<const char*>(p);
  for (std::size_t offset = 0; offset < bytes; offset += 64) {
#if defined(__x86_64__) || defined(__i386__)
    // Not __builtin_prefetch(p, 1): without -mprfchw GCC makes that a read
    // prefetch, which leaves the write to ask for the line again.
    // PREFETCHW is a no-op on x86 CPUs too old to know it.
    asm volatile("prefetchw %0" : : "m"(line[offset]));
#else
    __builtin_prefetch(line + offset, 1, 3);
#endif
  }
}

}  // namespace mpf::common
