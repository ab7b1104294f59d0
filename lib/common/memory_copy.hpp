// memcpy, avoiding one slow case of the C library's.
//
// glibc's memcpy copies mid-sized blocks with `rep movsb`, which on some
// CPUs (AMD Zen with FSRM, measured here) runs 10-15x slower when the
// destination lies a few bytes past the source modulo 4 KiB: a distance
// of 1..31 bytes (2.9 GB/s instead of 30-50 for 4 KiB .. 256 KiB). A
// window's memory is page aligned and a malloc'd buffer 16 bytes past a
// page, so MPI_Get into such a buffer met it on every call. Those copies
// go through a vector loop here instead; every other copy is memcpy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mpf::common {

#if defined(__SSE2__)
// Copies `bytes` (a multiple of 64) in blocks of 64 with unaligned loads,
// each 16 bytes stored with `store` (ordinary or streaming).
template <class Store>
inline void copy_blocks_of_64(std::byte* to, const std::byte* from, std::size_t bytes, Store&& store) {
  for (std::size_t i = 0; i < bytes; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i + 48));
    store(reinterpret_cast<__m128i*>(to + i), a);
    store(reinterpret_cast<__m128i*>(to + i + 16), b);
    store(reinterpret_cast<__m128i*>(to + i + 32), c);
    store(reinterpret_cast<__m128i*>(to + i + 48), d);
  }
}
#endif

inline void copy_memory(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__)
  const std::uintptr_t distance = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095;
  if (bytes >= 2048 && distance != 0 && distance < 32) {
    auto* to = static_cast<std::byte*>(dst);
    const auto* from = static_cast<const std::byte*>(src);
    const std::size_t body = bytes / 64 * 64;
    copy_blocks_of_64(to, from, body, [](__m128i* at, __m128i v) { _mm_storeu_si128(at, v); });
    std::memcpy(to + body, from + body, bytes - body);
    return;
  }
#endif
  if (bytes > 0) std::memcpy(dst, src, bytes);
}

}  // namespace mpf::common
