// The deprecated interfaces ported programs still call: start_pes and the
// old names of the query and memory routines, the active-set collectives
// (PE_start, logPE_stride, PE_size; the pSync and pWrk arrays are neither
// read nor written), and the cache routines, which have nothing to do on
// these machines.
#include <shmem.h>

#include <atomic>

#include "shmem/collectives.hpp"

using namespace mpf::shmem;
using mpf::coll::Op;

extern "C" {

void start_pes(int) { shmem_init(); }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
void* shmalloc(size_t size) { return shmem_malloc(size); }
void* shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void* shrealloc(void* ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void* ptr) { shmem_free(ptr); }

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long*) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the barrier quiets this PE's operations
  team_barrier("shmem_barrier", active_set("shmem_barrier", PE_start, logPE_stride, PE_size));
}
MPF_SHMEM_WEAK(barrier)

void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long*) {
  team_barrier("shmem_sync", active_set("shmem_sync", PE_start, logPE_stride, PE_size));
}
MPF_SHMEM_WEAK(sync)

// The sized active-set collectives: broadcast (the root's dest is not
// written), collect, fcollect, alltoall and alltoalls of 32- or 64-bit
// elements.
#define MPF_DEFINE_ACTIVE_SET(BITS)                                                                                    \
  void pshmem_broadcast##BITS(void* dest, const void* source, size_t nelems, int PE_root, int PE_start,                \
                              int logPE_stride, int PE_size, long*) {                                                  \
    const char* call = "shmem_broadcast" #BITS;                                                                        \
    broadcast_bytes(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, nelems*(BITS / 8), PE_root, \
                    false);                                                                                            \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(broadcast##BITS)                                                                                      \
  void pshmem_collect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,             \
                            int PE_size, long*) {                                                                      \
    const char* call = "shmem_collect" #BITS;                                                                          \
    collect_bytes(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, nelems*(BITS / 8));           \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(collect##BITS)                                                                                        \
  void pshmem_fcollect##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,            \
                             int PE_size, long*) {                                                                     \
    const char* call = "shmem_fcollect" #BITS;                                                                         \
    fcollect_bytes(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, nelems*(BITS / 8));          \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(fcollect##BITS)                                                                                       \
  void pshmem_alltoall##BITS(void* dest, const void* source, size_t nelems, int PE_start, int logPE_stride,            \
                             int PE_size, long*) {                                                                     \
    const char* call = "shmem_alltoall" #BITS;                                                                         \
    alltoall_bytes(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, nelems*(BITS / 8));          \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(alltoall##BITS)                                                                                       \
  void pshmem_alltoalls##BITS(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,             \
                              int PE_start, int logPE_stride, int PE_size, long*) {                                    \
    const char* call = "shmem_alltoalls" #BITS;                                                                        \
    alltoalls_bytes(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, dst, sst, nelems,           \
                    BITS / 8);                                                                                         \
  }                                                                                                                    \
  MPF_SHMEM_WEAK(alltoalls##BITS)
MPF_DEFINE_ACTIVE_SET(32)
MPF_DEFINE_ACTIVE_SET(64)

#define MPF_DEFINE_TO_ALL(NAME, TYPE, OP, COLL_OP)                                                                   \
  void pshmem_##NAME##_##OP##_to_all(TYPE* dest, const TYPE* source, int nreduce, int PE_start, int logPE_stride,    \
                                     int PE_size, TYPE*, long*) {                                                    \
    const char* call = "shmem_" #NAME "_" #OP "_to_all";                                                             \
    if (nreduce < 0) fail(call, "nreduce " + std::to_string(nreduce) + " is negative");                              \
    reduce(call, active_set(call, PE_start, logPE_stride, PE_size), dest, source, static_cast<std::size_t>(nreduce), \
           COLL_OP);                                                                                                 \
  }                                                                                                                  \
  MPF_SHMEM_WEAK(NAME##_##OP##_to_all)
#define MPF_DEFINE_TO_ALL_BITWISE(NAME, TYPE)  \
  MPF_DEFINE_TO_ALL(NAME, TYPE, and, Op::band) \
  MPF_DEFINE_TO_ALL(NAME, TYPE, or, Op::bor)   \
  MPF_DEFINE_TO_ALL(NAME, TYPE, xor, Op::bxor)
#define MPF_DEFINE_TO_ALL_MINMAX(NAME, TYPE)  \
  MPF_DEFINE_TO_ALL(NAME, TYPE, min, Op::min) \
  MPF_DEFINE_TO_ALL(NAME, TYPE, max, Op::max)
#define MPF_DEFINE_TO_ALL_ARITH(NAME, TYPE)   \
  MPF_DEFINE_TO_ALL(NAME, TYPE, sum, Op::sum) \
  MPF_DEFINE_TO_ALL(NAME, TYPE, prod, Op::prod)
MPF_SHMEM_TO_ALL_BITWISE_TYPES(MPF_DEFINE_TO_ALL_BITWISE)
MPF_SHMEM_TO_ALL_MINMAX_TYPES(MPF_DEFINE_TO_ALL_MINMAX)
MPF_SHMEM_TO_ALL_ARITH_TYPES(MPF_DEFINE_TO_ALL_ARITH)

// No cache to manage here: each has no effect, as the standard allows.
void pshmem_clear_cache_inv(void) {}
MPF_SHMEM_WEAK(clear_cache_inv)
void pshmem_set_cache_inv(void) {}
MPF_SHMEM_WEAK(set_cache_inv)
void pshmem_clear_cache_line_inv(void*) {}
MPF_SHMEM_WEAK(clear_cache_line_inv)
void pshmem_set_cache_line_inv(void*) {}
MPF_SHMEM_WEAK(set_cache_line_inv)
void pshmem_udcflush(void) {}
MPF_SHMEM_WEAK(udcflush)
void pshmem_udcflush_line(void*) {}
MPF_SHMEM_WEAK(udcflush_line)

}  // extern "C"
