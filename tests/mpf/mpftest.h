/*
 * mpftest.h: what the MPF conversation tests (tests/mpf) share.
 *
 *   CHECK(cond, fmt, ...)   on failure print "rank R: FAIL file:line: <message>"
 *                           and exit(1) (mpfrun then ends the job)
 *   CHECK_RC(call, code)    CHECK that an MPF call returned `code`
 *   ft_fill / ft_verify     a message's pattern from (sender, sequence, size),
 *                           and the check of every byte of it
 *   ft_barrier(tag)         every process waits for all the others, over
 *                           conversations named after `tag` (each barrier of
 *                           a program uses its own tag)
 *
 * Every function is static inline so that a program that does not use one
 * gets no warning.
 */
#ifndef MPF_TESTS_MPF_MPFTEST_H
#define MPF_TESTS_MPF_MPFTEST_H

#include <mpf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                      \
  do {                                                                        \
    if (!(cond)) {                                                            \
      printf("rank %d: FAIL %s:%d: ", mpf_rank(), __FILE__, __LINE__);        \
      printf(__VA_ARGS__);                                                    \
      printf("\n");                                                           \
      fflush(stdout);                                                         \
      exit(1);                                                                \
    }                                                                         \
  } while (0)

#define CHECK_RC(call, code)                                                  \
  do {                                                                        \
    int ft_rc_ = (call);                                                      \
    CHECK(ft_rc_ == (code), "%s returned %d (%s), expected %d", #call, ft_rc_, \
          mpf_error_string(ft_rc_), (int)(code));                             \
  } while (0)

static inline unsigned char ft_byte(uint64_t seed, size_t i) {
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 29;
  return (unsigned char)(x ^ (x >> 17));
}

static inline uint64_t ft_seed(int sender, uint64_t sequence, size_t size) {
  return ((uint64_t)(unsigned)sender << 40) ^ (sequence << 20) ^ (uint64_t)size;
}

static inline void ft_fill(void* buf, size_t size, uint64_t seed) {
  unsigned char* p = (unsigned char*)buf;
  for (size_t i = 0; i < size; ++i) p[i] = ft_byte(seed, i);
}

static inline void ft_verify(const void* buf, size_t size, uint64_t seed, const char* what) {
  const unsigned char* p = (const unsigned char*)buf;
  for (size_t i = 0; i < size; ++i) {
    CHECK(p[i] == ft_byte(seed, i), "%s: byte %zu of %zu is %u, expected %u", what, i, size, p[i],
          ft_byte(seed, i));
  }
}

/* Every process joins its own "<tag>.out.<rank>" as a receiver, then sends
 * to rank 0's FCFS conversation "<tag>.in" and waits; rank 0 answers each
 * once all have come. A message sent before its receiver joins waits for it
 * while its sender keeps the conversation open, so no process has to be
 * first. */
static inline void ft_barrier(const char* tag) {
  const int me = mpf_rank(), n = mpf_size();
  char name[64];
  char token = 1;
  size_t bytes = 1;
  mpf_lnvc_t in, out;
  if (n == 1) return;
  snprintf(name, sizeof name, "%s.in", tag);
  if (me == 0) {
    CHECK_RC(mpf_open_receive(name, MPF_FCFS, &in), MPF_SUCCESS);
    for (int i = 1; i < n; ++i) {
      bytes = 1;
      CHECK_RC(mpf_receive(in, &token, &bytes), MPF_SUCCESS);
    }
    for (int r = 1; r < n; ++r) {
      snprintf(name, sizeof name, "%s.out.%d", tag, r);
      CHECK_RC(mpf_open_send(name, &out), MPF_SUCCESS);
      CHECK_RC(mpf_send(out, &token, 1), MPF_SUCCESS);
      CHECK_RC(mpf_close_send(out), MPF_SUCCESS); /* rank r is connected: the message stays */
    }
    CHECK_RC(mpf_close_receive(in), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_open_send(name, &in), MPF_SUCCESS);
    snprintf(name, sizeof name, "%s.out.%d", tag, me);
    CHECK_RC(mpf_open_receive(name, MPF_FCFS, &out), MPF_SUCCESS);
    CHECK_RC(mpf_send(in, &token, 1), MPF_SUCCESS);
    bytes = 1;
    CHECK_RC(mpf_receive(out, &token, &bytes), MPF_SUCCESS);
    CHECK_RC(mpf_close_send(in), MPF_SUCCESS); /* rank 0 has read it: closing loses nothing */
    CHECK_RC(mpf_close_receive(out), MPF_SUCCESS);
  }
}

#endif
