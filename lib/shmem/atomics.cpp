// Atomic memory operations of every type of the standard's tables, their
// context forms and fetching nonblocking forms, and the deprecated names
// ported programs still call (shmem_int_fadd ...). Each is amo.hpp's amo().
#include <shmem.h>

#include <cstdio>
#include <string>

#include "shmem/amo.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {

void fail_misaligned(const char* call, const void* address, std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", address);
  fail(call, std::string("the object at ") + text + " is not aligned to its size (" + std::to_string(bytes) +
                 " bytes): atomics need naturally aligned objects");
}

}  // namespace mpf::shmem

using mpf::shmem::Amo;
using mpf::shmem::amo;
using mpf::shmem::checked_pe;
using mpf::shmem::context_pe;

extern "C" {

// Fetch, set and swap: the extended AMO types.
#define MPF_DEFINE_EXTENDED_AMO(NAME, TYPE)                                                                \
  TYPE pshmem_##NAME##_atomic_fetch(const TYPE* source, int pe) {                                          \
    const char* call = "shmem_" #NAME "_atomic_fetch";                                                     \
    return amo<Amo::fetch>(call, checked_pe(call, pe), const_cast<TYPE*>(source));                         \
  }                                                                                                        \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch)                                                                      \
  TYPE pshmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE* source, int pe) {                     \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch";                                                 \
    return amo<Amo::fetch>(call, context_pe(call, ctx, pe), const_cast<TYPE*>(source));                    \
  }                                                                                                        \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch)                                                                \
  void pshmem_##NAME##_atomic_fetch_nbi(TYPE* fetch, const TYPE* source, int pe) {                         \
    const char* call = "shmem_" #NAME "_atomic_fetch_nbi";                                                 \
    *fetch = amo<Amo::fetch>(call, checked_pe(call, pe), const_cast<TYPE*>(source));                       \
  }                                                                                                        \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_nbi)                                                                  \
  void pshmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE* fetch, const TYPE* source, int pe) {    \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_nbi";                                             \
    *fetch = amo<Amo::fetch>(call, context_pe(call, ctx, pe), const_cast<TYPE*>(source));                  \
  }                                                                                                        \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_nbi)                                                            \
  void pshmem_##NAME##_atomic_set(TYPE* dest, TYPE value, int pe) {                                        \
    const char* call = "shmem_" #NAME "_atomic_set";                                                       \
    amo<Amo::set>(call, checked_pe(call, pe), dest, value);                                                \
  }                                                                                                        \
  MPF_SHMEM_WEAK(NAME##_atomic_set)                                                                        \
  void pshmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                   \
    const char* call = "shmem_ctx_" #NAME "_atomic_set";                                                   \
    amo<Amo::set>(call, context_pe(call, ctx, pe), dest, value);                                           \
  }                                                                                                        \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_set)                                                                  \
  TYPE pshmem_##NAME##_atomic_swap(TYPE* dest, TYPE value, int pe) {                                       \
    const char* call = "shmem_" #NAME "_atomic_swap";                                                      \
    return amo<Amo::swap>(call, checked_pe(call, pe), dest, value);                                        \
  }                                                                                                        \
  MPF_SHMEM_WEAK(NAME##_atomic_swap)                                                                       \
  TYPE pshmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                  \
    const char* call = "shmem_ctx_" #NAME "_atomic_swap";                                                  \
    return amo<Amo::swap>(call, context_pe(call, ctx, pe), dest, value);                                   \
  }                                                                                                        \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_swap)                                                                 \
  void pshmem_##NAME##_atomic_swap_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                      \
    const char* call = "shmem_" #NAME "_atomic_swap_nbi";                                                  \
    *fetch = amo<Amo::swap>(call, checked_pe(call, pe), dest, value);                                      \
  }                                                                                                        \
  MPF_SHMEM_WEAK(NAME##_atomic_swap_nbi)                                                                   \
  void pshmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) { \
    const char* call = "shmem_ctx_" #NAME "_atomic_swap_nbi";                                              \
    *fetch = amo<Amo::swap>(call, context_pe(call, ctx, pe), dest, value);                                 \
  }                                                                                                        \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_swap_nbi)
MPF_SHMEM_EXTENDED_AMO_TYPES(MPF_DEFINE_EXTENDED_AMO)

// Compare-and-swap, add and increment: the standard AMO types.
#define MPF_DEFINE_AMO(NAME, TYPE)                                                                                  \
  TYPE pshmem_##NAME##_atomic_compare_swap(TYPE* dest, TYPE cond, TYPE value, int pe) {                             \
    const char* call = "shmem_" #NAME "_atomic_compare_swap";                                                       \
    return amo<Amo::compare_swap>(call, checked_pe(call, pe), dest, value, cond);                                   \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_compare_swap)                                                                        \
  TYPE pshmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE* dest, TYPE cond, TYPE value, int pe) {        \
    const char* call = "shmem_ctx_" #NAME "_atomic_compare_swap";                                                   \
    return amo<Amo::compare_swap>(call, context_pe(call, ctx, pe), dest, value, cond);                              \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_compare_swap)                                                                  \
  void pshmem_##NAME##_atomic_compare_swap_nbi(TYPE* fetch, TYPE* dest, TYPE cond, TYPE value, int pe) {            \
    const char* call = "shmem_" #NAME "_atomic_compare_swap_nbi";                                                   \
    *fetch = amo<Amo::compare_swap>(call, checked_pe(call, pe), dest, value, cond);                                 \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_compare_swap_nbi)                                                                    \
  void pshmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE cond, TYPE value, \
                                                   int pe) {                                                        \
    const char* call = "shmem_ctx_" #NAME "_atomic_compare_swap_nbi";                                               \
    *fetch = amo<Amo::compare_swap>(call, context_pe(call, ctx, pe), dest, value, cond);                            \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_compare_swap_nbi)                                                              \
  TYPE pshmem_##NAME##_atomic_fetch_add(TYPE* dest, TYPE value, int pe) {                                           \
    const char* call = "shmem_" #NAME "_atomic_fetch_add";                                                          \
    return amo<Amo::add>(call, checked_pe(call, pe), dest, value);                                                  \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_add)                                                                           \
  TYPE pshmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                      \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_add";                                                      \
    return amo<Amo::add>(call, context_pe(call, ctx, pe), dest, value);                                             \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_add)                                                                     \
  void pshmem_##NAME##_atomic_fetch_add_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                          \
    const char* call = "shmem_" #NAME "_atomic_fetch_add_nbi";                                                      \
    *fetch = amo<Amo::add>(call, checked_pe(call, pe), dest, value);                                                \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_add_nbi)                                                                       \
  void pshmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) {     \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_add_nbi";                                                  \
    *fetch = amo<Amo::add>(call, context_pe(call, ctx, pe), dest, value);                                           \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_add_nbi)                                                                 \
  void pshmem_##NAME##_atomic_add(TYPE* dest, TYPE value, int pe) {                                                 \
    const char* call = "shmem_" #NAME "_atomic_add";                                                                \
    amo<Amo::add>(call, checked_pe(call, pe), dest, value);                                                         \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_add)                                                                                 \
  void pshmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                            \
    const char* call = "shmem_ctx_" #NAME "_atomic_add";                                                            \
    amo<Amo::add>(call, context_pe(call, ctx, pe), dest, value);                                                    \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_add)                                                                           \
  TYPE pshmem_##NAME##_atomic_fetch_inc(TYPE* dest, int pe) {                                                       \
    const char* call = "shmem_" #NAME "_atomic_fetch_inc";                                                          \
    return amo<Amo::add>(call, checked_pe(call, pe), dest, static_cast<TYPE>(1));                                   \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_inc)                                                                           \
  TYPE pshmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE* dest, int pe) {                                  \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_inc";                                                      \
    return amo<Amo::add>(call, context_pe(call, ctx, pe), dest, static_cast<TYPE>(1));                              \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_inc)                                                                     \
  void pshmem_##NAME##_atomic_fetch_inc_nbi(TYPE* fetch, TYPE* dest, int pe) {                                      \
    const char* call = "shmem_" #NAME "_atomic_fetch_inc_nbi";                                                      \
    *fetch = amo<Amo::add>(call, checked_pe(call, pe), dest, static_cast<TYPE>(1));                                 \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_inc_nbi)                                                                       \
  void pshmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, int pe) {                 \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_inc_nbi";                                                  \
    *fetch = amo<Amo::add>(call, context_pe(call, ctx, pe), dest, static_cast<TYPE>(1));                            \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_inc_nbi)                                                                 \
  void pshmem_##NAME##_atomic_inc(TYPE* dest, int pe) {                                                             \
    const char* call = "shmem_" #NAME "_atomic_inc";                                                                \
    amo<Amo::add>(call, checked_pe(call, pe), dest, static_cast<TYPE>(1));                                          \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(NAME##_atomic_inc)                                                                                 \
  void pshmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE* dest, int pe) {                                        \
    const char* call = "shmem_ctx_" #NAME "_atomic_inc";                                                            \
    amo<Amo::add>(call, context_pe(call, ctx, pe), dest, static_cast<TYPE>(1));                                     \
  }                                                                                                                 \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_inc)
MPF_SHMEM_AMO_TYPES(MPF_DEFINE_AMO)

// And, or and xor: the bitwise AMO types.
#define MPF_DEFINE_BITWISE_AMO_OP(NAME, TYPE, OP)                                                                  \
  TYPE pshmem_##NAME##_atomic_fetch_##OP(TYPE* dest, TYPE value, int pe) {                                         \
    const char* call = "shmem_" #NAME "_atomic_fetch_" #OP;                                                        \
    return amo<Amo::fetch_##OP>(call, checked_pe(call, pe), dest, value);                                          \
  }                                                                                                                \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_##OP)                                                                         \
  TYPE pshmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                    \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_" #OP;                                                    \
    return amo<Amo::fetch_##OP>(call, context_pe(call, ctx, pe), dest, value);                                     \
  }                                                                                                                \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_##OP)                                                                   \
  void pshmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE* fetch, TYPE* dest, TYPE value, int pe) {                      \
    const char* call = "shmem_" #NAME "_atomic_fetch_" #OP "_nbi";                                                 \
    *fetch = amo<Amo::fetch_##OP>(call, checked_pe(call, pe), dest, value);                                        \
  }                                                                                                                \
  MPF_SHMEM_WEAK(NAME##_atomic_fetch_##OP##_nbi)                                                                   \
  void pshmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE* fetch, TYPE* dest, TYPE value, int pe) { \
    const char* call = "shmem_ctx_" #NAME "_atomic_fetch_" #OP "_nbi";                                             \
    *fetch = amo<Amo::fetch_##OP>(call, context_pe(call, ctx, pe), dest, value);                                   \
  }                                                                                                                \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_fetch_##OP##_nbi)                                                             \
  void pshmem_##NAME##_atomic_##OP(TYPE* dest, TYPE value, int pe) {                                               \
    const char* call = "shmem_" #NAME "_atomic_" #OP;                                                              \
    amo<Amo::fetch_##OP>(call, checked_pe(call, pe), dest, value);                                                 \
  }                                                                                                                \
  MPF_SHMEM_WEAK(NAME##_atomic_##OP)                                                                               \
  void pshmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                          \
    const char* call = "shmem_ctx_" #NAME "_atomic_" #OP;                                                          \
    amo<Amo::fetch_##OP>(call, context_pe(call, ctx, pe), dest, value);                                            \
  }                                                                                                                \
  MPF_SHMEM_WEAK(ctx_##NAME##_atomic_##OP)
#define MPF_DEFINE_BITWISE_AMO(NAME, TYPE)   \
  MPF_DEFINE_BITWISE_AMO_OP(NAME, TYPE, and) \
  MPF_DEFINE_BITWISE_AMO_OP(NAME, TYPE, or)  \
  MPF_DEFINE_BITWISE_AMO_OP(NAME, TYPE, xor)
MPF_SHMEM_BITWISE_AMO_TYPES(MPF_DEFINE_BITWISE_AMO)

// The names before OpenSHMEM 1.4, deprecated.
#define MPF_DEFINE_OLD_EXTENDED_AMO(NAME, TYPE)                                                         \
  TYPE pshmem_##NAME##_fetch(const TYPE* source, int pe) {                                              \
    return amo<Amo::fetch>("shmem_" #NAME "_fetch", checked_pe("shmem_" #NAME "_fetch", pe),            \
                           const_cast<TYPE*>(source));                                                  \
  }                                                                                                     \
  MPF_SHMEM_WEAK(NAME##_fetch)                                                                          \
  void pshmem_##NAME##_set(TYPE* dest, TYPE value, int pe) {                                            \
    amo<Amo::set>("shmem_" #NAME "_set", checked_pe("shmem_" #NAME "_set", pe), dest, value);           \
  }                                                                                                     \
  MPF_SHMEM_WEAK(NAME##_set)                                                                            \
  TYPE pshmem_##NAME##_swap(TYPE* dest, TYPE value, int pe) {                                           \
    return amo<Amo::swap>("shmem_" #NAME "_swap", checked_pe("shmem_" #NAME "_swap", pe), dest, value); \
  }                                                                                                     \
  MPF_SHMEM_WEAK(NAME##_swap)
MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(MPF_DEFINE_OLD_EXTENDED_AMO)
#define MPF_DEFINE_OLD_AMO(NAME, TYPE)                                                                                \
  TYPE pshmem_##NAME##_cswap(TYPE* dest, TYPE cond, TYPE value, int pe) {                                             \
    return amo<Amo::compare_swap>("shmem_" #NAME "_cswap", checked_pe("shmem_" #NAME "_cswap", pe), dest, value,      \
                                  cond);                                                                              \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_cswap)                                                                                        \
  TYPE pshmem_##NAME##_fadd(TYPE* dest, TYPE value, int pe) {                                                         \
    return amo<Amo::add>("shmem_" #NAME "_fadd", checked_pe("shmem_" #NAME "_fadd", pe), dest, value);                \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_fadd)                                                                                         \
  TYPE pshmem_##NAME##_finc(TYPE* dest, int pe) {                                                                     \
    return amo<Amo::add>("shmem_" #NAME "_finc", checked_pe("shmem_" #NAME "_finc", pe), dest, static_cast<TYPE>(1)); \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_finc)                                                                                         \
  void pshmem_##NAME##_add(TYPE* dest, TYPE value, int pe) {                                                          \
    amo<Amo::add>("shmem_" #NAME "_add", checked_pe("shmem_" #NAME "_add", pe), dest, value);                         \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_add)                                                                                          \
  void pshmem_##NAME##_inc(TYPE* dest, int pe) {                                                                      \
    amo<Amo::add>("shmem_" #NAME "_inc", checked_pe("shmem_" #NAME "_inc", pe), dest, static_cast<TYPE>(1));          \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_inc)
MPF_SHMEM_OLD_AMO_TYPES(MPF_DEFINE_OLD_AMO)

}  // extern "C"
