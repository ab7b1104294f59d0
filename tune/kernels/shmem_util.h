/*
 * shmem_util.h: the OpenSHMEM kernels' binding of kernel_core.h (options,
 * sizes, measurement, output lines: see there), and what those kernels
 * share: the clock, symmetric buffers and the slowest PE's time. Plain
 * OpenSHMEM and libc, with calls that OpenSHMEM 1.4 has, so that the same
 * kernels build against any implementation (Open MPI's OSHMEM is 1.4); a
 * kernel writes what 1.5 changed both ways, under KU_SHMEM_1_5.
 *
 * ku_init calls shmem_init, ku_finish shmem_finalize; rank and size are
 * the PE and the number of PEs. Rank 0 shares its decisions by shmem_int_p
 * and shmem_barrier_all, and `# library:` is shmem_info_get_name and
 * shmem_info_get_version.
 */
#ifndef MPF_TUNE_SHMEM_UTIL_H
#define MPF_TUNE_SHMEM_UTIL_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <shmem.h>
#include <time.h>

#include "kernel_core.h"

/* OpenSHMEM 1.5 or later: teams and their collectives. The routines they
 * replace are deprecated there, so a 1.5 library builds the 1.5 forms. */
#define KU_SHMEM_1_5 (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105)

/* What the binding keeps: symmetric words for ku_share_int and
 * ku_slowest_pe, each used in two halves by turns (see there). */
static struct {
  int size;
  int *share;      /* [2] */
  double *times;   /* [2][size], on PE 0 */
  unsigned shares; /* ku_share_int calls so far: which half is next */
  unsigned combines;
} ku_shmem;

static inline void ku_api_init(int *argc, char ***argv, int *rank, int *size) {
  (void)argc;
  (void)argv;
  shmem_init();
  *rank = shmem_my_pe();
  *size = shmem_n_pes();
  ku_shmem.size = *size;
  ku_shmem.share = shmem_calloc(2, sizeof(int));
  ku_shmem.times = shmem_calloc(2 * (size_t)*size, sizeof(double));
  if (ku_shmem.share == NULL || ku_shmem.times == NULL) {
    fprintf(stderr, "kernel: PE %d: shmem_calloc of a few words failed\n", *rank);
    shmem_global_exit(1);
  }
}

static inline void ku_api_print_library(void) {
  char name[SHMEM_MAX_NAME_LEN];
  int major = 0, minor = 0;
  shmem_info_get_name(name);
  shmem_info_get_version(&major, &minor);
#if defined(OSHMEM_MAJOR_VERSION) && defined(OSHMEM_MINOR_VERSION) && defined(OSHMEM_RELEASE_VERSION)
  /* Open MPI's name is its web address: say which release it is. */
  printf("# library: Open MPI OSHMEM %d.%d.%d (%s); OpenSHMEM %d.%d\n", OSHMEM_MAJOR_VERSION, OSHMEM_MINOR_VERSION,
         OSHMEM_RELEASE_VERSION, name, major, minor);
#else
  printf("# library: %s; OpenSHMEM %d.%d\n", name, major, minor);
#endif
}

static inline void ku_api_finalize(void) { shmem_finalize(); }

static inline void ku_api_abort(int code) { shmem_global_exit(code); }

/* Rank 0 puts the value into every PE's word, and the barrier completes the
 * puts before anyone reads. The halves take turns, so that rank 0 writes a
 * half again only after every PE has passed the next call's barrier, and
 * has therefore read it. */
static inline void ku_share_int(struct ku_kernel *k, int *value) {
  int *word = ku_shmem.share + (ku_shmem.shares++ & 1u);
  if (k->rank == 0) {
    for (int pe = 1; pe < k->size; ++pe) shmem_int_p(word, *value, pe);
  }
  shmem_barrier_all();
  if (k->rank != 0) *value = *(volatile int *)word;
}

/* The slowest PE's seconds, on PE 0 (each PE's own elsewhere): a combine
 * of ku_measure_combined. The same turns as ku_share_int's. */
static inline double ku_slowest_pe(double seconds) {
  double *times = ku_shmem.times + (size_t)(ku_shmem.combines++ & 1u) * (size_t)ku_shmem.size;
  shmem_double_p(times + shmem_my_pe(), seconds, 0);
  shmem_barrier_all();
  if (shmem_my_pe() != 0) return seconds;
  double slowest = 0;
  for (int pe = 0; pe < ku_shmem.size; ++pe) {
    const double t = ((volatile double *)times)[pe];
    slowest = t > slowest ? t : slowest;
  }
  return slowest;
}

/* Seconds from a fixed point: what MPI_Wtime is to the MPI kernels. */
static inline double ku_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Symmetric memory for `bytes` (at least 8), zeroed (which writes every
 * page, as ku_alloc does); aborts when refused. Collective: every PE asks
 * for the same size. */
static inline unsigned char *ku_shmem_alloc(struct ku_kernel *k, long bytes) {
  const size_t size = (size_t)(bytes > 8 ? bytes : 8);
  unsigned char *p = shmem_malloc(size);
  if (p == NULL) {
    fprintf(stderr, "kernel_%s: PE %d: shmem_malloc of %ld bytes failed\n", k->name, k->rank, bytes);
    shmem_global_exit(1);
  }
  memset(p, 0, size);
  /* Every PE's buffer is zeroed before any PE writes into another's. */
  shmem_barrier_all();
  return p;
}

#endif
