// Remote memory access: puts and gets of every type, sized and untyped,
// single elements, strided, nonblocking, and puts with a signal. The typed
// routines are stamped out from shmem.h's type tables; each is a call of
// the few functions here.
#include <shmem.h>

#include <cstring>

#include "shmem/amo.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {
namespace {

// A single element (shmem_TYPE_p): in a heap, one store; PE pe is woken if
// it sleeps waiting for it.
template <class T>
inline void put_value(const char* call, std::uint32_t pe, T* dest, T value) {
  if (std::byte* copy = heap_copy(dest, sizeof(T), pe)) [[likely]] {
    count(counters().shmem_puts);
    count(counters().shmem_put_bytes, sizeof(T));
    std::memcpy(copy, &value, sizeof(T));
    if (pe != g_state.me) wake(pe);
    return;
  }
  put_bytes(call, pe, dest, &value, sizeof(T));
}

template <class T>
inline T get_value(const char* call, std::uint32_t pe, const T* source) {
  T value;
  if (const std::byte* copy = heap_copy(source, sizeof(T), pe)) [[likely]] {
    count(counters().shmem_gets);
    count(counters().shmem_get_bytes, sizeof(T));
    std::memcpy(&value, copy, sizeof(T));
    return value;
  }
  get_bytes(call, pe, &value, source, sizeof(T));
  return value;
}

// The signal of a put with signal, after its data: set or added
// atomically, so that a PE waiting on it sees the data once it sees the
// signal.
void signal(const char* call, std::uint32_t pe, std::uint64_t* sig_addr, std::uint64_t value, int sig_op) {
  count(counters().shmem_signals);
  if (sig_op == SHMEM_SIGNAL_SET) {
    amo<Amo::set>(call, pe, sig_addr, value);
  } else if (sig_op == SHMEM_SIGNAL_ADD) {
    amo<Amo::add>(call, pe, sig_addr, value);
  } else {
    fail(call, "sig_op " + std::to_string(sig_op) + " is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD");
  }
}

void put_signal(const char* call, std::uint32_t pe, void* dest, const void* source, std::uint64_t bytes,
                std::uint64_t* sig_addr, std::uint64_t value, int sig_op) {
  put_bytes(call, pe, dest, source, bytes);
  signal(call, pe, sig_addr, value, sig_op);
}

}  // namespace
}  // namespace mpf::shmem

using mpf::shmem::checked_pe;
using mpf::shmem::context_pe;
using mpf::shmem::get_bytes;
using mpf::shmem::get_strided;
using mpf::shmem::get_value;
using mpf::shmem::put_bytes;
using mpf::shmem::put_signal;
using mpf::shmem::put_strided;
using mpf::shmem::put_value;

extern "C" {

// The operations of element `bytes` named SUFFIX (TYPE_put, put32,
// putmem...): their call names, and their context forms.
#define MPF_DEFINE_MOVES(SUFFIX, BYTES)                                                                                \
  void pshmem_put##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {                                     \
    put_bytes("shmem_put" #SUFFIX, checked_pe("shmem_put" #SUFFIX, pe), dest, source, nelems*(BYTES));                 \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(put##SUFFIX)                                                                                          \
  void pshmem_ctx_put##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {                \
    put_bytes("shmem_ctx_put" #SUFFIX, context_pe("shmem_ctx_put" #SUFFIX, ctx, pe), dest, source, nelems*(BYTES));    \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_put##SUFFIX)                                                                                      \
  void pshmem_get##SUFFIX(void* dest, const void* source, size_t nelems, int pe) {                                     \
    get_bytes("shmem_get" #SUFFIX, checked_pe("shmem_get" #SUFFIX, pe), dest, source, nelems*(BYTES));                 \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(get##SUFFIX)                                                                                          \
  void pshmem_ctx_get##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {                \
    get_bytes("shmem_ctx_get" #SUFFIX, context_pe("shmem_ctx_get" #SUFFIX, ctx, pe), dest, source, nelems*(BYTES));    \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_get##SUFFIX)                                                                                      \
  void pshmem_put##SUFFIX##_nbi(void* dest, const void* source, size_t nelems, int pe) {                               \
    put_bytes("shmem_put" #SUFFIX "_nbi", checked_pe("shmem_put" #SUFFIX "_nbi", pe), dest, source, nelems*(BYTES));   \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(put##SUFFIX##_nbi)                                                                                    \
  void pshmem_ctx_put##SUFFIX##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    put_bytes("shmem_ctx_put" #SUFFIX "_nbi", context_pe("shmem_ctx_put" #SUFFIX "_nbi", ctx, pe), dest, source,       \
              nelems*(BYTES));                                                                                         \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_put##SUFFIX##_nbi)                                                                                \
  void pshmem_get##SUFFIX##_nbi(void* dest, const void* source, size_t nelems, int pe) {                               \
    get_bytes("shmem_get" #SUFFIX "_nbi", checked_pe("shmem_get" #SUFFIX "_nbi", pe), dest, source, nelems*(BYTES));   \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(get##SUFFIX##_nbi)                                                                                    \
  void pshmem_ctx_get##SUFFIX##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe) {          \
    get_bytes("shmem_ctx_get" #SUFFIX "_nbi", context_pe("shmem_ctx_get" #SUFFIX "_nbi", ctx, pe), dest, source,       \
              nelems*(BYTES));                                                                                         \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_get##SUFFIX##_nbi)                                                                                \
  void pshmem_put##SUFFIX##_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, \
                                   int sig_op, int pe) {                                                               \
    put_signal("shmem_put" #SUFFIX "_signal", checked_pe("shmem_put" #SUFFIX "_signal", pe), dest, source,             \
               nelems*(BYTES), sig_addr, signal, sig_op);                                                              \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(put##SUFFIX##_signal)                                                                                 \
  void pshmem_ctx_put##SUFFIX##_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,                 \
                                       uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                      \
    put_signal("shmem_ctx_put" #SUFFIX "_signal", context_pe("shmem_ctx_put" #SUFFIX "_signal", ctx, pe), dest,        \
               source, nelems*(BYTES), sig_addr, signal, sig_op);                                                      \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_put##SUFFIX##_signal)                                                                             \
  void pshmem_put##SUFFIX##_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,              \
                                       uint64_t signal, int sig_op, int pe) {                                          \
    put_signal("shmem_put" #SUFFIX "_signal_nbi", checked_pe("shmem_put" #SUFFIX "_signal_nbi", pe), dest, source,     \
               nelems*(BYTES), sig_addr, signal, sig_op);                                                              \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(put##SUFFIX##_signal_nbi)                                                                             \
  void pshmem_ctx_put##SUFFIX##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,             \
                                           uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                  \
    put_signal("shmem_ctx_put" #SUFFIX "_signal_nbi", context_pe("shmem_ctx_put" #SUFFIX "_signal_nbi", ctx, pe),      \
               dest, source, nelems*(BYTES), sig_addr, signal, sig_op);                                                \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(ctx_put##SUFFIX##_signal_nbi)

// Strided forms (TYPE_iput, iput32): elements of `bytes`.
#define MPF_DEFINE_STRIDED(SUFFIX, BYTES)                                                                             \
  void pshmem_iput##SUFFIX(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
    put_strided("shmem_iput" #SUFFIX, checked_pe("shmem_iput" #SUFFIX, pe), dest, source, dst, sst, nelems, (BYTES)); \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(iput##SUFFIX)                                                                                        \
  void pshmem_ctx_iput##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,         \
                               size_t nelems, int pe) {                                                               \
    put_strided("shmem_ctx_iput" #SUFFIX, context_pe("shmem_ctx_iput" #SUFFIX, ctx, pe), dest, source, dst, sst,      \
                nelems, (BYTES));                                                                                     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_iput##SUFFIX)                                                                                    \
  void pshmem_iget##SUFFIX(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {     \
    get_strided("shmem_iget" #SUFFIX, checked_pe("shmem_iget" #SUFFIX, pe), dest, source, dst, sst, nelems, (BYTES)); \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(iget##SUFFIX)                                                                                        \
  void pshmem_ctx_iget##SUFFIX(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,         \
                               size_t nelems, int pe) {                                                               \
    get_strided("shmem_ctx_iget" #SUFFIX, context_pe("shmem_ctx_iget" #SUFFIX, ctx, pe), dest, source, dst, sst,      \
                nelems, (BYTES));                                                                                     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_iget##SUFFIX)

#define MPF_DEFINE_SIZED(BITS, BYTES) MPF_DEFINE_MOVES(BITS, BYTES) MPF_DEFINE_STRIDED(BITS, BYTES)
MPF_SHMEM_SIZES(MPF_DEFINE_SIZED)
MPF_DEFINE_MOVES(mem, 1)

// The typed forms: shmem_TYPE_put(TYPE* dest, ...) is shmem_putmem of
// nelems * sizeof(TYPE); p and g move one element.
#define MPF_DEFINE_TYPED(NAME, TYPE)                                                                                  \
  void pshmem_##NAME##_p(TYPE* dest, TYPE value, int pe) {                                                            \
    put_value("shmem_" #NAME "_p", checked_pe("shmem_" #NAME "_p", pe), dest, value);                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_p)                                                                                            \
  void pshmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE* dest, TYPE value, int pe) {                                       \
    put_value("shmem_ctx_" #NAME "_p", context_pe("shmem_ctx_" #NAME "_p", ctx, pe), dest, value);                    \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_p)                                                                                      \
  TYPE pshmem_##NAME##_g(const TYPE* source, int pe) {                                                                \
    return get_value("shmem_" #NAME "_g", checked_pe("shmem_" #NAME "_g", pe), source);                               \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_g)                                                                                            \
  TYPE pshmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE* source, int pe) {                                           \
    return get_value("shmem_ctx_" #NAME "_g", context_pe("shmem_ctx_" #NAME "_g", ctx, pe), source);                  \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_g)                                                                                      \
  void pshmem_##NAME##_put(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                                   \
    put_bytes("shmem_" #NAME "_put", checked_pe("shmem_" #NAME "_put", pe), dest, source, nelems * sizeof(TYPE));     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_put)                                                                                          \
  void pshmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {              \
    put_bytes("shmem_ctx_" #NAME "_put", context_pe("shmem_ctx_" #NAME "_put", ctx, pe), dest, source,                \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_put)                                                                                    \
  void pshmem_##NAME##_get(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                                   \
    get_bytes("shmem_" #NAME "_get", checked_pe("shmem_" #NAME "_get", pe), dest, source, nelems * sizeof(TYPE));     \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_get)                                                                                          \
  void pshmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {              \
    get_bytes("shmem_ctx_" #NAME "_get", context_pe("shmem_ctx_" #NAME "_get", ctx, pe), dest, source,                \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_get)                                                                                    \
  void pshmem_##NAME##_put_nbi(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                               \
    put_bytes("shmem_" #NAME "_put_nbi", checked_pe("shmem_" #NAME "_put_nbi", pe), dest, source,                     \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_put_nbi)                                                                                      \
  void pshmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {          \
    put_bytes("shmem_ctx_" #NAME "_put_nbi", context_pe("shmem_ctx_" #NAME "_put_nbi", ctx, pe), dest, source,        \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_put_nbi)                                                                                \
  void pshmem_##NAME##_get_nbi(TYPE* dest, const TYPE* source, size_t nelems, int pe) {                               \
    get_bytes("shmem_" #NAME "_get_nbi", checked_pe("shmem_" #NAME "_get_nbi", pe), dest, source,                     \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_get_nbi)                                                                                      \
  void pshmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems, int pe) {          \
    get_bytes("shmem_ctx_" #NAME "_get_nbi", context_pe("shmem_ctx_" #NAME "_get_nbi", ctx, pe), dest, source,        \
              nelems * sizeof(TYPE));                                                                                 \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_get_nbi)                                                                                \
  void pshmem_##NAME##_iput(TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {    \
    put_strided("shmem_" #NAME "_iput", checked_pe("shmem_" #NAME "_iput", pe), dest, source, dst, sst, nelems,       \
                sizeof(TYPE));                                                                                        \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_iput)                                                                                         \
  void pshmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst,        \
                                size_t nelems, int pe) {                                                              \
    put_strided("shmem_ctx_" #NAME "_iput", context_pe("shmem_ctx_" #NAME "_iput", ctx, pe), dest, source, dst, sst,  \
                nelems, sizeof(TYPE));                                                                                \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_iput)                                                                                   \
  void pshmem_##NAME##_iget(TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) {    \
    get_strided("shmem_" #NAME "_iget", checked_pe("shmem_" #NAME "_iget", pe), dest, source, dst, sst, nelems,       \
                sizeof(TYPE));                                                                                        \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_iget)                                                                                         \
  void pshmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst,        \
                                size_t nelems, int pe) {                                                              \
    get_strided("shmem_ctx_" #NAME "_iget", context_pe("shmem_ctx_" #NAME "_iget", ctx, pe), dest, source, dst, sst,  \
                nelems, sizeof(TYPE));                                                                                \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_iget)                                                                                   \
  void pshmem_##NAME##_put_signal(TYPE* dest, const TYPE* source, size_t nelems, uint64_t* sig_addr, uint64_t signal, \
                                  int sig_op, int pe) {                                                               \
    put_signal("shmem_" #NAME "_put_signal", checked_pe("shmem_" #NAME "_put_signal", pe), dest, source,              \
               nelems * sizeof(TYPE), sig_addr, signal, sig_op);                                                      \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_put_signal)                                                                                   \
  void pshmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems,                 \
                                      uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                      \
    put_signal("shmem_ctx_" #NAME "_put_signal", context_pe("shmem_ctx_" #NAME "_put_signal", ctx, pe), dest, source, \
               nelems * sizeof(TYPE), sig_addr, signal, sig_op);                                                      \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_put_signal)                                                                             \
  void pshmem_##NAME##_put_signal_nbi(TYPE* dest, const TYPE* source, size_t nelems, uint64_t* sig_addr,              \
                                      uint64_t signal, int sig_op, int pe) {                                          \
    put_signal("shmem_" #NAME "_put_signal_nbi", checked_pe("shmem_" #NAME "_put_signal_nbi", pe), dest, source,      \
               nelems * sizeof(TYPE), sig_addr, signal, sig_op);                                                      \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(NAME##_put_signal_nbi)                                                                               \
  void pshmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE* dest, const TYPE* source, size_t nelems,             \
                                          uint64_t* sig_addr, uint64_t signal, int sig_op, int pe) {                  \
    put_signal("shmem_ctx_" #NAME "_put_signal_nbi", context_pe("shmem_ctx_" #NAME "_put_signal_nbi", ctx, pe), dest, \
               source, nelems * sizeof(TYPE), sig_addr, signal, sig_op);                                              \
  }                                                                                                                   \
  MPF_SHMEM_WEAK(ctx_##NAME##_put_signal_nbi)
MPF_SHMEM_RMA_TYPES(MPF_DEFINE_TYPED)

uint64_t pshmem_signal_fetch(const uint64_t* sig_addr) {
  using namespace mpf::shmem;
  require_initialized("shmem_signal_fetch");
  return amo<Amo::fetch>("shmem_signal_fetch", g_state.me, const_cast<uint64_t*>(sig_addr));
}
MPF_SHMEM_WEAK(signal_fetch)

}  // extern "C"
