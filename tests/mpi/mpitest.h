/*
 * mpitest.h: what the MPI point-to-point test programs (tests/mpi) share.
 *
 *   CHECK(cond, fmt, ...)    on failure print "rank R: FAIL file:line: <message>"
 *                            and end the job with MPI_Abort(MPI_COMM_WORLD, 1)
 *   CHECK_RC(call)           CHECK that an MPI call returned MPI_SUCCESS
 *   CHECK_CLASS(call, cls)   CHECK that it returned error class `cls` (errors return)
 *   mt_seed(a, b, c, d)      a pattern seed from what identifies a message
 *                            (its size, iteration, sender, case ...)
 *   mt_fill / mt_verify      fill a buffer with the seed's pattern / check every
 *                            byte of it, naming the first wrong byte
 *   mt_guard_* / mt_untouched  bytes a receive must not write
 *   mt_status(...)           check a status: source, tag, count in bytes
 *   mt_sync(peer)            both sides of a pair wait for each other
 *   mt_barrier()             every rank of MPI_COMM_WORLD waits for all the
 *                            others (point to point: the library has no
 *                            collectives yet)
 *
 * Tags at and above MT_TAG_INTERNAL belong to these helpers; the tests use
 * lower ones. Every function is static inline so that a program that does not
 * use one gets no warning.
 */
#ifndef MPF_TESTS_MPI_MPITEST_H
#define MPF_TESTS_MPI_MPITEST_H

#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MT_TAG_INTERNAL 1000000
#define MT_TAG_SYNC (MT_TAG_INTERNAL + 1)
#define MT_TAG_BARRIER (MT_TAG_INTERNAL + 2)

static inline int mt_rank(void) {
  int initialized = 0, finalized = 0, rank = -1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

static inline void mt_fail(const char *file, int line, const char *fmt, ...) {
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  fprintf(stderr, "rank %d: FAIL %s:%d: %s\n", mt_rank(), file, line, text);
  fflush(stderr);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) mt_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#define CHECK_RC(call)                                                                      \
  do {                                                                                      \
    const int mt_rc_ = (call);                                                              \
    if (mt_rc_ != MPI_SUCCESS) mt_fail(__FILE__, __LINE__, "%s returned %d", #call, mt_rc_); \
  } while (0)

#define CHECK_CLASS(call, cls)                                                                         \
  do {                                                                                                 \
    const int mt_rc_ = (call);                                                                         \
    if (mt_rc_ != (cls)) {                                                                             \
      mt_fail(__FILE__, __LINE__, "%s returned %d, expected %s (%d)", #call, mt_rc_, #cls, (int)(cls)); \
    }                                                                                                  \
  } while (0)

/* splitmix64's finaliser: every input bit changes about half the output bits. */
static inline uint64_t mt_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static inline uint64_t mt_seed(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return mt_mix(mt_mix(mt_mix(mt_mix(a) ^ b) ^ c) ^ d);
}

/* Byte i of the pattern of `seed`: eight bytes per mixed word, and the word
   depends on its index, so a chunk copied to the wrong offset is caught. */
static inline void mt_fill(void *buf, size_t bytes, uint64_t seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t word = 0; word * 8 < bytes; ++word) {
    const uint64_t x = mt_mix(seed ^ (word * 0xD6E8FEB86659FD93ull));
    const size_t n = bytes - word * 8 < 8 ? bytes - word * 8 : 8;
    for (size_t k = 0; k < n; ++k) p[word * 8 + k] = (unsigned char)(x >> (8 * k));
  }
}

/* Checks every byte; on the first wrong one, fails naming `what`. */
static inline void mt_verify_at(const char *file, int line, const void *buf, size_t bytes, uint64_t seed,
                                const char *what) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t word = 0; word * 8 < bytes; ++word) {
    const uint64_t x = mt_mix(seed ^ (word * 0xD6E8FEB86659FD93ull));
    const size_t n = bytes - word * 8 < 8 ? bytes - word * 8 : 8;
    for (size_t k = 0; k < n; ++k) {
      const unsigned char want = (unsigned char)(x >> (8 * k));
      if (p[word * 8 + k] != want) {
        mt_fail(file, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, word * 8 + k, bytes,
                p[word * 8 + k], want);
      }
    }
  }
}
#define mt_verify(buf, bytes, seed, what) mt_verify_at(__FILE__, __LINE__, buf, bytes, seed, what)

/* Bytes that must stay as they were: every byte is MT_GUARD. */
#define MT_GUARD 0xA5
static inline void mt_untouched_at(const char *file, int line, const void *buf, size_t bytes, const char *what) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != MT_GUARD) mt_fail(file, line, "%s: byte %zu of %zu was written (0x%02x)", what, i, bytes, p[i]);
  }
}
#define mt_untouched(buf, bytes, what) mt_untouched_at(__FILE__, __LINE__, buf, bytes, what)

static inline void *mt_alloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 1);
  if (p == NULL) mt_fail(__FILE__, __LINE__, "out of memory for %zu bytes", bytes);
  return p;
}

/* Checks a completed receive's status: source, tag, and count in bytes. */
static inline void mt_status_at(const char *file, int line, const MPI_Status *st, int source, int tag, int bytes,
                                const char *what) {
  int count = -1;
  if (st->MPI_SOURCE != source) mt_fail(file, line, "%s: MPI_SOURCE %d, expected %d", what, st->MPI_SOURCE, source);
  if (st->MPI_TAG != tag) mt_fail(file, line, "%s: MPI_TAG %d, expected %d", what, st->MPI_TAG, tag);
  MPI_Get_count(st, MPI_BYTE, &count);
  if (count != bytes) mt_fail(file, line, "%s: MPI_Get_count %d bytes, expected %d", what, count, bytes);
}
#define mt_status(st, source, tag, bytes, what) mt_status_at(__FILE__, __LINE__, st, source, tag, bytes, what)

/* The empty status of MPI 3.1 §3.7.3: any source, any tag, no error, count 0. */
static inline void mt_empty_status_at(const char *file, int line, const MPI_Status *st, const char *what) {
  int count = -1, cancelled = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  MPI_Test_cancelled(st, &cancelled);
  if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG || st->MPI_ERROR != MPI_SUCCESS ||
      count != 0 || cancelled != 0) {
    mt_fail(file, line, "%s: not an empty status: source %d tag %d error %d count %d cancelled %d", what,
            st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR, count, cancelled);
  }
}
#define mt_empty_status(st, what) mt_empty_status_at(__FILE__, __LINE__, st, what)

/* A status filled with nonsense, so a call that does not set a field is seen. */
static inline void mt_scribble_status(MPI_Status *st) { memset(st, 0x5A, sizeof *st); }

static inline void mt_sync(int peer) {
  CHECK_RC(MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, MT_TAG_SYNC, NULL, 0, MPI_BYTE, peer, MT_TAG_SYNC,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static inline void mt_barrier(void) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int i = 1; i < size; ++i) {
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, i, MT_TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int i = 1; i < size; ++i) CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, i, MT_TAG_BARRIER, MPI_COMM_WORLD));
  } else {
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, MT_TAG_BARRIER, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, MT_TAG_BARRIER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
}

/* A non-negative integer argument, or fail naming it. */
static inline long mt_arg(int argc, char **argv, int i, const char *name) {
  if (i >= argc) mt_fail(__FILE__, __LINE__, "missing argument %d (%s)", i, name);
  char *end = NULL;
  const long v = strtol(argv[i], &end, 10);
  if (end == argv[i] || *end != '\0' || v < 0) mt_fail(__FILE__, __LINE__, "bad %s '%s'", name, argv[i]);
  return v;
}

#endif /* MPF_TESTS_MPI_MPITEST_H */
