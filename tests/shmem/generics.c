/* The C11 type-generic interfaces (shmem_generic.h): every generic name of
 * OpenSHMEM 1.5, with and without a leading context (SHMEM_CTX_DEFAULT) where
 * the standard has both, each on two element types of its table (an integer
 * type and double where the table has one; the typedef names int32_t and
 * uint64_t reach the routine of the type they name), every result checked:
 *   RMA          even PEs put to their right neighbour; gets from it
 *   AMOs         every PE on PE 0's words: exact totals and fetched values
 *   p2p sync     the left neighbour sets the flags with AMOs; waits, tests
 *   collectives  on SHMEM_TEAM_WORLD against results computed here
 *   deprecated   shmem_fetch ... shmem_add once each, their warning silenced
 * Needs 2 or more PEs. The file is C11: compile with -std=c11. */
#include "shmemtest.h"

#include <complex.h>

enum { N = 8 }; /* elements per RMA buffer */

#define CTX SHMEM_CTX_DEFAULT
#define TEAM SHMEM_TEAM_WORLD

/* A value of any real type that holds a small integer, against its expected
 * value; each argument is evaluated once. The functions below are written
 * once per element type by macros, so a failure names its type (tn) and its
 * check, and the line is that of the macro's use. Each declares its element
 * type as E for the helper macros. */
#define EXPECT(found, want, what, i)                                                                  \
  do {                                                                                                \
    const long double found_ = (long double)(found), want_ = (long double)(want);                    \
    CHECK(found_ == want_, "%s %s [%d]: found %Lg, expected %Lg", tn, what, (int)(i), found_, want_); \
  } while (0)

/* ---- RMA: p, g, put, get, their nbi, strided and signal forms ---------------------------- */

/* Puts go one way: even PEs send to their right neighbour, and a PE whose left
 * neighbour is odd must find its dst still 0, so that a put done as a get
 * fails even on 2 PEs (where the left and right neighbours are the same PE).
 * Salt s marks the values of each step: st_value(sender, i, s). */
#define EXPECT_PUT(s, what)                                                                         \
  for (int i = 0; i < N; ++i) EXPECT(dst[i], receives ? st_value(left, i, s) : 0, what, i)
#define NEXT_PUT(s)                                                                                 \
  do {                                                                                              \
    shmem_barrier_all();                                                                            \
    for (int i = 0; i < N; ++i) src[i] = (E)st_value(me, i, s);                                     \
    for (int i = 0; i < N; ++i) dst[i] = (E)0;                                                      \
    shmem_barrier_all();                                                                            \
  } while (0)

#define RMA_TEST(T, NAME)                                                                           \
  static void rma_##NAME(void) {                                                                    \
    typedef T E;                                                                                    \
    const char *tn = #T;                                                                            \
    const int me = shmem_my_pe(), right = st_right(), left = st_left();                             \
    const int sends = me % 2 == 0, receives = left % 2 == 0;                                        \
    T *src = shmem_malloc(N * sizeof(T)), *dst = shmem_malloc(N * sizeof(T)), loc[N];               \
    const T *csrc = src;                                                                            \
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));                                              \
    CHECK(src && dst && sig, "%s: shmem_malloc failed", tn);                                        \
    NEXT_PUT(1);                                                                                    \
    if (sends) {                                                                                    \
      shmem_put(dst, src, N / 2, right);                                                            \
      shmem_put(CTX, dst + N / 2, csrc + N / 2, N / 2, right);                                      \
    }                                                                                               \
    shmem_barrier_all();                                                                            \
    EXPECT_PUT(1, "shmem_put");                                                                     \
    NEXT_PUT(2);                                                                                    \
    if (sends) {                                                                                    \
      shmem_put_nbi(dst, src, N / 2, right);                                                        \
      shmem_put_nbi(CTX, dst + N / 2, src + N / 2, N / 2, right);                                   \
    }                                                                                               \
    shmem_barrier_all();                                                                            \
    EXPECT_PUT(2, "shmem_put_nbi");                                                                 \
    NEXT_PUT(3);                                                                                    \
    for (int i = 0; i < N / 2 && sends; ++i) shmem_p(dst + i, (T)st_value(me, i, 3), right);        \
    for (int i = N / 2; i < N && sends; ++i) shmem_p(CTX, dst + i, (T)st_value(me, i, 3), right);   \
    shmem_barrier_all();                                                                            \
    EXPECT_PUT(3, "shmem_p");                                                                       \
    NEXT_PUT(4);                                                                                    \
    if (sends) {                                                                                    \
      shmem_iput(dst, src, 2, 1, N / 2, right);                                                     \
      shmem_iput(CTX, dst + 1, src + N / 2, 2, 1, N / 2, right);                                    \
    }                                                                                               \
    shmem_barrier_all();                                                                            \
    for (int k = 0; k < N / 2; ++k) {                                                               \
      EXPECT(dst[2 * k], receives ? st_value(left, k, 4) : 0, "shmem_iput", 2 * k);                 \
      EXPECT(dst[2 * k + 1], receives ? st_value(left, N / 2 + k, 4) : 0, "shmem_iput(ctx)", 2 * k + 1); \
    }                                                                                               \
    NEXT_PUT(5);                                                                                    \
    if (sends) {                                                                                    \
      shmem_put_signal(dst, src, N / 2, sig, 1, SHMEM_SIGNAL_ADD, right);                           \
      shmem_put_signal(CTX, dst + N / 2, src + N / 2, N / 2, sig, 1, SHMEM_SIGNAL_ADD, right);      \
    }                                                                                               \
    if (receives) shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);                                    \
    EXPECT_PUT(5, "shmem_put_signal");                                                              \
    NEXT_PUT(6);                                                                                    \
    if (sends) {                                                                                    \
      shmem_put_signal_nbi(dst, src, N / 2, sig, 1, SHMEM_SIGNAL_ADD, right);                       \
      shmem_put_signal_nbi(CTX, dst + N / 2, src + N / 2, N / 2, sig, 1, SHMEM_SIGNAL_ADD, right);  \
    }                                                                                               \
    if (receives) shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4);                                    \
    EXPECT_PUT(6, "shmem_put_signal_nbi");                                                          \
    /* Every PE's src has held salt 6 since the last barrier; gets read the right neighbour's. */   \
    for (int i = 0; i < N / 2; ++i) EXPECT(shmem_g(src + i, right), st_value(right, i, 6), "shmem_g", i); \
    for (int i = N / 2; i < N; ++i)                                                                 \
      EXPECT(shmem_g(CTX, csrc + i, right), st_value(right, i, 6), "shmem_g(ctx)", i);              \
    shmem_get(loc, src, N / 2, right);                                                              \
    shmem_get(CTX, loc + N / 2, csrc + N / 2, N / 2, right);                                        \
    for (int i = 0; i < N; ++i) EXPECT(loc[i], st_value(right, i, 6), "shmem_get", i);              \
    for (int i = 0; i < N; ++i) loc[i] = (T)0;                                                      \
    shmem_get_nbi(loc, src, N / 2, right);                                                          \
    shmem_get_nbi(CTX, loc + N / 2, src + N / 2, N / 2, right);                                     \
    shmem_ctx_quiet(CTX);                                                                           \
    for (int i = 0; i < N; ++i) EXPECT(loc[i], st_value(right, i, 6), "shmem_get_nbi", i);          \
    shmem_iget(loc, src, 1, 2, N / 2, right);                                                       \
    shmem_iget(CTX, loc + N / 2, src + 1, 1, 2, N / 2, right);                                      \
    for (int k = 0; k < N / 2; ++k) EXPECT(loc[k], st_value(right, 2 * k, 6), "shmem_iget", k);     \
    for (int k = 0; k < N / 2; ++k)                                                                 \
      EXPECT(loc[N / 2 + k], st_value(right, 2 * k + 1, 6), "shmem_iget(ctx)", N / 2 + k);          \
    shmem_free(sig);                                                                                \
    shmem_free(dst);                                                                                \
    shmem_free(src);                                                                                \
  }
RMA_TEST(long, long)
RMA_TEST(double, double)

/* ---- Extended AMOs: fetch, set, swap, fetch_nbi, swap_nbi on this PE's slot on PE 0 ----------- */

#define EXTENDED_AMO_TEST(T, NAME)                                                                  \
  static void extended_amo_##NAME(void) {                                                           \
    const char *tn = #T;                                                                            \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                             \
    T *slot = shmem_calloc((size_t)npes, sizeof(T)), f = (T)0;                                      \
    CHECK(slot, "%s: shmem_calloc failed", tn);                                                     \
    shmem_atomic_set(slot + me, (T)(me + 1), 0);                                                    \
    shmem_quiet();                                                                                  \
    EXPECT(shmem_atomic_fetch(CTX, (const T *)slot + me, 0), me + 1, "shmem_atomic_set, fetch(ctx)", me); \
    shmem_atomic_set(CTX, slot + me, (T)(me + 2), 0);                                               \
    shmem_ctx_quiet(CTX);                                                                           \
    EXPECT(shmem_atomic_fetch(slot + me, 0), me + 2, "shmem_atomic_set(ctx), fetch", me);           \
    EXPECT(shmem_atomic_swap(slot + me, (T)(me + 3), 0), me + 2, "shmem_atomic_swap", me);          \
    EXPECT(shmem_atomic_swap(CTX, slot + me, (T)(me + 4), 0), me + 3, "shmem_atomic_swap(ctx)", me); \
    shmem_atomic_fetch_nbi(&f, slot + me, 0);                                                       \
    shmem_quiet();                                                                                  \
    EXPECT(f, me + 4, "shmem_atomic_fetch_nbi", me);                                                \
    f = (T)0;                                                                                       \
    shmem_atomic_fetch_nbi(CTX, &f, (const T *)slot + me, 0);                                       \
    shmem_ctx_quiet(CTX);                                                                           \
    EXPECT(f, me + 4, "shmem_atomic_fetch_nbi(ctx)", me);                                           \
    shmem_atomic_swap_nbi(&f, slot + me, (T)(me + 5), 0);                                           \
    shmem_quiet();                                                                                  \
    EXPECT(f, me + 4, "shmem_atomic_swap_nbi", me);                                                 \
    shmem_atomic_swap_nbi(CTX, &f, slot + me, (T)(me + 6), 0);                                      \
    shmem_ctx_quiet(CTX);                                                                           \
    EXPECT(f, me + 5, "shmem_atomic_swap_nbi(ctx)", me);                                            \
    shmem_barrier_all();                                                                            \
    if (me == 0)                                                                                    \
      for (int p = 0; p < npes; ++p) EXPECT(slot[p], p + 6, "slot on PE 0 after the swaps", p);     \
    shmem_free(slot);                                                                               \
  }
EXTENDED_AMO_TEST(long, long)
EXTENDED_AMO_TEST(double, double)

/* ---- Standard AMOs: every PE adds 40 into PE 0's counter; compare_swap on its own slot --------- */

#define AMO_TEST(T, NAME)                                                                           \
  static void amo_##NAME(void) {                                                                   \
    const char *tn = #T;                                                                            \
    const int me = shmem_my_pe(), npes = shmem_n_pes();                                             \
    const T total = (T)(40 * npes);                                                                 \
    T *ctr = shmem_calloc((size_t)npes + 1, sizeof(T)), *slot, f[6], cur = (T)0;                    \
    CHECK(ctr, "%s: shmem_calloc failed", tn);                                                      \
    slot = ctr + 1;                                                                                 \
    shmem_atomic_inc(ctr, 0);                                                                       \
    shmem_atomic_inc(CTX, ctr, 0);                                                                  \
    shmem_atomic_add(ctr, (T)3, 0);                                                                 \
    shmem_atomic_add(CTX, ctr, (T)4, 0);                                                            \
    f[0] = shmem_atomic_fetch_inc(ctr, 0);                                                          \
    f[1] = shmem_atomic_fetch_inc(CTX, ctr, 0);                                                     \
    f[2] = shmem_atomic_fetch_add(ctr, (T)5, 0);                                                    \
    f[3] = shmem_atomic_fetch_add(CTX, ctr, (T)6, 0);                                               \
    shmem_atomic_fetch_inc_nbi(&f[4], ctr, 0);                                                      \
    shmem_atomic_fetch_inc_nbi(CTX, &f[5], ctr, 0);                                                 \
    shmem_quiet();                                                                                  \
    for (int i = 0; i < 6; ++i) CHECK(f[i] < total, "%s fetched counter value %d: %Lg, the total is %Lg", \
                                      tn, i, (long double)f[i], (long double)total);                \
    shmem_atomic_fetch_add_nbi(&f[0], ctr, (T)7, 0);                                                \
    shmem_atomic_fetch_add_nbi(CTX, &f[1], ctr, (T)8, 0);                                           \
    shmem_quiet();                                                                                  \
    /* A compare_swap loop adds the last 1: 2 + 7 + 13 + 2 + 15 + 1 = 40. */                       \
    for (;;) {                                                                                      \
      const T old = shmem_atomic_compare_swap(ctr, cur, (T)(cur + 1), 0);                           \
      if (old == cur) break;                                                                        \
      cur = old;                                                                                    \
    }                                                                                               \
    EXPECT(shmem_atomic_compare_swap(slot + me, (T)0, (T)(me + 1), 0), 0, "shmem_atomic_compare_swap", me); \
    EXPECT(shmem_atomic_compare_swap(CTX, slot + me, (T)0, (T)99, 0), me + 1, "failed compare_swap(ctx)", me); \
    EXPECT(shmem_atomic_compare_swap(CTX, slot + me, (T)(me + 1), (T)(me + 2), 0), me + 1,          \
           "shmem_atomic_compare_swap(ctx)", me);                                                   \
    shmem_atomic_compare_swap_nbi(&f[0], slot + me, (T)(me + 2), (T)(me + 3), 0);                   \
    shmem_quiet();                                                                                  \
    EXPECT(f[0], me + 2, "shmem_atomic_compare_swap_nbi", me);                                      \
    shmem_atomic_compare_swap_nbi(CTX, &f[0], slot + me, (T)(me + 3), (T)(me + 4), 0);              \
    shmem_ctx_quiet(CTX);                                                                           \
    EXPECT(f[0], me + 3, "shmem_atomic_compare_swap_nbi(ctx)", me);                                 \
    shmem_barrier_all();                                                                            \
    if (me == 0) {                                                                                  \
      EXPECT(ctr[0], total, "counter on PE 0 after 40 from every PE", 0);                           \
      for (int p = 0; p < npes; ++p) EXPECT(slot[p], p + 4, "slot on PE 0 after the compare_swaps", p); \
    }                                                                                               \
    shmem_free(ctr);                                                                                \
  }
AMO_TEST(long, long)
AMO_TEST(uint32_t, uint32)

/* ---- Bitwise AMOs: each PE's bit into 18 words on PE 0 (or, and, xor x plain, fetch, fetch_nbi x ctx).
 * PE p owns bit 1 + p % 30; the xors also flip bit 0, which every PE flips, so that they differ from ors. */

#define BIT(p) ((E)((E)1 << (1 + (p) % 30)))
#define BITWISE_AMO_TEST(T, NAME)                                                                   \
  static void bitwise_amo_##NAME(void) {                                                            \
    typedef T E;                                                                                    \
    const char *tn = #T;                                                                            \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), exact = npes <= 30;                         \
    const T b = BIT(me);                                                                            \
    T *w = shmem_calloc(18, sizeof(T)), f[6], all = (T)0, parity = (T)0;                            \
    CHECK(w, "%s: shmem_calloc failed", tn);                                                        \
    if (me == 0)                                                                                    \
      for (int i = 6; i < 12; ++i) w[i] = (T)~(T)0;                                                 \
    shmem_barrier_all();                                                                            \
    shmem_atomic_or(w + 0, b, 0);                                                                   \
    shmem_atomic_or(CTX, w + 1, b, 0);                                                              \
    f[0] = shmem_atomic_fetch_or(w + 2, b, 0);                                                      \
    f[1] = shmem_atomic_fetch_or(CTX, w + 3, b, 0);                                                 \
    shmem_atomic_fetch_or_nbi(&f[2], w + 4, b, 0);                                                  \
    shmem_atomic_fetch_or_nbi(CTX, &f[3], w + 5, b, 0);                                             \
    shmem_atomic_and(w + 6, (T)~b, 0);                                                              \
    shmem_atomic_and(CTX, w + 7, (T)~b, 0);                                                         \
    f[4] = shmem_atomic_fetch_and(w + 8, (T)~b, 0);                                                 \
    f[5] = shmem_atomic_fetch_and(CTX, w + 9, (T)~b, 0);                                            \
    shmem_quiet();                                                                                  \
    /* Only this PE changes its bit, so it finds the bit as it was before. */                       \
    for (int i = 0; i < 4 && exact; ++i) CHECK(!(f[i] & b), "%s fetch_or %d: my bit already set", tn, i); \
    for (int i = 4; i < 6 && exact; ++i) CHECK(f[i] & b, "%s fetch_and %d: my bit already clear", tn, i); \
    shmem_atomic_fetch_and_nbi(&f[0], w + 10, (T)~b, 0);                                            \
    shmem_atomic_fetch_and_nbi(CTX, &f[1], w + 11, (T)~b, 0);                                       \
    shmem_atomic_xor(w + 12, (T)(b | 1), 0);                                                        \
    shmem_atomic_xor(CTX, w + 13, (T)(b | 1), 0);                                                   \
    f[2] = shmem_atomic_fetch_xor(w + 14, (T)(b | 1), 0);                                           \
    f[3] = shmem_atomic_fetch_xor(CTX, w + 15, (T)(b | 1), 0);                                      \
    shmem_atomic_fetch_xor_nbi(&f[4], w + 16, (T)(b | 1), 0);                                       \
    shmem_atomic_fetch_xor_nbi(CTX, &f[5], w + 17, (T)(b | 1), 0);                                  \
    shmem_quiet();                                                                                  \
    for (int i = 0; i < 2 && exact; ++i) CHECK(f[i] & b, "%s fetch_and_nbi %d: my bit already clear", tn, i); \
    for (int i = 2; i < 6 && exact; ++i) CHECK(!(f[i] & b), "%s fetch_xor %d: my bit already set", tn, i); \
    shmem_barrier_all();                                                                            \
    for (int p = 0; p < npes; ++p) {                                                                \
      all = (T)(all | BIT(p));                                                                      \
      parity = (T)(parity ^ BIT(p) ^ 1);                                                            \
    }                                                                                               \
    for (int i = 0; i < 6 && me == 0; ++i) EXPECT(w[i], all, "or word on PE 0", i);                \
    for (int i = 6; i < 12 && me == 0; ++i) EXPECT(w[i], (T)~all, "and word on PE 0", i);          \
    for (int i = 12; i < 18 && me == 0; ++i) EXPECT(w[i], parity, "xor word on PE 0", i);          \
    shmem_free(w);                                                                                  \
  }
BITWISE_AMO_TEST(uint64_t, uint64)
BITWISE_AMO_TEST(int32_t, int32)

/* ---- Point-to-point synchronization: the left neighbour sets flags[i] = i + 1 ------------------ */

#define CHECK_INDICES(n, idx, allowed, what)                                                        \
  do {                                                                                              \
    CHECK((n) >= 1 && (n) <= 4, "%s %s returned %zu indices", tn, what, (size_t)(n));               \
    for (size_t k_ = 0; k_ < (n); ++k_)                                                             \
      CHECK((idx)[k_] < 4 && ((allowed) >> (idx)[k_] & 1), "%s %s returned index %zu", tn, what, (idx)[k_]); \
  } while (0)

#define SYNC_TEST(T, NAME)                                                                          \
  static void sync_##NAME(void) {                                                                   \
    const char *tn = #T;                                                                            \
    T *flags = shmem_calloc(4, sizeof(T)), want[4] = {1, 2, 3, 4};                                  \
    int odd_out[4] = {0, 1, 0, 1};                                                                  \
    size_t idx[4], n;                                                                               \
    CHECK(flags, "%s: shmem_calloc failed", tn);                                                    \
    /* Nobody writes the flags before the next barrier: every test fails. */                        \
    CHECK_EQ(shmem_test(flags, SHMEM_CMP_NE, 0), 0, "shmem_test before the sets");                  \
    CHECK_EQ(shmem_test_all(flags, 4, NULL, SHMEM_CMP_GT, 0), 0, "shmem_test_all before the sets"); \
    CHECK(shmem_test_any(flags, 4, NULL, SHMEM_CMP_GT, 0) == SIZE_MAX, "%s shmem_test_any found one", tn); \
    CHECK_EQ(shmem_test_some(flags, 4, idx, NULL, SHMEM_CMP_GT, 0), 0, "shmem_test_some before the sets"); \
    CHECK_EQ(shmem_test_all_vector(flags, 4, NULL, SHMEM_CMP_EQ, want), 0, "shmem_test_all_vector before"); \
    CHECK(shmem_test_any_vector(flags, 4, NULL, SHMEM_CMP_EQ, want) == SIZE_MAX,                    \
          "%s shmem_test_any_vector found one", tn);                                                \
    CHECK_EQ(shmem_test_some_vector(flags, 4, idx, NULL, SHMEM_CMP_EQ, want), 0, "test_some_vector before"); \
    shmem_barrier_all();                                                                            \
    for (int i = 3; i >= 0; --i) shmem_atomic_set(flags + i, (T)(i + 1), st_right());               \
    shmem_wait_until(flags + 3, SHMEM_CMP_EQ, 4);                                                   \
    shmem_wait_until_all(flags, 4, NULL, SHMEM_CMP_GT, 0);                                          \
    CHECK_EQ(shmem_wait_until_any(flags, 4, odd_out, SHMEM_CMP_EQ, 3), 2, "shmem_wait_until_any");  \
    n = shmem_wait_until_some(flags, 4, idx, NULL, SHMEM_CMP_GE, 3);                                \
    CHECK_INDICES(n, idx, 0xcu, "shmem_wait_until_some");                                          \
    shmem_wait_until_all_vector(flags, 4, NULL, SHMEM_CMP_EQ, want);                                \
    n = shmem_wait_until_any_vector(flags, 4, odd_out, SHMEM_CMP_EQ, want);                         \
    CHECK_INDICES(1, &n, 0x5u, "shmem_wait_until_any_vector");                                      \
    n = shmem_wait_until_some_vector(flags, 4, idx, odd_out, SHMEM_CMP_EQ, want);                   \
    CHECK_INDICES(n, idx, 0x5u, "shmem_wait_until_some_vector");                                    \
    CHECK_EQ(shmem_test(flags + 1, SHMEM_CMP_EQ, 2), 1, "shmem_test");                              \
    CHECK_EQ(shmem_test_all(flags, 4, NULL, SHMEM_CMP_GE, 1), 1, "shmem_test_all");                 \
    CHECK_EQ(shmem_test_any(flags, 4, odd_out, SHMEM_CMP_EQ, 3), 2, "shmem_test_any");              \
    n = shmem_test_some(flags, 4, idx, NULL, SHMEM_CMP_LE, 2);                                      \
    CHECK_INDICES(n, idx, 0x3u, "shmem_test_some");                                                 \
    CHECK_EQ(shmem_test_all_vector(flags, 4, NULL, SHMEM_CMP_EQ, want), 1, "shmem_test_all_vector"); \
    n = shmem_test_any_vector(flags, 4, odd_out, SHMEM_CMP_EQ, want);                               \
    CHECK_INDICES(1, &n, 0x5u, "shmem_test_any_vector");                                            \
    n = shmem_test_some_vector(flags, 4, idx, NULL, SHMEM_CMP_NE, want);                            \
    CHECK_EQ(n, 0, "shmem_test_some_vector with every flag equal");                                 \
    shmem_free(flags);                                                                              \
  }
SYNC_TEST(long, long)
SYNC_TEST(int32_t, int32)

/* ---- Team collectives, each followed by shmem_sync(team) before the buffers are reused --------- */

#define COLLECTIVES_TEST(T, NAME)                                                                   \
  static void collectives_##NAME(void) {                                                            \
    const char *tn = #T;                                                                            \
    const int me = shmem_my_pe(), npes = shmem_n_pes(), root = npes - 1;                            \
    const size_t cap = 3 * (size_t)npes + (size_t)npes * (size_t)(npes + 1) / 2 + 4;                \
    T *src = shmem_malloc(cap * sizeof(T)), *dst = shmem_malloc(cap * sizeof(T));                   \
    CHECK(src && dst, "%s: shmem_malloc failed", tn);                                               \
    for (int i = 0; i < 4; ++i) src[i] = (T)st_value(me, i, 7);                                     \
    CHECK_ZERO(shmem_broadcast(TEAM, dst, src, 4, root));                                           \
    for (int i = 0; i < 4; ++i) EXPECT(dst[i], st_value(root, i, 7), "shmem_broadcast", i);         \
    CHECK_ZERO(shmem_sync(TEAM));                                                                   \
    for (int i = 0; i <= me; ++i) src[i] = (T)st_value(me, i, 8);                                   \
    CHECK_ZERO(shmem_collect(TEAM, dst, src, (size_t)me + 1));                                      \
    for (int p = 0, at = 0; p < npes; at += p + 1, ++p)                                             \
      for (int i = 0; i <= p; ++i) EXPECT(dst[at + i], st_value(p, i, 8), "shmem_collect", at + i); \
    CHECK_ZERO(shmem_sync(TEAM));                                                                   \
    for (int i = 0; i < 2; ++i) src[i] = (T)st_value(me, i, 9);                                     \
    CHECK_ZERO(shmem_fcollect(TEAM, dst, src, 2));                                                  \
    for (int p = 0; p < 2 * npes; ++p) EXPECT(dst[p], st_value(p / 2, p % 2, 9), "shmem_fcollect", p); \
    CHECK_ZERO(shmem_sync(TEAM));                                                                   \
    for (int p = 0; p < npes; ++p) src[p] = (T)st_value(me, p, 10);                                 \
    CHECK_ZERO(shmem_alltoall(TEAM, dst, src, 1));                                                  \
    for (int p = 0; p < npes; ++p) EXPECT(dst[p], st_value(p, me, 10), "shmem_alltoall", p);        \
    CHECK_ZERO(shmem_sync(TEAM));                                                                   \
    for (int p = 0; p < npes; ++p) src[3 * p] = (T)st_value(me, p, 11);                             \
    CHECK_ZERO(shmem_alltoalls(TEAM, dst, src, 2, 3, 1));                                           \
    for (int p = 0; p < npes; ++p) EXPECT(dst[2 * p], st_value(p, me, 11), "shmem_alltoalls", 2 * p); \
    shmem_free(dst);                                                                                \
    shmem_free(src);                                                                                \
  }
COLLECTIVES_TEST(long, long)
COLLECTIVES_TEST(double, double)

/* ---- Reductions over 2 elements, against the value computed here ------------------------------ */

/* The NAME reduction of CONTRIB(p, i) from every PE p, checked against the
 * fold acc = FOLD(acc, CONTRIB(p, i)) from INIT over the PEs. */
#define REDUCE_CHECK(NAME, CONTRIB, INIT, FOLD)                                                     \
  do {                                                                                              \
    for (int i = 0; i < 2; ++i) src[i] = CONTRIB(me, i);                                            \
    CHECK_ZERO(shmem_##NAME##_reduce(TEAM, dst, src, 2));                                           \
    for (int i = 0; i < 2; ++i) {                                                                   \
      E acc = INIT;                                                                                 \
      for (int p = 0; p < npes; ++p) acc = FOLD(acc, CONTRIB(p, i));                                \
      EXPECT(dst[i], acc, "shmem_" #NAME "_reduce", i);                                             \
    }                                                                                               \
    CHECK_ZERO(shmem_sync(TEAM));                                                                   \
  } while (0)

#define BITS_OF(p, i) ((E)(BIT(p) | (E)(i)))
#define NOT_BITS_OF(p, i) ((E)~BITS_OF(p, i))
#define SMALL(p, i) ((E)st_value(p, i, 12))
#define ONE_OR_TWO(p, i) ((E)(1 + ((p) + (i)) % 2))
#define FOLD_AND(a, b) ((E)((a) & (b)))
#define FOLD_OR(a, b) ((E)((a) | (b)))
#define FOLD_XOR(a, b) ((E)((a) ^ (b)))
#define FOLD_MIN(a, b) ((b) < (a) ? (b) : (a))
#define FOLD_MAX(a, b) ((b) > (a) ? (b) : (a))
#define FOLD_SUM(a, b) ((E)((a) + (b)))
#define FOLD_PROD(a, b) ((E)((a) * (b)))

#define REDUCE_SETUP(T)                                                                             \
  typedef T E;                                                                                      \
  const char *tn = #T;                                                                              \
  const int me = shmem_my_pe(), npes = shmem_n_pes();                                               \
  E *src = shmem_malloc(2 * sizeof(E)), *dst = shmem_malloc(2 * sizeof(E));                         \
  CHECK(src && dst, "%s: shmem_malloc failed", tn)

#define BITWISE_REDUCE_TEST(T, NAME)                                                                \
  static void bitwise_reduce_##NAME(void) {                                                         \
    REDUCE_SETUP(T);                                                                                \
    REDUCE_CHECK(and, NOT_BITS_OF, (E)~(E)0, FOLD_AND);                                             \
    REDUCE_CHECK(or, BITS_OF, (E)0, FOLD_OR);                                                       \
    REDUCE_CHECK(xor, BITS_OF, (E)0, FOLD_XOR);                                                     \
    shmem_free(dst);                                                                                \
    shmem_free(src);                                                                                \
  }
BITWISE_REDUCE_TEST(uint64_t, uint64)
BITWISE_REDUCE_TEST(int32_t, int32)

#define ARITH_REDUCE_TEST(T, NAME)                                                                  \
  static void arith_reduce_##NAME(void) {                                                           \
    REDUCE_SETUP(T);                                                                                \
    REDUCE_CHECK(min, SMALL, (E)1000, FOLD_MIN);                                                      \
    REDUCE_CHECK(max, SMALL, (E)0, FOLD_MAX);                                                         \
    REDUCE_CHECK(sum, SMALL, (E)0, FOLD_SUM);                                                         \
    REDUCE_CHECK(prod, ONE_OR_TWO, (E)1, FOLD_PROD);                                                  \
    shmem_free(dst);                                                                                \
    shmem_free(src);                                                                                \
  }
ARITH_REDUCE_TEST(long, long)
ARITH_REDUCE_TEST(double, double)

/* The complex sum: PE p gives (p + 1) + (p + 2)i. */
static void complex_sum(void) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  double _Complex *src = shmem_malloc(sizeof(double _Complex)), *dst = shmem_malloc(sizeof(double _Complex));
  double _Complex want = 0;
  CHECK(src && dst, "double _Complex: shmem_malloc failed");
  src[0] = (me + 1) + (me + 2) * I;
  CHECK_ZERO(shmem_sum_reduce(TEAM, dst, src, 1));
  for (int p = 0; p < npes; ++p) want += (p + 1) + (p + 2) * I;
  CHECK(dst[0] == want, "double _Complex shmem_sum_reduce: found %g%+gi, expected %g%+gi", creal(dst[0]),
        cimag(dst[0]), creal(want), cimag(want));
  shmem_free(dst);
  shmem_free(src);
}

/* ---- The deprecated generic names, on this PE's own words -------------------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void deprecated_names(void) {
  const char *tn = "deprecated";
  const int me = shmem_my_pe();
  long *w = shmem_calloc(1, sizeof(long));
  int *iw = shmem_calloc(1, sizeof(int));
  double *d = shmem_calloc(1, sizeof(double));
  CHECK(w && iw && d, "shmem_calloc failed");
  shmem_set(w, 5L, me);
  shmem_quiet();
  EXPECT(shmem_fetch((const long *)w, me), 5, "shmem_set, shmem_fetch (long)", 0);
  EXPECT(shmem_swap(w, 6L, me), 5, "shmem_swap (long)", 0);
  EXPECT(shmem_cswap(w, 6L, 7L, me), 6, "shmem_cswap (long)", 0);
  EXPECT(shmem_finc(w, me), 7, "shmem_finc (long)", 0);
  shmem_inc(w, me);
  EXPECT(shmem_fadd(w, 2L, me), 9, "shmem_fadd (long)", 0);
  shmem_add(w, 3L, me);
  shmem_quiet();
  EXPECT(shmem_fetch(w, me), 14, "shmem_inc, shmem_add (long)", 0);
  shmem_add(iw, 4, me);
  shmem_inc(iw, me);
  shmem_quiet();
  EXPECT(shmem_fadd(iw, 1, me), 5, "shmem_add, shmem_inc, shmem_fadd (int)", 0);
  EXPECT(shmem_cswap(iw, 6, 8, me), 6, "shmem_cswap (int)", 0);
  EXPECT(shmem_finc(iw, me), 8, "shmem_finc (int)", 0);
  shmem_set(d, 1.5, me);
  shmem_quiet();
  EXPECT(shmem_swap(d, 2.5, me), 1.5, "shmem_set, shmem_swap (double)", 0);
  EXPECT(shmem_fetch(d, me), 2.5, "shmem_fetch (double)", 0);
  shmem_free(d);
  shmem_free(iw);
  shmem_free(w);
}
#pragma GCC diagnostic pop

int main(void) {
  shmem_init();
  CHECK(shmem_n_pes() >= 2, "generics needs 2 or more PEs, has %d", shmem_n_pes());
  rma_long();
  rma_double();
  extended_amo_long();
  extended_amo_double();
  amo_long();
  amo_uint32();
  bitwise_amo_uint64();
  bitwise_amo_int32();
  sync_long();
  sync_int32();
  collectives_long();
  collectives_double();
  bitwise_reduce_uint64();
  bitwise_reduce_int32();
  arith_reduce_long();
  arith_reduce_double();
  complex_sum();
  deprecated_names();
  st_done("generics");
  shmem_finalize();
  return 0;
}
