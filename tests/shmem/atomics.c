/* Atomic memory operations (OpenSHMEM 1.5 chapter 9.7), every routine for
 * every type of its table, in the plain form and the ctx_ form (on
 * SHMEM_CTX_DEFAULT and on a created context): the extended AMOs (fetch, set,
 * swap and their nbi forms), the standard AMOs (compare_swap, fetch_inc,
 * inc, fetch_add, add and nbi forms), the bitwise AMOs (and, or, xor, their
 * fetch and fetch nbi forms). Every result is checked exactly: each PE works
 * on its right neighbour's word, then tells it the value to expect; and all
 * PEs add into PE 0's word for an exact total. Then contended operations on
 * global variables, and the deprecated names once each. */
#include "shmemtest.h"

/* Symmetric by the standard. */
static long global_count;
long global_winners;
static int global_flag;

/* Per type: [0] the word the left neighbour works on, [1] the value it
 * expects there, [2] on PE 0 the word every PE adds into. */
static void *heap;

#define NOCTX
#define CTXARG ctx,

#define EXPECT_FETCH(PFX, NAME, OP, found, want)                                                  \
  CHECK((found) == (want), "%s%s_atomic_%s returned %Lg, expected %Lg", #PFX, #NAME, OP,          \
        (long double)(found), (long double)(want))

/* The right neighbour's word is w[0]; this PE sends it the value to expect in
 * w[1]; after the barrier each PE compares its own two. */
#define EXPECT_OWNER(PFX, NAME, TYPE, e, what)                                                    \
  do {                                                                                           \
    TYPE *w_ = (TYPE *)heap;                                                                     \
    TYPE e_ = (e);                                                                               \
    shmem_putmem(&w_[1], &e_, sizeof e_, st_right());                                            \
    shmem_barrier_all();                                                                         \
    CHECK(w_[0] == w_[1], "%s%s %s: my word is %Lg after my left neighbour's operations, expected %Lg", \
          #PFX, #NAME, what, (long double)w_[0], (long double)w_[1]);                            \
    shmem_barrier_all();                                                                         \
  } while (0)

static void reset(size_t bytes) {
  memset(heap, 0, bytes);
  shmem_barrier_all();
}

#define EXTENDED_BODY(NAME, TYPE, PFX, CTX, QUIET)                                    \
  {                                                                                   \
    TYPE *w = (TYPE *)heap;                                                           \
    const int me = shmem_my_pe(), right = st_right();                                 \
    const TYPE a = (TYPE)(10 + me % 50), b = (TYPE)(70 + me % 50), c = (TYPE)(130 + me % 50); \
    TYPE f, fetched;                                                                  \
    reset(3 * sizeof(TYPE));                                                          \
    PFX##NAME##_atomic_set(CTX w, a, right);                                          \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_fetch(CTX w, right);                                       \
    EXPECT_FETCH(PFX, NAME, "fetch", f, a);                                           \
    f = PFX##NAME##_atomic_swap(CTX w, b, right);                                     \
    EXPECT_FETCH(PFX, NAME, "swap", f, a);                                            \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_nbi(CTX & fetched, w, right);                            \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_nbi", fetched, b);                                 \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_swap_nbi(CTX & fetched, w, c, right);                          \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "swap_nbi", fetched, b);                                  \
    EXPECT_OWNER(PFX, NAME, TYPE, c, "set, swap, swap_nbi");                          \
    /* On this PE's own word. */                                                      \
    PFX##NAME##_atomic_set(CTX w, b, me);                                             \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_swap(CTX w, a, me);                                        \
    EXPECT_FETCH(PFX, NAME, "swap on myself", f, b);                                  \
    CHECK(w[0] == a, "%s%s_atomic_swap on myself left %Lg, expected %Lg", #PFX, #NAME, (long double)w[0], \
          (long double)a);                                                            \
    shmem_barrier_all();                                                              \
  }

#define STANDARD_BODY(NAME, TYPE, PFX, CTX, QUIET)                                    \
  {                                                                                   \
    TYPE *w = (TYPE *)heap;                                                           \
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = st_right();             \
    const TYPE base = (TYPE)(1000 * (me % 7));                                        \
    TYPE f, fetched;                                                                  \
    reset(3 * sizeof(TYPE));                                                          \
    PFX##NAME##_atomic_set(CTX w, (TYPE)(base + 5), right);                           \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_compare_swap(CTX w, (TYPE)(base + 4), (TYPE)(base + 9), right); \
    EXPECT_FETCH(PFX, NAME, "compare_swap (not equal)", f, (TYPE)(base + 5));         \
    f = PFX##NAME##_atomic_compare_swap(CTX w, (TYPE)(base + 5), (TYPE)(base + 9), right); \
    EXPECT_FETCH(PFX, NAME, "compare_swap (equal)", f, (TYPE)(base + 5));             \
    f = PFX##NAME##_atomic_fetch_inc(CTX w, right);                                   \
    EXPECT_FETCH(PFX, NAME, "fetch_inc", f, (TYPE)(base + 9));                        \
    PFX##NAME##_atomic_inc(CTX w, right);                                             \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_fetch_add(CTX w, (TYPE)7, right);                          \
    EXPECT_FETCH(PFX, NAME, "fetch_add (after inc)", f, (TYPE)(base + 11));           \
    PFX##NAME##_atomic_add(CTX w, (TYPE)3, right);                                    \
    QUIET;                                                                            \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_compare_swap_nbi(CTX & fetched, w, (TYPE)(base + 21), (TYPE)(base + 30), right); \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "compare_swap_nbi (after add)", fetched, (TYPE)(base + 21)); \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_inc_nbi(CTX & fetched, w, right);                        \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_inc_nbi", fetched, (TYPE)(base + 30));             \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_add_nbi(CTX & fetched, w, (TYPE)4, right);               \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_add_nbi", fetched, (TYPE)(base + 31));             \
    f = PFX##NAME##_atomic_fetch(CTX w, right);                                       \
    EXPECT_FETCH(PFX, NAME, "fetch (after fetch_add_nbi)", f, (TYPE)(base + 35));     \
    /* Every PE adds into PE 0's word. */                                             \
    PFX##NAME##_atomic_add(CTX & w[2], (TYPE)(me + 1), 0);                            \
    PFX##NAME##_atomic_inc(CTX & w[2], 0);                                            \
    (void)PFX##NAME##_atomic_fetch_add(CTX & w[2], (TYPE)(2 * me), 0);               \
    (void)PFX##NAME##_atomic_fetch_inc(CTX & w[2], 0);                                \
    QUIET;                                                                            \
    EXPECT_OWNER(PFX, NAME, TYPE, (TYPE)(base + 35), "compare_swap ... fetch_add_nbi"); \
    if (me == 0) {                                                                    \
      TYPE total = (TYPE)((long long)n * (n + 1) / 2 + n + (long long)n * (n - 1) + n); \
      CHECK(w[2] == total, "%s%s: PE 0's word is %Lg after every PE's adds and incs, expected %Lg", #PFX, #NAME, \
            (long double)w[2], (long double)total);                                   \
    }                                                                                 \
    shmem_barrier_all();                                                              \
  }

/* e tracks the value the right neighbour's word should hold. */
#define BITWISE_BODY(NAME, TYPE, PFX, CTX, QUIET)                                     \
  {                                                                                   \
    TYPE *w = (TYPE *)heap;                                                           \
    const int me = shmem_my_pe(), right = st_right();                                 \
    TYPE e = (TYPE)(0x5a5au ^ (unsigned)me), f, fetched;                              \
    reset(3 * sizeof(TYPE));                                                          \
    PFX##NAME##_atomic_set(CTX w, e, right);                                          \
    QUIET;                                                                            \
    PFX##NAME##_atomic_and(CTX w, (TYPE)0x0ff0, right);                               \
    e &= (TYPE)0x0ff0;                                                                \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_fetch_and(CTX w, (TYPE)0x3c3c, right);                     \
    EXPECT_FETCH(PFX, NAME, "fetch_and (after and)", f, e);                           \
    e &= (TYPE)0x3c3c;                                                                \
    PFX##NAME##_atomic_or(CTX w, (TYPE)0x8001, right);                                \
    e |= (TYPE)0x8001;                                                                \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_fetch_or(CTX w, (TYPE)0x0240, right);                      \
    EXPECT_FETCH(PFX, NAME, "fetch_or (after or)", f, e);                             \
    e |= (TYPE)0x0240;                                                                \
    PFX##NAME##_atomic_xor(CTX w, (TYPE)0x1111, right);                               \
    e ^= (TYPE)0x1111;                                                                \
    QUIET;                                                                            \
    f = PFX##NAME##_atomic_fetch_xor(CTX w, (TYPE)0x7fff, right);                     \
    EXPECT_FETCH(PFX, NAME, "fetch_xor (after xor)", f, e);                           \
    e ^= (TYPE)0x7fff;                                                                \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_and_nbi(CTX & fetched, w, (TYPE)0x7ff7, right);          \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_and_nbi", fetched, e);                             \
    e &= (TYPE)0x7ff7;                                                                \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_or_nbi(CTX & fetched, w, (TYPE)0x0030, right);           \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_or_nbi", fetched, e);                              \
    e |= (TYPE)0x0030;                                                                \
    fetched = (TYPE)0;                                                                \
    PFX##NAME##_atomic_fetch_xor_nbi(CTX & fetched, w, (TYPE)0x5555, right);          \
    QUIET;                                                                            \
    EXPECT_FETCH(PFX, NAME, "fetch_xor_nbi", fetched, e);                             \
    e ^= (TYPE)0x5555;                                                                \
    EXPECT_OWNER(PFX, NAME, TYPE, e, "and, or, xor and their fetch forms");           \
    /* Every PE sets its own bit of PE 0's word, then flips bit 16. */               \
    PFX##NAME##_atomic_or(CTX & w[2], (TYPE)((TYPE)1 << (me % 16)), 0);              \
    PFX##NAME##_atomic_xor(CTX & w[2], (TYPE)((TYPE)1 << 16), 0);                     \
    QUIET;                                                                            \
    shmem_barrier_all();                                                              \
    if (me == 0) {                                                                    \
      const int n = shmem_n_pes();                                                    \
      TYPE want = (TYPE)0;                                                            \
      for (int pe = 0; pe < n; ++pe) want |= (TYPE)((TYPE)1 << (pe % 16));            \
      if (n % 2 == 1) want |= (TYPE)((TYPE)1 << 16);                                  \
      CHECK(w[2] == want, "%s%s: PE 0's word is %Lg after every PE's or and xor, expected %Lg", #PFX, #NAME, \
            (long double)w[2], (long double)want);                                   \
    }                                                                                 \
    shmem_barrier_all();                                                              \
  }

#define EXTENDED_TESTS(NAME, TYPE)                                                                     \
  static void extended_##NAME(void) EXTENDED_BODY(NAME, TYPE, shmem_, NOCTX, shmem_quiet())            \
  static void extended_ctx_##NAME(shmem_ctx_t ctx) EXTENDED_BODY(NAME, TYPE, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
#define STANDARD_TESTS(NAME, TYPE)                                                                     \
  static void standard_##NAME(void) STANDARD_BODY(NAME, TYPE, shmem_, NOCTX, shmem_quiet())            \
  static void standard_ctx_##NAME(shmem_ctx_t ctx) STANDARD_BODY(NAME, TYPE, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
#define BITWISE_TESTS(NAME, TYPE)                                                                      \
  static void bitwise_##NAME(void) BITWISE_BODY(NAME, TYPE, shmem_, NOCTX, shmem_quiet())              \
  static void bitwise_ctx_##NAME(shmem_ctx_t ctx) BITWISE_BODY(NAME, TYPE, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
MPF_SHMEM_EXTENDED_AMO_TYPES(EXTENDED_TESTS)
MPF_SHMEM_AMO_TYPES(STANDARD_TESTS)
MPF_SHMEM_BITWISE_AMO_TYPES(BITWISE_TESTS)

#define RUN_EXTENDED(NAME, TYPE) extended_##NAME();
#define RUN_STANDARD(NAME, TYPE) standard_##NAME();
#define RUN_BITWISE(NAME, TYPE) bitwise_##NAME();
#define RUN_EXTENDED_CTX(NAME, TYPE) extended_ctx_##NAME(ctx);
#define RUN_STANDARD_CTX(NAME, TYPE) standard_ctx_##NAME(ctx);
#define RUN_BITWISE_CTX(NAME, TYPE) bitwise_ctx_##NAME(ctx);

static void all_types(void) {
  MPF_SHMEM_EXTENDED_AMO_TYPES(RUN_EXTENDED)
  MPF_SHMEM_AMO_TYPES(RUN_STANDARD)
  MPF_SHMEM_BITWISE_AMO_TYPES(RUN_BITWISE)
}

static void all_types_ctx(shmem_ctx_t ctx) {
  MPF_SHMEM_EXTENDED_AMO_TYPES(RUN_EXTENDED_CTX)
  MPF_SHMEM_AMO_TYPES(RUN_STANDARD_CTX)
  MPF_SHMEM_BITWISE_AMO_TYPES(RUN_BITWISE_CTX)
}

/* Contended operations on PE 0's global variables: an exact count, and
 * exactly one winner of a compare-and-swap. */
static void contended_globals(void) {
  enum { ROUNDS = 200 };
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *heap_count = (long *)heap;
  long last = -1;
  reset(sizeof(long));
  for (int r = 0; r < ROUNDS; ++r) {
    long f = shmem_long_atomic_fetch_add(heap_count, me + 1, 0);
    CHECK(f > last, "shmem_long_atomic_fetch_add on PE 0's word returned %ld after %ld: the word went down", f, last);
    last = f;
    shmem_long_atomic_inc(&global_count, 0);
  }
  long old = shmem_int_atomic_compare_swap(&global_flag, 0, me + 1, 0);
  if (old == 0) shmem_long_atomic_inc(&global_winners, 0);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(*heap_count, (long)ROUNDS * n * (n + 1) / 2, "PE 0's word after every PE's fetch_adds");
    CHECK_EQ(global_count, (long)ROUNDS * n, "PE 0's global counter after every PE's incs");
    CHECK_EQ(global_winners, 1, "the number of PEs whose compare_swap of PE 0's global flag from 0 succeeded");
    CHECK(global_flag >= 1 && global_flag <= n, "PE 0's global flag is %d, expected a PE number + 1", global_flag);
  }
  long g = shmem_long_atomic_fetch(&global_count, 0);
  CHECK_EQ(g, (long)ROUNDS * n, "shmem_long_atomic_fetch of PE 0's global counter");
  shmem_barrier_all();
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void deprecated_names(void) {
  const int right = st_right();
  int *iw = (int *)heap;
  long *lw = (long *)heap + 1;
  reset(2 * sizeof(long));
  shmem_int_set(iw, 4, right);
  shmem_quiet();
  CHECK_EQ(shmem_int_fetch(iw, right), 4, "shmem_int_fetch after shmem_int_set(4)");
  shmem_int_add(iw, 3, right);
  shmem_int_inc(iw, right);
  shmem_quiet();
  CHECK_EQ(shmem_int_fadd(iw, 2, right), 8, "shmem_int_fadd after shmem_int_add(3) and shmem_int_inc");
  CHECK_EQ(shmem_int_cswap(iw, 10, 20, right), 10, "shmem_int_cswap(10, 20) after shmem_int_fadd(2)");
  CHECK_EQ(shmem_long_swap(lw, 7, right), 0, "shmem_long_swap of a zero word");
  CHECK_EQ(shmem_long_finc(lw, right), 7, "shmem_long_finc after shmem_long_swap(7)");
  shmem_barrier_all();
  CHECK_EQ(*iw, 20, "my int word after my left neighbour's deprecated operations");
  CHECK_EQ(*lw, 8, "my long word after my left neighbour's deprecated operations");
  shmem_barrier_all();
}
#pragma GCC diagnostic pop

int main(void) {
  shmem_ctx_t ctx;
  shmem_init();
  heap = shmem_malloc(3 * 16);
  CHECK(heap != NULL, "shmem_malloc(48) returned NULL");
  all_types();
  all_types_ctx(SHMEM_CTX_DEFAULT);
  CHECK_ZERO(shmem_ctx_create(0, &ctx));
  all_types_ctx(ctx);
  shmem_ctx_destroy(ctx);
  contended_globals();
  deprecated_names();
  shmem_free(heap);
  st_done("atomics");
  shmem_finalize();
  return 0;
}
