/* Remote memory access (OpenSHMEM 1.5 chapter 9.5): for every type of the
 * standard RMA table, p, g, put, get, put_nbi, get_nbi, iput and iget, each
 * in its plain form and in its ctx_ form on SHMEM_CTX_DEFAULT and on a created
 * context; the sized routines (8 to 128 bits) and the mem routines; 4 MiB
 * transfers; transfers to the PE itself; and puts and gets on global and
 * static variables, which the standard makes symmetric.
 *
 * Each PE writes into its right neighbour and reads back from it, so every PE
 * is both origin and target (with one PE, each transfer is to itself). */
#include "shmemtest.h"

enum { N = 16, LEN = 64 };

/* Symmetric by the standard: data objects with static storage duration. */
static long st[8];
long gl[8];

/* LEN elements of the largest type; each typed test uses it as TYPE[LEN]. */
static void *heap;

static void clear_heap(void) {
  memset(heap, 0, LEN * 16);
  shmem_barrier_all();
}

#define NOCTX
#define CTXARG ctx,

#define EXPECT(PFX, NAME, OP, arr, idx, want)                                                           \
  CHECK((arr)[idx] == (want), "%s%s%s: element %d is %Lg, expected %Lg", #PFX, #NAME, OP, (int)(idx), \
        (long double)(arr)[idx], (long double)(want))

/* One body for the plain routines (PFX shmem_, no context argument) and the
 * ctx_ routines (PFX shmem_ctx_, CTX `ctx,`); QUIET completes what was issued. */
#define RMA_BODY(NAME, TYPE, PFX, CTX, QUIET)                                                    \
  {                                                                                             \
    TYPE *dst = (TYPE *)heap;                                                                   \
    TYPE src[N], got[LEN];                                                                      \
    const int me = shmem_my_pe(), right = st_right(), left = st_left();                         \
    for (int i = 0; i < N; ++i) src[i] = (TYPE)st_value(me, (size_t)i, 1);                      \
    /* p, put and put_nbi into the right neighbour. */                                          \
    clear_heap();                                                                               \
    for (int i = 0; i < N; ++i) PFX##NAME##_p(CTX & dst[i], (TYPE)st_value(me, (size_t)i, 0), right); \
    PFX##NAME##_put(CTX & dst[N], src, N, right);                                               \
    PFX##NAME##_put_nbi(CTX & dst[2 * N], src, N, right);                                       \
    QUIET;                                                                                      \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < N; ++i) {                                                               \
      EXPECT(PFX, NAME, "_p", dst, i, (TYPE)st_value(left, (size_t)i, 0));                      \
      EXPECT(PFX, NAME, "_put", dst, N + i, (TYPE)st_value(left, (size_t)i, 1));                \
      EXPECT(PFX, NAME, "_put_nbi", dst, 2 * N + i, (TYPE)st_value(left, (size_t)i, 1));        \
    }                                                                                           \
    for (int i = 3 * N; i < LEN; ++i) EXPECT(PFX, NAME, "_put (past the end)", dst, i, (TYPE)0); \
    /* g, get and get_nbi from the right neighbour, which holds what this PE put. */            \
    for (int i = 0; i < N; ++i) {                                                               \
      TYPE v = PFX##NAME##_g(CTX & dst[i], right);                                              \
      CHECK(v == (TYPE)st_value(me, (size_t)i, 0), "%s%s_g: element %d is %Lg, expected %Lg", #PFX, #NAME, i, \
            (long double)v, (long double)st_value(me, (size_t)i, 0));                           \
    }                                                                                           \
    memset(got, 0, sizeof got);                                                                 \
    PFX##NAME##_get(CTX got, &dst[N], N, right);                                                \
    for (int i = 0; i < N; ++i) EXPECT(PFX, NAME, "_get", got, i, src[i]);                      \
    EXPECT(PFX, NAME, "_get (past the end)", got, N, (TYPE)0);                                  \
    memset(got, 0, sizeof got);                                                                 \
    PFX##NAME##_get_nbi(CTX got, &dst[2 * N], N, right);                                        \
    QUIET;                                                                                      \
    for (int i = 0; i < N; ++i) EXPECT(PFX, NAME, "_get_nbi", got, i, src[i]);                  \
    shmem_barrier_all();                                                                        \
    /* iput: src[0, 2, 4, ...] to dst[0, 3, 6, ...]; iget back into got[0, 2, 4, ...]. */      \
    clear_heap();                                                                               \
    PFX##NAME##_iput(CTX dst, src, 3, 2, N / 2, right);                                         \
    QUIET;                                                                                      \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < LEN; ++i) {                                                             \
      TYPE want = (i % 3 == 0 && i / 3 < N / 2) ? (TYPE)st_value(left, (size_t)(2 * (i / 3)), 1) : (TYPE)0; \
      EXPECT(PFX, NAME, "_iput", dst, i, want);                                                 \
    }                                                                                           \
    memset(got, 0, sizeof got);                                                                 \
    PFX##NAME##_iget(CTX got, dst, 2, 3, N / 2, right);                                         \
    for (int i = 0; i < N; ++i) EXPECT(PFX, NAME, "_iget", got, i, i % 2 == 0 ? src[i] : (TYPE)0); \
    shmem_barrier_all();                                                                        \
    /* To itself: put and g on this PE's own block. */                                          \
    PFX##NAME##_put(CTX & dst[LEN - N], src, N, me);                                            \
    QUIET;                                                                                      \
    for (int i = 0; i < N; ++i) EXPECT(PFX, NAME, "_put to myself", dst, LEN - N + i, src[i]);  \
    {                                                                                           \
      TYPE v = PFX##NAME##_g(CTX & dst[LEN - 1], me);                                           \
      CHECK(v == src[N - 1], "%s%s_g from myself is %Lg, expected %Lg", #PFX, #NAME, (long double)v, \
            (long double)src[N - 1]);                                                           \
    }                                                                                           \
    PFX##NAME##_p(CTX & dst[LEN - N], (TYPE)7, me);                                             \
    QUIET;                                                                                      \
    EXPECT(PFX, NAME, "_p to myself", dst, LEN - N, (TYPE)7);                                   \
    shmem_barrier_all();                                                                        \
  }

#define RMA_TESTS(NAME, TYPE)                                                                   \
  static void rma_##NAME(void) RMA_BODY(NAME, TYPE, shmem_, NOCTX, shmem_quiet())               \
  static void rma_ctx_##NAME(shmem_ctx_t ctx) RMA_BODY(NAME, TYPE, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
MPF_SHMEM_RMA_TYPES(RMA_TESTS)

#define RUN_RMA(NAME, TYPE) rma_##NAME();
#define RUN_RMA_CTX(NAME, TYPE) rma_ctx_##NAME(ctx);

static void typed(void) { MPF_SHMEM_RMA_TYPES(RUN_RMA) }
static void typed_ctx(shmem_ctx_t ctx) { MPF_SHMEM_RMA_TYPES(RUN_RMA_CTX) }

/* The sized routines move elements of BYTES bytes; the bytes carry a pattern. */
static void expect_bytes(const unsigned char *p, size_t n, uint64_t seed, size_t first, const char *what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(p[i] == st_byte(seed, first + i), "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i],
          st_byte(seed, first + i));
}

static void expect_zero(const unsigned char *p, size_t n, const char *what) {
  for (size_t i = 0; i < n; ++i) CHECK(p[i] == 0, "%s: byte %zu is 0x%02x, expected untouched 0", what, i, p[i]);
}

#define SIZED_BODY(BITS, BYTES, PFX, CTX, QUIET)                                                          \
  {                                                                                                       \
    unsigned char *dst = (unsigned char *)heap;                                                           \
    unsigned char src[N * BYTES], got[LEN * 16];                                                          \
    const int me = shmem_my_pe(), right = st_right(), left = st_left();                                   \
    const uint64_t mine = 0xb17500 + (uint64_t)me * 131 + BITS, lefts = 0xb17500 + (uint64_t)left * 131 + BITS; \
    const char *name = #PFX "put" #BITS;                                                                   \
    const char *gname = #PFX "get" #BITS;                                                                  \
    st_fill(src, sizeof src, mine);                                                                       \
    clear_heap();                                                                                         \
    PFX##put##BITS(CTX dst, src, N / 2, right);                                                           \
    PFX##put##BITS##_nbi(CTX dst + N / 2 * BYTES, src + N / 2 * BYTES, N / 2, right);                     \
    QUIET;                                                                                                \
    shmem_barrier_all();                                                                                  \
    expect_bytes(dst, N * BYTES, lefts, 0, name);                                                         \
    expect_zero(dst + N * BYTES, (LEN - N) * BYTES, name);                                                \
    memset(got, 0, sizeof got);                                                                           \
    PFX##get##BITS(CTX got, dst, N / 2, right);                                                           \
    PFX##get##BITS##_nbi(CTX got + N / 2 * BYTES, dst + N / 2 * BYTES, N / 2, right);                     \
    QUIET;                                                                                                \
    expect_bytes(got, N * BYTES, mine, 0, gname);                                                         \
    expect_zero(got + N * BYTES, BYTES, gname);                                                           \
    shmem_barrier_all();                                                                                  \
    /* Element k of src (stride 2) to element 3k of dest; back to element 2k. */                          \
    clear_heap();                                                                                         \
    PFX##iput##BITS(CTX dst, src, 3, 2, N / 2, right);                                                    \
    QUIET;                                                                                                \
    shmem_barrier_all();                                                                                  \
    for (int i = 0; i < LEN; ++i) {                                                                       \
      if (i % 3 == 0 && i / 3 < N / 2)                                                                    \
        expect_bytes(dst + i * BYTES, BYTES, lefts, (size_t)(2 * (i / 3)) * BYTES, #PFX "iput" #BITS);    \
      else                                                                                                \
        expect_zero(dst + i * BYTES, BYTES, #PFX "iput" #BITS " (between the strides)");                 \
    }                                                                                                     \
    memset(got, 0, sizeof got);                                                                           \
    PFX##iget##BITS(CTX got, dst, 2, 3, N / 2, right);                                                    \
    for (int i = 0; i < N; ++i) {                                                                         \
      if (i % 2 == 0)                                                                                     \
        expect_bytes(got + i * BYTES, BYTES, mine, (size_t)i * BYTES, #PFX "iget" #BITS);                 \
      else                                                                                                \
        expect_zero(got + i * BYTES, BYTES, #PFX "iget" #BITS " (between the strides)");                 \
    }                                                                                                     \
    shmem_barrier_all();                                                                                  \
  }

#define SIZED_TESTS(BITS, BYTES)                                        \
  static void sized_##BITS(void) SIZED_BODY(BITS, BYTES, shmem_, NOCTX, shmem_quiet()) \
  static void sized_ctx_##BITS(shmem_ctx_t ctx) SIZED_BODY(BITS, BYTES, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
MPF_SHMEM_SIZES(SIZED_TESTS)

#define RUN_SIZED(BITS, BYTES) sized_##BITS();
#define RUN_SIZED_CTX(BITS, BYTES) sized_ctx_##BITS(ctx);
static void sized(void) { MPF_SHMEM_SIZES(RUN_SIZED) }
static void sized_ctx(shmem_ctx_t ctx) { MPF_SHMEM_SIZES(RUN_SIZED_CTX) }

/* putmem, getmem and their nbi forms, at odd lengths and offsets. */
#define MEM_BODY(PFX, CTX, QUIET)                                                       \
  {                                                                                     \
    unsigned char *dst = (unsigned char *)heap;                                         \
    unsigned char src[301], got[301];                                                   \
    const int me = shmem_my_pe(), right = st_right(), left = st_left();                 \
    st_fill(src, sizeof src, 0x3e3000 + (uint64_t)me);                                  \
    clear_heap();                                                                       \
    PFX##putmem(CTX dst + 1, src, 150, right);                                          \
    PFX##putmem_nbi(CTX dst + 151, src + 150, 151, right);                              \
    QUIET;                                                                              \
    shmem_barrier_all();                                                                \
    CHECK(dst[0] == 0, "%sputmem wrote before its destination", #PFX);                  \
    expect_bytes(dst + 1, 301, 0x3e3000 + (uint64_t)left, 0, #PFX "putmem");            \
    CHECK(dst[302] == 0, "%sputmem wrote past its destination", #PFX);                  \
    memset(got, 0, sizeof got);                                                         \
    PFX##getmem(CTX got, dst + 1, 100, right);                                          \
    PFX##getmem_nbi(CTX got + 100, dst + 101, 201, right);                              \
    QUIET;                                                                              \
    expect_bytes(got, 301, 0x3e3000 + (uint64_t)me, 0, #PFX "getmem");                  \
    PFX##putmem(CTX dst + 400, src, 0, right); /* zero bytes: nothing happens */         \
    shmem_barrier_all();                                                                \
  }

static void mem(void) MEM_BODY(shmem_, NOCTX, shmem_quiet())
static void mem_ctx(shmem_ctx_t ctx) MEM_BODY(shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))

/* 4 MiB in one call, with a pattern, each way, blocking and not. */
static void large(shmem_ctx_t ctx) {
  const size_t size = (size_t)4 << 20;
  const int me = shmem_my_pe(), right = st_right(), left = st_left();
  unsigned char *dst = shmem_malloc(size);
  unsigned char *src = malloc(size);
  unsigned char *got = malloc(size);
  CHECK(dst != NULL, "shmem_malloc(4 MiB) returned NULL");
  CHECK(src != NULL && got != NULL, "malloc(4 MiB) failed");
  st_fill(src, size, 0x4b1600 + (uint64_t)me);
  memset(dst, 0, size);
  shmem_barrier_all();
  shmem_putmem(dst, src, size, right);
  shmem_barrier_all();
  st_verify(dst, size, 0x4b1600 + (uint64_t)left, "shmem_putmem of 4 MiB");
  shmem_getmem(got, dst, size, right);
  st_verify(got, size, 0x4b1600 + (uint64_t)me, "shmem_getmem of 4 MiB");
  shmem_barrier_all();
  st_fill(src, size, 0x4b1700 + (uint64_t)me);
  shmem_long_put_nbi((long *)dst, (const long *)src, size / sizeof(long), right);
  shmem_quiet();
  shmem_barrier_all();
  st_verify(dst, size, 0x4b1700 + (uint64_t)left, "shmem_long_put_nbi of 4 MiB");
  memset(got, 0, size);
  shmem_long_get_nbi((long *)got, (const long *)dst, size / sizeof(long), right);
  shmem_quiet();
  st_verify(got, size, 0x4b1700 + (uint64_t)me, "shmem_long_get_nbi of 4 MiB");
  shmem_barrier_all();
  st_fill(src, size, 0x4b1800 + (uint64_t)me);
  shmem_ctx_putmem_nbi(ctx, dst, src, size, right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  st_verify(dst, size, 0x4b1800 + (uint64_t)left, "shmem_ctx_putmem_nbi of 4 MiB on a created context");
  memset(got, 0, size);
  shmem_ctx_getmem(ctx, got, dst, size, right);
  st_verify(got, size, 0x4b1800 + (uint64_t)me, "shmem_ctx_getmem of 4 MiB on a created context");
  /* To itself. */
  st_fill(src, size, 0x4b1900 + (uint64_t)me);
  shmem_barrier_all();
  shmem_putmem(dst, src, size, me);
  st_verify(dst, size, 0x4b1900 + (uint64_t)me, "shmem_putmem of 4 MiB to myself");
  shmem_barrier_all();
  free(got);
  free(src);
  shmem_free(dst);
}

/* Global and static variables of other PEs. */
static void globals(void) {
  const int me = shmem_my_pe(), right = st_right(), left = st_left();
  long src[8], got[8];
  for (int i = 0; i < 8; ++i) {
    src[i] = 100000L * me + i;
    st[i] = -1;
    gl[i] = -1;
  }
  shmem_barrier_all();
  shmem_long_put(st, src, 8, right);
  for (int i = 0; i < 8; ++i) shmem_long_p(&gl[i], src[i] + 50, right);
  shmem_barrier_all();
  for (int i = 0; i < 8; ++i) {
    CHECK(st[i] == 100000L * left + i, "static st[%d] is %ld after my left neighbour's put, expected %ld", i, st[i],
          100000L * left + i);
    CHECK(gl[i] == 100000L * left + i + 50, "global gl[%d] is %ld after my left neighbour's p, expected %ld", i,
          gl[i], 100000L * left + i + 50);
  }
  shmem_long_get(got, st, 8, right);
  for (int i = 0; i < 8; ++i) CHECK(got[i] == src[i], "shmem_long_get of static st[%d] is %ld, expected %ld", i, got[i], src[i]);
  for (int i = 0; i < 8; ++i) {
    long v = shmem_long_g(&gl[i], right);
    CHECK(v == src[i] + 50, "shmem_long_g of global gl[%d] is %ld, expected %ld", i, v, src[i] + 50);
  }
  shmem_barrier_all();
  shmem_long_iput(st, src, 2, 1, 4, right);
  shmem_barrier_all();
  for (int i = 0; i < 8; ++i) {
    long want = i % 2 == 0 ? 100000L * left + i / 2 : 100000L * left + i;
    CHECK(st[i] == want, "static st[%d] is %ld after shmem_long_iput, expected %ld", i, st[i], want);
  }
  shmem_barrier_all();
}

int main(void) {
  shmem_ctx_t ctx;
  shmem_init();
  heap = shmem_malloc(LEN * 16);
  CHECK(heap != NULL, "shmem_malloc(%d) returned NULL", LEN * 16);
  typed();
  typed_ctx(SHMEM_CTX_DEFAULT);
  CHECK_ZERO(shmem_ctx_create(0, &ctx));
  typed_ctx(ctx);
  sized();
  sized_ctx(SHMEM_CTX_DEFAULT);
  sized_ctx(ctx);
  mem();
  mem_ctx(SHMEM_CTX_DEFAULT);
  mem_ctx(ctx);
  large(ctx);
  globals();
  shmem_ctx_destroy(ctx);
  shmem_free(heap);
  st_done("rma");
  shmem_finalize();
  return 0;
}
