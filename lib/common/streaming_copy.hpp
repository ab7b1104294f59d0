// Copies whose destination should not go through the cache.
//
// An ordinary store to a line that is not in the cache first reads the line
// in (read for ownership), so copying into a cold buffer moves each byte
// three times: the source in, the destination in, the destination out. A
// streaming (non-temporal) store writes whole lines without reading them,
// which roughly doubles the rate of a copy into cold memory. The price:
// the destination is not in the cache after,
// so it only pays when it would have been evicted anyway, as when the
// copies of a collective across a node outgrow the last-level cache.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/memory_copy.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mpf::common {

// memcpy(dst, src, bytes), with streaming stores for the whole 16-byte
// lines of `dst` (x86-64; memcpy elsewhere). Ends with a store fence, so
// the data is ordered before whatever the caller publishes next.
inline void copy_streaming(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;  // either pointer may then be null, which memcpy may not take
#if defined(__SSE2__)
  auto* to = static_cast<std::byte*>(dst);
  const auto* from = static_cast<const std::byte*>(src);
  const std::size_t head = std::min<std::size_t>(bytes, (16 - reinterpret_cast<std::uintptr_t>(to) % 16) % 16);
  std::memcpy(to, from, head);
  to += head;
  from += head;
  bytes -= head;
  const std::size_t body = bytes / 64 * 64;
  copy_blocks_of_64(to, from, body, [](__m128i* at, __m128i v) { _mm_stream_si128(at, v); });
  _mm_sfence();
  std::memcpy(to + body, from + body, bytes - body);
#else
  std::memcpy(dst, src, bytes);
#endif
}

// memcpy, or copy_streaming when `stream` (a caller's choice made once per
// collective, coll::Plan::streams).
inline void copy_out(void* dst, const void* src, std::size_t bytes, bool stream) {
  if (stream) {
    copy_streaming(dst, src, bytes);
  } else if (bytes > 0) {
    std::memcpy(dst, src, bytes);
  }
}

// Bytes of the largest cache of the CPU this process runs on (the
// last-level cache), from /sys/devices/system/cpu/cpuN/cache; 0 when the
// system does not say. Read once.
std::uint64_t last_level_cache_bytes();

// The bytes that copies across a node must add up to before they stream
// (the coll_stream_copy tunable): `configured`, or when that is 0, half
// the last-level cache (the sources and other data share it with the
// destinations); 16 MiB when the system does not say its size.
inline std::uint64_t stream_threshold(std::uint64_t configured) {
  if (configured > 0) return configured;
  constexpr std::uint64_t kUnknownCache = std::uint64_t{32} << 20;
  const std::uint64_t cache = last_level_cache_bytes();
  return (cache > 0 ? cache : kUnknownCache) / 2;
}

}  // namespace mpf::common
