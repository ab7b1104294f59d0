// The collectives of a team, in bytes and elements, shared by the team
// routines (collectives.cpp) and the deprecated active-set ones
// (deprecated.cpp). Each runs lib/coll's algorithms on the team's group.
#pragma once

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/combine.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {

// Root's `source` to every PE's `dest`; the root's own dest is written
// too unless `root_too` is false (the deprecated broadcast32/64).
void broadcast_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes,
                     int root, bool root_too);
// Every PE's `bytes` (which may differ) to every PE's dest, in PE order.
void collect_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes);
// The same with equal blocks.
void fcollect_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes);
// Block j of `bytes` of each PE's source to PE j's dest, at the sender's place.
void alltoall_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes);
// The same with `nelems` elements of `element` bytes per PE, strided by
// dst and sst elements.
void alltoalls_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::ptrdiff_t dst,
                     std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element);

template <class T>
constexpr coll::Element element_of() {
  if constexpr (std::is_same_v<T, float>)
    return coll::Element::f32;
  else if constexpr (std::is_same_v<T, double>)
    return coll::Element::f64;
  else if constexpr (std::is_same_v<T, long double>)
    return coll::Element::long_double;
  else if constexpr (sizeof(T) == 2 * sizeof(float) && !std::is_integral_v<T>)
    return coll::Element::complex_f32;
  else if constexpr (sizeof(T) == 2 * sizeof(double) && !std::is_integral_v<T>)
    return coll::Element::complex_f64;
  else if constexpr (sizeof(T) == 1)
    return std::is_signed_v<T> ? coll::Element::i8 : coll::Element::u8;
  else if constexpr (sizeof(T) == 2)
    return std::is_signed_v<T> ? coll::Element::i16 : coll::Element::u16;
  else if constexpr (sizeof(T) == 4)
    return std::is_signed_v<T> ? coll::Element::i32 : coll::Element::u32;
  else
    return std::is_signed_v<T> ? coll::Element::i64 : coll::Element::u64;
}

// dest[i] = source[i] op over the team's PEs, for nreduce elements (dest
// and source may be the same array).
void reduce_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t nreduce,
                  coll::Combine combine);

template <class T>
int reduce(const char* call, mpf_shmem_team& team, T* dest, const T* source, std::size_t nreduce, coll::Op op) {
  reduce_bytes(call, team, dest, source, nreduce, coll::Combine::predefined(op, element_of<T>()));
  return 0;
}

}  // namespace mpf::shmem
