/* Signaling operations (OpenSHMEM 1.5 chapter 9.8): put_signal and
 * put_signal_nbi for every type of the RMA table, the sized and mem forms,
 * each plain and ctx_ (on SHMEM_CTX_DEFAULT and on a created context), with
 * SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD; shmem_signal_fetch and
 * shmem_signal_wait_until.
 *
 * SET runs around a ring: each PE puts to its right neighbour with a signal,
 * then waits for its left neighbour's signal and checks the data that came
 * with it. ADD gathers on PE 0: every PE puts its slice with an added signal,
 * and PE 0 waits for the total. Signal values only grow, so no signal word is
 * ever reset. */
#include "shmemtest.h"

enum { N = 8, M = 4 };

/* [0] the ring's SET signal, [1] PE 0's ADD signal. */
static uint64_t *sig;
/* 2N elements for the ring, then M elements per PE for PE 0's gather. */
static unsigned char *heap;
static size_t heap_bytes;
/* The same on every PE: the last value set, the total added so far. */
static uint64_t ring_value, add_total;

#define NOCTX
#define CTXARG ctx,

/* Waits for the left neighbour's signal `value`. Between barriers a PE sets
 * two values; the left neighbour may set the second before this PE waits for
 * the first (it does not wait for this PE), hence `ahead`. */
static void ring_wait(uint64_t value, uint64_t ahead, const char *what) {
  uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_GE, value);
  CHECK(got >= value && got <= value + ahead, "%s: shmem_signal_wait_until(GE %llu) returned %llu", what,
        (unsigned long long)value, (unsigned long long)got);
  uint64_t fetched = shmem_signal_fetch(&sig[0]);
  CHECK(fetched >= got && fetched <= value + ahead, "%s: shmem_signal_fetch gave %llu after the wait returned %llu",
        what, (unsigned long long)fetched, (unsigned long long)got);
}

/* PE 0 waits until the ADD signal reaches the total (and not beyond). */
static void gather_wait(const char *what) {
  if (shmem_my_pe() != 0) return;
  uint64_t got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, add_total);
  CHECK(got == add_total, "%s: PE 0's added signal is %llu, expected %llu", what, (unsigned long long)got,
        (unsigned long long)add_total);
}

#define TYPED_BODY(NAME, TYPE, PFX, CTX, QUIET)                                                         \
  {                                                                                                     \
    TYPE *dst = (TYPE *)heap;                                                                           \
    TYPE src[N];                                                                                        \
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = st_right(), left = st_left();              \
    for (int i = 0; i < N; ++i) src[i] = (TYPE)st_value(me, (size_t)i, 3);                              \
    ++ring_value;                                                                                       \
    PFX##NAME##_put_signal(CTX dst, src, N, &sig[0], ring_value, SHMEM_SIGNAL_SET, right);              \
    ring_wait(ring_value, 1, #PFX #NAME "_put_signal SET");                                                \
    for (int i = 0; i < N; ++i)                                                                         \
      CHECK(dst[i] == (TYPE)st_value(left, (size_t)i, 3), "%s%s_put_signal: element %d is %Lg, expected %Lg", \
            #PFX, #NAME, i, (long double)dst[i], (long double)st_value(left, (size_t)i, 3));           \
    ++ring_value;                                                                                       \
    PFX##NAME##_put_signal_nbi(CTX dst + N, src, N, &sig[0], ring_value, SHMEM_SIGNAL_SET, right);      \
    QUIET;                                                                                              \
    ring_wait(ring_value, 0, #PFX #NAME "_put_signal_nbi SET");                                            \
    for (int i = 0; i < N; ++i)                                                                         \
      CHECK(dst[N + i] == (TYPE)st_value(left, (size_t)i, 3),                                           \
            "%s%s_put_signal_nbi: element %d is %Lg, expected %Lg", #PFX, #NAME, i,                    \
            (long double)dst[N + i], (long double)st_value(left, (size_t)i, 3));                       \
    shmem_barrier_all();                                                                                \
    /* ADD: every PE's slice to PE 0, blocking then non-blocking. */                                    \
    for (int round = 0; round < 2; ++round) {                                                           \
      add_total += (uint64_t)n * (uint64_t)(round + 1);                                                 \
      if (round == 0) {                                                                                 \
        PFX##NAME##_put_signal(CTX dst + 2 * N + me * M, src, M, &sig[1], 1, SHMEM_SIGNAL_ADD, 0);      \
      } else {                                                                                          \
        PFX##NAME##_put_signal_nbi(CTX dst + 2 * N + me * M, src + M, M, &sig[1], 2, SHMEM_SIGNAL_ADD, 0); \
        QUIET;                                                                                          \
      }                                                                                                 \
      gather_wait(#PFX #NAME "_put_signal ADD");                                                        \
      if (me == 0)                                                                                      \
        for (int pe = 0; pe < n; ++pe)                                                                  \
          for (int i = 0; i < M; ++i)                                                                   \
            CHECK(dst[2 * N + pe * M + i] == (TYPE)st_value(pe, (size_t)(round * M + i), 3),            \
                  "%s%s_put_signal%s ADD: PE %d's element %d is %Lg, expected %Lg", #PFX, #NAME,        \
                  round ? "_nbi" : "", pe, i, (long double)dst[2 * N + pe * M + i],                    \
                  (long double)st_value(pe, (size_t)(round * M + i), 3));                               \
      shmem_barrier_all();                                                                              \
    }                                                                                                   \
  }

#define TYPED_TESTS(NAME, TYPE)                                                                         \
  static void typed_##NAME(void) TYPED_BODY(NAME, TYPE, shmem_, NOCTX, shmem_quiet())                   \
  static void typed_ctx_##NAME(shmem_ctx_t ctx) TYPED_BODY(NAME, TYPE, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
MPF_SHMEM_RMA_TYPES(TYPED_TESTS)

#define RUN_TYPED(NAME, TYPE) typed_##NAME();
#define RUN_TYPED_CTX(NAME, TYPE) typed_ctx_##NAME(ctx);
static void typed(void) { MPF_SHMEM_RMA_TYPES(RUN_TYPED) }
static void typed_ctx(shmem_ctx_t ctx) { MPF_SHMEM_RMA_TYPES(RUN_TYPED_CTX) }

static void expect_bytes(const unsigned char *p, size_t n, uint64_t seed, const char *what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(p[i] == st_byte(seed, i), "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i], st_byte(seed, i));
}

/* The sized routines (BITS) and the mem routines (BITS 8, PUT putmem): the
 * ring with SET, the gather with ADD, each blocking and not. */
#define BYTES_BODY(PUT, BYTES, PFX, CTX, QUIET)                                                         \
  {                                                                                                     \
    unsigned char src[N * 16];                                                                          \
    const int me = shmem_my_pe(), n = shmem_n_pes(), right = st_right(), left = st_left();              \
    const uint64_t salt = 0x519000 + BYTES;                                                             \
    const char *name = #PFX #PUT "_signal";                                                             \
    st_fill(src, sizeof src, salt + (uint64_t)me);                                                      \
    ++ring_value;                                                                                       \
    PFX##PUT##_signal(CTX heap, src, N, &sig[0], ring_value, SHMEM_SIGNAL_SET, right);                  \
    ring_wait(ring_value, 1, name);                                                                        \
    expect_bytes(heap, N * BYTES, salt + (uint64_t)left, name);                                         \
    ++ring_value;                                                                                       \
    PFX##PUT##_signal_nbi(CTX heap + N * BYTES, src, N, &sig[0], ring_value, SHMEM_SIGNAL_SET, right);   \
    QUIET;                                                                                              \
    ring_wait(ring_value, 0, #PFX #PUT "_signal_nbi");                                                     \
    expect_bytes(heap + N * BYTES, N * BYTES, salt + (uint64_t)left, #PFX #PUT "_signal_nbi");          \
    shmem_barrier_all();                                                                                \
    add_total += (uint64_t)n * 5;                                                                       \
    PFX##PUT##_signal(CTX heap + 2 * N * 16 + (size_t)me * M * BYTES, src, M / 2, &sig[1], 2,             \
                      SHMEM_SIGNAL_ADD, 0);                                                             \
    PFX##PUT##_signal_nbi(CTX heap + 2 * N * 16 + (size_t)me * M * BYTES + M / 2 * BYTES, src + M / 2 * BYTES, \
                          M / 2, &sig[1], 3, SHMEM_SIGNAL_ADD, 0);                                      \
    QUIET;                                                                                              \
    gather_wait(name);                                                                                  \
    if (me == 0)                                                                                        \
      for (int pe = 0; pe < n; ++pe)                                                                    \
        expect_bytes(heap + 2 * N * 16 + (size_t)pe * M * BYTES, M * BYTES, salt + (uint64_t)pe, name);  \
    shmem_barrier_all();                                                                                \
  }

#define SIZED_TESTS(BITS, BYTES)                                                                        \
  static void sized_##BITS(void) BYTES_BODY(put##BITS, BYTES, shmem_, NOCTX, shmem_quiet())             \
  static void sized_ctx_##BITS(shmem_ctx_t ctx) BYTES_BODY(put##BITS, BYTES, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))
MPF_SHMEM_SIZES(SIZED_TESTS)
static void mem(void) BYTES_BODY(putmem, 1, shmem_, NOCTX, shmem_quiet())
static void mem_ctx(shmem_ctx_t ctx) BYTES_BODY(putmem, 1, shmem_ctx_, CTXARG, shmem_ctx_quiet(ctx))

#define RUN_SIZED(BITS, BYTES) sized_##BITS();
#define RUN_SIZED_CTX(BITS, BYTES) sized_ctx_##BITS(ctx);
static void sized(void) { MPF_SHMEM_SIZES(RUN_SIZED) }
static void sized_ctx(shmem_ctx_t ctx) { MPF_SHMEM_SIZES(RUN_SIZED_CTX) }

/* signal_wait_until's comparisons, and a signal that is not yet there. */
static void comparisons(void) {
  const int right = st_right();
  const uint64_t base = ring_value;
  CHECK(shmem_signal_fetch(&sig[0]) == base, "shmem_signal_fetch gave %llu, expected %llu",
        (unsigned long long)shmem_signal_fetch(&sig[0]), (unsigned long long)base);
  shmem_barrier_all();
  /* Each PE adds 10 to its right neighbour's ring signal, in two steps. */
  shmem_putmem_signal(heap, "a", 1, &sig[0], 4, SHMEM_SIGNAL_ADD, right);
  uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_NE, base);
  CHECK(got == base + 4 || got == base + 10, "signal_wait_until(NE %llu) returned %llu", (unsigned long long)base,
        (unsigned long long)got);
  shmem_putmem_signal(heap + 1, "b", 1, &sig[0], 6, SHMEM_SIGNAL_ADD, right);
  got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_GT, base + 9);
  CHECK(got == base + 10, "signal_wait_until(GT %llu) returned %llu", (unsigned long long)(base + 9),
        (unsigned long long)got);
  got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_GE, base + 10);
  CHECK(got == base + 10, "signal_wait_until(GE) returned %llu", (unsigned long long)got);
  got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_LE, base + 10);
  CHECK(got == base + 10, "signal_wait_until(LE) returned %llu", (unsigned long long)got);
  got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_LT, base + 11);
  CHECK(got == base + 10, "signal_wait_until(LT) returned %llu", (unsigned long long)got);
  got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, base + 10);
  CHECK(got == base + 10, "signal_wait_until(EQ) returned %llu", (unsigned long long)got);
  CHECK(heap[0] == 'a' && heap[1] == 'b', "the bytes put with the added signals are 0x%02x 0x%02x, expected 'a' 'b'",
        heap[0], heap[1]);
  ring_value = base + 10;
  shmem_barrier_all();
}

int main(void) {
  shmem_ctx_t ctx;
  shmem_init();
  const int n = shmem_n_pes();
  sig = shmem_calloc(2, sizeof(uint64_t));
  CHECK(sig != NULL, "shmem_calloc(2, 8) returned NULL");
  heap_bytes = (size_t)(2 * N + n * M) * 16;
  heap = shmem_calloc(heap_bytes, 1);
  CHECK(heap != NULL, "shmem_calloc(%zu, 1) returned NULL", heap_bytes);
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
  comparisons();
  shmem_ctx_destroy(ctx);
  shmem_free(heap);
  shmem_free(sig);
  st_done("signals");
  shmem_finalize();
  return 0;
}
