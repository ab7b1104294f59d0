// Moving bytes to and from another PE's copy of a symmetric object: a copy
// within the node's heaps, or Cross Memory Attach into the PE's process for
// its global and static variables. On one node every transfer is complete
// when it returns, the nonblocking ones included.
#include <sys/uio.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/streaming_copy.hpp"
#include "rma/put_stream.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {
namespace {

void copy_into_heap(std::byte* to, const void* from, std::uint64_t bytes) {
  if (bytes >= rma::put_stream_threshold()) {
    common::copy_streaming(to, from, bytes);
  } else {
    std::memcpy(to, from, bytes);
  }
}

void copy_pieces(const char* call, std::uint32_t pe, bool write, std::byte* local, const iovec* remote,
                 std::size_t pieces) {
  count(counters().shmem_static_accesses);
  switch (g_state.transport->copy_pieces(pe, write, local, remote, pieces)) {
    case common::Status::done:
    case common::Status::in_progress:
      return;
    case common::Status::retry:
      fail(call, "the kernel refused Cross Memory Attach with PE " + std::to_string(pe) +
                     ", which is the only way to reach another PE's global and static variables (check "
                     "/proc/sys/kernel/yama/ptrace_scope and the container's seccomp profile), or allocate the "
                     "object with shmem_malloc: heap memory needs no system call");
    case common::Status::error:
      fail(call, "Cross Memory Attach with PE " + std::to_string(pe) + " failed (the reason is above)");
  }
}

// The pieces of a strided object in PE pe's process, from `remote` on.
std::vector<iovec> strided_pieces(std::uint64_t remote, std::ptrdiff_t stride, std::uint64_t nelems,
                                  std::uint64_t element) {
  std::vector<iovec> pieces(nelems);
  for (std::uint64_t i = 0; i < nelems; ++i) {
    const auto at =
        static_cast<std::int64_t>(remote) + static_cast<std::int64_t>(i) * stride * static_cast<std::int64_t>(element);
    pieces[i] = {reinterpret_cast<void*>(at), element};
  }
  return pieces;
}

}  // namespace

void cma(const char* call, std::uint32_t pe, bool write, void* local, std::uint64_t remote, std::uint64_t bytes) {
  const iovec piece{reinterpret_cast<void*>(remote), bytes};
  copy_pieces(call, pe, write, static_cast<std::byte*>(local), &piece, 1);
}

void put_bytes(const char* call, std::uint32_t pe, void* dest, const void* source, std::uint64_t bytes) {
  count(counters().shmem_puts);
  count(counters().shmem_put_bytes, bytes);
  if (bytes == 0) return;
  const Place place = locate(call, dest, bytes, pe, "the destination");
  if (place.direct != nullptr) {
    copy_into_heap(place.direct, source, bytes);
  } else {
    cma(call, pe, true, const_cast<void*>(source), place.remote, bytes);
  }
  if (pe != g_state.me) wake(pe);
}

void get_bytes(const char* call, std::uint32_t pe, void* dest, const void* source, std::uint64_t bytes) {
  count(counters().shmem_gets);
  count(counters().shmem_get_bytes, bytes);
  if (bytes == 0) return;
  const Place place = locate(call, source, bytes, pe, "the source");
  if (place.direct != nullptr) {
    std::memcpy(dest, place.direct, bytes);
  } else {
    cma(call, pe, false, dest, place.remote, bytes);
  }
}

void put_strided(const char* call, std::uint32_t pe, void* dest, const void* source, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element) {
  count(counters().shmem_puts);
  count(counters().shmem_put_bytes, nelems * element);
  if (nelems == 0) return;
  const auto span = static_cast<std::uint64_t>((dst < 0 ? -dst : dst)) * (nelems - 1) * element + element;
  const auto* from = static_cast<const std::byte*>(source);
  auto* first = static_cast<std::byte*>(dest);
  // The object's bytes from its lowest to its highest element.
  std::byte* low = dst < 0 ? first - (span - element) : first;
  const Place place = locate(call, low, span, pe, "the destination");
  const std::ptrdiff_t to_step = dst * static_cast<std::ptrdiff_t>(element);
  const std::ptrdiff_t from_step = sst * static_cast<std::ptrdiff_t>(element);
  if (place.direct != nullptr) {
    std::byte* to = place.direct + (first - low);
    for (std::uint64_t i = 0; i < nelems; ++i)
      std::memcpy(to + static_cast<std::ptrdiff_t>(i) * to_step, from + static_cast<std::ptrdiff_t>(i) * from_step,
                  element);
  } else {
    std::vector<std::byte> packed(nelems * element);
    for (std::uint64_t i = 0; i < nelems; ++i)
      std::memcpy(packed.data() + i * element, from + static_cast<std::ptrdiff_t>(i) * from_step, element);
    const std::vector<iovec> pieces =
        strided_pieces(place.remote + static_cast<std::uint64_t>(first - low), dst, nelems, element);
    copy_pieces(call, pe, true, packed.data(), pieces.data(), pieces.size());
  }
  if (pe != g_state.me) wake(pe);
}

void get_strided(const char* call, std::uint32_t pe, void* dest, const void* source, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element) {
  count(counters().shmem_gets);
  count(counters().shmem_get_bytes, nelems * element);
  if (nelems == 0) return;
  const auto span = static_cast<std::uint64_t>((sst < 0 ? -sst : sst)) * (nelems - 1) * element + element;
  const auto* first = static_cast<const std::byte*>(source);
  const std::byte* low = sst < 0 ? first - (span - element) : first;
  const Place place = locate(call, low, span, pe, "the source");
  auto* to = static_cast<std::byte*>(dest);
  const std::ptrdiff_t to_step = dst * static_cast<std::ptrdiff_t>(element);
  const std::ptrdiff_t from_step = sst * static_cast<std::ptrdiff_t>(element);
  if (place.direct != nullptr) {
    const std::byte* from = place.direct + (first - low);
    for (std::uint64_t i = 0; i < nelems; ++i)
      std::memcpy(to + static_cast<std::ptrdiff_t>(i) * to_step, from + static_cast<std::ptrdiff_t>(i) * from_step,
                  element);
  } else {
    std::vector<std::byte> packed(nelems * element);
    const std::vector<iovec> pieces =
        strided_pieces(place.remote + static_cast<std::uint64_t>(first - low), sst, nelems, element);
    copy_pieces(call, pe, false, packed.data(), pieces.data(), pieces.size());
    for (std::uint64_t i = 0; i < nelems; ++i)
      std::memcpy(to + static_cast<std::ptrdiff_t>(i) * to_step, packed.data() + i * element, element);
  }
}

}  // namespace mpf::shmem
