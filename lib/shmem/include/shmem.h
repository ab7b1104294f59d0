/* OpenSHMEM 1.5 for the MPF Toolkit: one-sided puts, gets, atomics and
 * signals on symmetric memory, point-to-point synchronization, teams and
 * their collectives, distributed locks. PEs are the job's processes, PE
 * numbers equal MPI_COMM_WORLD ranks, and a program may use MPI too. See
 * man 3 shmem.
 *
 * Every routine is also callable as pshmem_<name> (the profiling interface:
 * the shmem_ names are weak aliases a tool may replace). The typed routines
 * are declared from the type tables below, one line per type, so that the
 * library defines exactly what this header declares. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version and library constants ------------------------------------- */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "MPF Toolkit"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* Thread levels (shmem_init_thread): the library provides up to
 * SHMEM_THREAD_SERIALIZED. */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

/* Point-to-point comparisons (wait_until, test, signal_wait_until). */
#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operations (put_signal). */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Hints (shmem_malloc_with_hints): accepted, every block serves both. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* Context options (shmem_ctx_create). */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Team configuration (shmem_team_split_*, shmem_team_get_config). */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
typedef struct {
  int num_contexts;
} shmem_team_config_t;

/* The work arrays of the deprecated active-set collectives. This library
 * neither reads nor writes them, so any size and any contents work; the
 * sizes are those ported programs expect. */
#define SHMEM_SYNC_VALUE (-1L)
#define SHMEM_SYNC_SIZE 1
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- Handles ------------------------------------------------------------ */

/* Teams and contexts are pointers to the library's objects; the predefined
 * ones are its objects below, the invalid ones null. */
typedef struct mpf_shmem_team *shmem_team_t;
typedef struct mpf_shmem_ctx *shmem_ctx_t;
extern struct mpf_shmem_team mpf_shmem_team_world;
extern struct mpf_shmem_team mpf_shmem_team_shared;
extern struct mpf_shmem_ctx mpf_shmem_ctx_default;
#define SHMEM_TEAM_WORLD (&mpf_shmem_team_world)
#define SHMEM_TEAM_SHARED (&mpf_shmem_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT (&mpf_shmem_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---- Type tables ---------------------------------------------------------
 * X(TYPENAME, TYPE): the standard's tables, by which every typed routine is
 * declared here and defined in the library. */

#if defined(__cplusplus)
#define MPF_SHMEM_COMPLEXF __complex__ float
#define MPF_SHMEM_COMPLEXD __complex__ double
#else
#define MPF_SHMEM_COMPLEXF float _Complex
#define MPF_SHMEM_COMPLEXD double _Complex
#endif

/* Standard RMA types (puts, gets, broadcast, collect, alltoall). */
#define MPF_SHMEM_RMA_TYPES(X)                                                                      \
  X(float, float) X(double, double) X(longdouble, long double) X(char, char) X(schar, signed char) \
  X(short, short) X(int, int) X(long, long) X(longlong, long long) X(uchar, unsigned char)        \
  X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)                         \
  X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)            \
  X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) \
  X(size, size_t) X(ptrdiff, ptrdiff_t)

/* X(BITS, BYTES): the sized RMA routines (shmem_put32 ...). */
#define MPF_SHMEM_SIZES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* Standard AMO types (compare_swap, fetch_inc, inc, fetch_add, add). */
#define MPF_SHMEM_AMO_TYPES(X)                                                                   \
  X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long) \
  X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t)       \
  X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)

/* Extended AMO types (fetch, set, swap). */
#define MPF_SHMEM_EXTENDED_AMO_TYPES(X) X(float, float) X(double, double) MPF_SHMEM_AMO_TYPES(X)

/* Bitwise AMO types (and, or, xor and their fetch forms). */
#define MPF_SHMEM_BITWISE_AMO_TYPES(X)                                                                        \
  X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t)            \
  X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t)

/* Point-to-point synchronization types (wait_until, test and their forms). */
#define MPF_SHMEM_SYNC_TYPES(X)                                                                    \
  X(short, short) X(int, int) X(long, long) X(longlong, long long) X(ushort, unsigned short)      \
  X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t) \
  X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)

/* Team reductions: and/or/xor; min/max; sum/prod. */
#define MPF_SHMEM_BITWISE_REDUCE_TYPES(X)                                                          \
  X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) \
  X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t)            \
  X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) \
  X(size, size_t)
#define MPF_SHMEM_MINMAX_REDUCE_TYPES(X)                                                          \
  X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long)                  \
  X(longlong, long long) X(ptrdiff, ptrdiff_t) X(uchar, unsigned char) X(ushort, unsigned short) \
  X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int8, int8_t) \
  X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t)    \
  X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(float, float) X(double, double)      \
  X(longdouble, long double)
#define MPF_SHMEM_ARITH_REDUCE_TYPES(X) \
  MPF_SHMEM_MINMAX_REDUCE_TYPES(X) X(complexd, MPF_SHMEM_COMPLEXD) X(complexf, MPF_SHMEM_COMPLEXF)

/* Deprecated active-set reductions (*_to_all). */
#define MPF_SHMEM_TO_ALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define MPF_SHMEM_TO_ALL_MINMAX_TYPES(X) \
  MPF_SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(longdouble, long double)
#define MPF_SHMEM_TO_ALL_ARITH_TYPES(X) \
  MPF_SHMEM_TO_ALL_MINMAX_TYPES(X) X(complexf, MPF_SHMEM_COMPLEXF) X(complexd, MPF_SHMEM_COMPLEXD)

/* Deprecated AMO names (shmem_int_fadd ...) and waits (shmem_int_wait). */
#define MPF_SHMEM_OLD_AMO_TYPES(X) X(int, int) X(long, long) X(longlong, long long)
#define MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(X) MPF_SHMEM_OLD_AMO_TYPES(X) X(float, float) X(double, double)
#define MPF_SHMEM_OLD_WAIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)

#if defined(__GNUC__)
#define MPF_SHMEM_DEPRECATED __attribute__((deprecated))
#else
#define MPF_SHMEM_DEPRECATED
#endif
#if defined(__cplusplus)
#define MPF_SHMEM_NORETURN [[noreturn]]
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define MPF_SHMEM_NORETURN _Noreturn
#else
#define MPF_SHMEM_NORETURN
#endif

/* ---- Library setup, exit and query -------------------------------------- */

void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
MPF_SHMEM_NORETURN void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_pcontrol(int level, ...);

/* ---- Symmetric memory ---------------------------------------------------- */

void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
void *shmem_malloc_with_hints(size_t size, long hints);

/* ---- Contexts ------------------------------------------------------------ */

int shmem_ctx_create(long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- Remote memory access ------------------------------------------------ */

#define MPF_SHMEM_DECLARE_RMA(NAME, TYPE)                                                                            \
  void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                                                            \
  void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                                      \
  TYPE shmem_##NAME##_g(const TYPE *source, int pe);                                                                \
  TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                                          \
  void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);                                   \
  void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);             \
  void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);                                   \
  void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);             \
  void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);                               \
  void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);         \
  void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe);                               \
  void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);         \
  void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);    \
  void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,       \
                               size_t nelems, int pe);                                                              \
  void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);    \
  void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,       \
                               size_t nelems, int pe);                                                              \
  void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                 int sig_op, int pe);                                                               \
  void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems,                \
                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);                      \
  void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,             \
                                     uint64_t signal, int sig_op, int pe);                                          \
  void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems,            \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
MPF_SHMEM_RMA_TYPES(MPF_SHMEM_DECLARE_RMA)

#define MPF_SHMEM_DECLARE_SIZED(BITS, BYTES)                                                                       \
  void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                                     \
  void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                                     \
  void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);               \
  void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                               \
  void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);         \
  void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                               \
  void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);         \
  void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);      \
  void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                            size_t nelems, int pe);                                                                \
  void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);      \
  void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                            size_t nelems, int pe);                                                                \
  void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                                int sig_op, int pe);                                                               \
  void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,                \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);                      \
  void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,             \
                                    uint64_t signal, int sig_op, int pe);                                          \
  void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,            \
                                        uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
MPF_SHMEM_SIZES(MPF_SHMEM_DECLARE_SIZED)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                         int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                 uint64_t signal, int sig_op, int pe);

/* ---- Signals -------------------------------------------------------------- */

uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- Atomic memory operations -------------------------------------------- */

#define MPF_SHMEM_DECLARE_EXTENDED_AMO(NAME, TYPE)                                                              \
  TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                                                 \
  TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);                           \
  void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                                               \
  void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                         \
  TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                                              \
  TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                        \
  void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);                                \
  void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, int pe);          \
  void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);                             \
  void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
MPF_SHMEM_EXTENDED_AMO_TYPES(MPF_SHMEM_DECLARE_EXTENDED_AMO)

#define MPF_SHMEM_DECLARE_AMO(NAME, TYPE)                                                                           \
  TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe);                               \
  TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, TYPE value, int pe);         \
  TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                                                         \
  TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                                   \
  void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                                                               \
  void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                                         \
  TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);                                             \
  TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                       \
  void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                                                   \
  void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                             \
  void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe);              \
  void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, \
                                                  int pe);                                                          \
  void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);                                        \
  void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, int pe);                  \
  void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);                            \
  void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
MPF_SHMEM_AMO_TYPES(MPF_SHMEM_DECLARE_AMO)

#define MPF_SHMEM_DECLARE_BITWISE_AMO_OP(NAME, TYPE, OP)                                                        \
  TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe);                                        \
  TYPE shmem_ctx_##NAME##_atomic_fetch_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                  \
  void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe);                                              \
  void shmem_ctx_##NAME##_atomic_##OP(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                        \
  void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);                     \
  void shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define MPF_SHMEM_DECLARE_BITWISE_AMO(NAME, TYPE)   \
  MPF_SHMEM_DECLARE_BITWISE_AMO_OP(NAME, TYPE, and) \
  MPF_SHMEM_DECLARE_BITWISE_AMO_OP(NAME, TYPE, or)  \
  MPF_SHMEM_DECLARE_BITWISE_AMO_OP(NAME, TYPE, xor)
MPF_SHMEM_BITWISE_AMO_TYPES(MPF_SHMEM_DECLARE_BITWISE_AMO)

/* ---- Point-to-point synchronization --------------------------------------- */

#define MPF_SHMEM_DECLARE_SYNC(NAME, TYPE)                                                                            \
  void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);                                               \
  void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);        \
  size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);      \
  size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,     \
                                        TYPE cmp_value);                                                             \
  void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,                 \
                                            TYPE *cmp_values);                                                       \
  size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp,               \
                                              TYPE *cmp_values);                                                     \
  size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status,       \
                                               int cmp, TYPE *cmp_values);                                           \
  int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                                                      \
  int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);               \
  size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);            \
  size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,           \
                                  TYPE cmp_value);                                                                   \
  int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);      \
  size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);   \
  size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices, const int *status, int cmp,    \
                                         TYPE *cmp_values);
MPF_SHMEM_SYNC_TYPES(MPF_SHMEM_DECLARE_SYNC)

/* ---- Memory ordering ------------------------------------------------------- */

void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- Teams ----------------------------------------------------------------- */

int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_team_destroy(shmem_team_t team);

/* ---- Collectives ------------------------------------------------------------ */

void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);

#define MPF_SHMEM_DECLARE_TEAM_COLLECTIVES(NAME, TYPE)                                                      \
  int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems, int PE_root); \
  int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);              \
  int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);             \
  int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);             \
  int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems);
MPF_SHMEM_RMA_TYPES(MPF_SHMEM_DECLARE_TEAM_COLLECTIVES)
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                       size_t nelems);

#define MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, OP) \
  int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce);
#define MPF_SHMEM_DECLARE_REDUCE_BITWISE(NAME, TYPE) \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, and)          \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, or)           \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, xor)
#define MPF_SHMEM_DECLARE_REDUCE_MINMAX(NAME, TYPE) \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, min)         \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, max)
#define MPF_SHMEM_DECLARE_REDUCE_ARITH(NAME, TYPE) \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, sum)        \
  MPF_SHMEM_DECLARE_REDUCE(NAME, TYPE, prod)
MPF_SHMEM_BITWISE_REDUCE_TYPES(MPF_SHMEM_DECLARE_REDUCE_BITWISE)
MPF_SHMEM_MINMAX_REDUCE_TYPES(MPF_SHMEM_DECLARE_REDUCE_MINMAX)
MPF_SHMEM_ARITH_REDUCE_TYPES(MPF_SHMEM_DECLARE_REDUCE_ARITH)

/* ---- Distributed locks -------------------------------------------------------- */

void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- Deprecated interfaces that ported programs still call ------------------- */

MPF_SHMEM_DEPRECATED void start_pes(int npes);
MPF_SHMEM_DEPRECATED int _my_pe(void);
MPF_SHMEM_DEPRECATED int _num_pes(void);
MPF_SHMEM_DEPRECATED void *shmalloc(size_t size);
MPF_SHMEM_DEPRECATED void *shmemalign(size_t alignment, size_t size);
MPF_SHMEM_DEPRECATED void *shrealloc(void *ptr, size_t size);
MPF_SHMEM_DEPRECATED void shfree(void *ptr);

/* Active sets: PEs PE_start, PE_start + 2^logPE_stride, ... (PE_size of them). */
MPF_SHMEM_DEPRECATED void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_broadcast32(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                                            int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_broadcast64(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,
                                            int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_collect32(void *dest, const void *source, size_t nelems, int PE_start,
                                          int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_collect64(void *dest, const void *source, size_t nelems, int PE_start,
                                          int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_fcollect32(void *dest, const void *source, size_t nelems, int PE_start,
                                           int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_fcollect64(void *dest, const void *source, size_t nelems, int PE_start,
                                           int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_alltoall32(void *dest, const void *source, size_t nelems, int PE_start,
                                           int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_alltoall64(void *dest, const void *source, size_t nelems, int PE_start,
                                           int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_alltoalls32(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                            size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
MPF_SHMEM_DEPRECATED void shmem_alltoalls64(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                            size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);

#define MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, OP)                                                                  \
  MPF_SHMEM_DEPRECATED void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce, int PE_start, \
                                                         int logPE_stride, int PE_size, TYPE *pWrk, long *pSync);
#define MPF_SHMEM_DECLARE_TO_ALL_BITWISE(NAME, TYPE) \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, and)          \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, or)           \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, xor)
#define MPF_SHMEM_DECLARE_TO_ALL_MINMAX(NAME, TYPE) \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, min)         \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, max)
#define MPF_SHMEM_DECLARE_TO_ALL_ARITH(NAME, TYPE) \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, sum)        \
  MPF_SHMEM_DECLARE_TO_ALL(NAME, TYPE, prod)
MPF_SHMEM_TO_ALL_BITWISE_TYPES(MPF_SHMEM_DECLARE_TO_ALL_BITWISE)
MPF_SHMEM_TO_ALL_MINMAX_TYPES(MPF_SHMEM_DECLARE_TO_ALL_MINMAX)
MPF_SHMEM_TO_ALL_ARITH_TYPES(MPF_SHMEM_DECLARE_TO_ALL_ARITH)

#define MPF_SHMEM_DECLARE_OLD_EXTENDED_AMO(NAME, TYPE)                     \
  MPF_SHMEM_DEPRECATED TYPE shmem_##NAME##_fetch(const TYPE *source, int pe); \
  MPF_SHMEM_DEPRECATED void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe); \
  MPF_SHMEM_DEPRECATED TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);
MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(MPF_SHMEM_DECLARE_OLD_EXTENDED_AMO)
#define MPF_SHMEM_DECLARE_OLD_AMO(NAME, TYPE)                                            \
  MPF_SHMEM_DEPRECATED TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe); \
  MPF_SHMEM_DEPRECATED TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);            \
  MPF_SHMEM_DEPRECATED TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                        \
  MPF_SHMEM_DEPRECATED void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);             \
  MPF_SHMEM_DEPRECATED void shmem_##NAME##_inc(TYPE *dest, int pe);
MPF_SHMEM_OLD_AMO_TYPES(MPF_SHMEM_DECLARE_OLD_AMO)

#define MPF_SHMEM_DECLARE_OLD_WAIT(NAME, TYPE) MPF_SHMEM_DEPRECATED void shmem_##NAME##_wait(TYPE *ivar, TYPE cmp_value);
MPF_SHMEM_OLD_WAIT_TYPES(MPF_SHMEM_DECLARE_OLD_WAIT)
MPF_SHMEM_DEPRECATED void shmem_wait(long *ivar, long cmp_value);

/* Cache management: there is no cache to manage on these machines; each has
 * no effect, as the standard allows. */
MPF_SHMEM_DEPRECATED void shmem_clear_cache_inv(void);
MPF_SHMEM_DEPRECATED void shmem_set_cache_inv(void);
MPF_SHMEM_DEPRECATED void shmem_clear_cache_line_inv(void *dest);
MPF_SHMEM_DEPRECATED void shmem_set_cache_line_inv(void *dest);
MPF_SHMEM_DEPRECATED void shmem_udcflush(void);
MPF_SHMEM_DEPRECATED void shmem_udcflush_line(void *dest);

#ifdef __cplusplus
}
#endif

/* The C11 type-generic interfaces (shmem_put, shmem_atomic_fetch_add, ...). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <shmem_generic.h>
#endif

#endif /* SHMEM_H */
