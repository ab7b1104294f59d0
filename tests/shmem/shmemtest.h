/*
 * shmemtest.h: what the OpenSHMEM conformance programs (tests/shmem) share.
 *
 * Each program checks one chapter of the OpenSHMEM 1.5 standard and checks
 * itself: on success PE 0 prints one line "<program> ok" and every PE exits
 * 0; on the first failed check the PE prints
 *
 *   PE <n>: FAIL <file>:<line>: <what was expected and what was found>
 *
 * on stderr and ends the job with shmem_global_exit(1).
 *
 *   CHECK(cond, fmt, ...)    the failure above when cond is false
 *   CHECK_EQ(found, expected, what)
 *                            CHECK that two integer values are equal, printing
 *                            both (as long long: every type the programs
 *                            compare this way fits, or wraps the same on both
 *                            sides)
 *   CHECK_ZERO(call)         CHECK that a routine returning int returned 0
 *   st_value(pe, i, salt)    a pattern value in 1..120: exact in every RMA
 *                            type from char to long double
 *   st_fill / st_verify      a byte pattern from a seed, and the check of every
 *                            byte of it (large transfers)
 *   st_right() / st_left()   the PE's neighbours on the ring of all PEs
 *   st_done(name)            the final barrier and PE 0's "<name> ok" line
 *
 * Everything is static inline so that a program that does not use a function
 * gets no warning. The programs are C99 and call the typed routines, never the
 * C11 generic ones.
 */
#ifndef MPF_TESTS_SHMEM_SHMEMTEST_H
#define MPF_TESTS_SHMEM_SHMEMTEST_H

#include <shmem.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define ST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ST_PRINTF(f, a)
#endif

static inline void st_fail(const char *file, int line, const char *fmt, ...) ST_PRINTF(3, 4);

static inline void st_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "PE %d: FAIL %s:%d: ", shmem_my_pe(), file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  fflush(stderr);
  fflush(stdout);
  shmem_global_exit(1);
  exit(1); /* not reached: shmem_global_exit does not return */
}

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!(cond)) st_fail(__FILE__, __LINE__, __VA_ARGS__);                    \
  } while (0)

#define CHECK_EQ(found, expected, what)                                       \
  do {                                                                        \
    long long st_found_ = (long long)(found);                                 \
    long long st_expected_ = (long long)(expected);                           \
    CHECK(st_found_ == st_expected_, "%s is %lld, expected %lld", (what),    \
          st_found_, st_expected_);                                           \
  } while (0)

#define CHECK_ZERO(call)                                                      \
  do {                                                                        \
    int st_rc_ = (call);                                                      \
    CHECK(st_rc_ == 0, "%s returned %d, expected 0", #call, st_rc_);          \
  } while (0)

static inline int st_value(int pe, size_t i, int salt) {
  return (int)(((unsigned)pe * 37u + (unsigned)i * 11u + (unsigned)salt * 5u) % 120u) + 1;
}

static inline unsigned char st_byte(uint64_t seed, size_t i) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 17));
}

static inline void st_fill(void *buf, size_t size, uint64_t seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < size; ++i) p[i] = st_byte(seed, i);
}

static inline void st_verify(const void *buf, size_t size, uint64_t seed, const char *what) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < size; ++i) {
    CHECK(p[i] == st_byte(seed, i), "%s: byte %zu of %zu is %u, expected %u", what, i, size, p[i],
          st_byte(seed, i));
  }
}

static inline int st_right(void) { return (shmem_my_pe() + 1) % shmem_n_pes(); }
static inline int st_left(void) { return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes(); }

/* Every PE has passed every check when PE 0 prints the line. */
static inline void st_done(const char *name) {
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    printf("%s ok\n", name);
    fflush(stdout);
  }
}

#endif
