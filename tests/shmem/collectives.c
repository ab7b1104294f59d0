/* Collective routines (OpenSHMEM 1.5 chapter 9.9) on SHMEM_TEAM_WORLD and
 * on a team split from it (the even PEs): barrier_all, sync_all and
 * team_sync; broadcast (from a root other than PE 0; with 1.5's team
 * semantics the root's dest is written too), collect (a different nelems on
 * each PE), fcollect, alltoall and alltoalls (with strides) for every type of
 * the RMA table, and their mem forms; the and/or/xor, min/max and sum/prod
 * reductions for every type of their tables (complex sum and prod with
 * imaginary parts too), out of place and in place.
 *
 * Values are small integers, so every result is exact in every type, and
 * each team member's contribution depends on its number in the team. */
#include "shmemtest.h"

#include <complex.h>

enum { N = 8, NR = 5, BUF = 1 << 16 };

/* Symmetric scratch: collectives read `src` and write `dst`. */
static unsigned char *src_heap, *dst_heap;
static long *slots;

/* dst zero, then every member has reset its dst before anyone writes. */
static void prepare(shmem_team_t team) {
  memset(dst_heap, 0, BUF);
  CHECK_ZERO(shmem_team_sync(team));
}

static void expect_bytes(const unsigned char *p, size_t n, uint64_t seed, size_t first, const char *what) {
  for (size_t i = 0; i < n; ++i)
    CHECK(p[i] == st_byte(seed, first + i), "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i],
          st_byte(seed, first + i));
}

static void expect_zero(const unsigned char *p, size_t n, const char *what) {
  for (size_t i = 0; i < n; ++i) CHECK(p[i] == 0, "%s: byte %zu is 0x%02x, expected untouched 0", what, i, p[i]);
}

/* ---- Synchronization ------------------------------------------------------ */

/* Each member writes its slot on every member; after the barrier, every slot
 * is there. sync_all and team_sync do not complete puts: quiet first. */
static void barriers(shmem_team_t team, const char *team_name) {
  const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team);
  for (int round = 0; round < 3; ++round) {
    for (int j = 0; j < t; ++j) slots[j] = -1;
    CHECK_ZERO(shmem_team_sync(team));
    for (int j = 0; j < t; ++j)
      shmem_long_p(&slots[k], 100L * round + k, shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD));
    if (team == SHMEM_TEAM_WORLD && round == 0) {
      shmem_barrier_all();
    } else if (team == SHMEM_TEAM_WORLD && round == 1) {
      shmem_quiet();
      shmem_sync_all();
    } else {
      shmem_quiet();
      CHECK_ZERO(shmem_team_sync(team));
    }
    for (int j = 0; j < t; ++j)
      CHECK(slots[j] == 100L * round + j, "%s round %d: slot %d is %ld, expected %ld", team_name, round, j, slots[j],
            100L * round + j);
    CHECK_ZERO(shmem_team_sync(team));
  }
}

/* ---- Broadcast, collect, fcollect, alltoall, alltoalls, per type ---------- */

#define EXPECT_ELEM(NAME, OP, arr, idx, want)                                                        \
  CHECK((arr)[idx] == (want), "shmem_%s_%s on %s: element %d is %Lg, expected %Lg", #NAME, OP, team_name, \
        (int)(idx), (long double)(arr)[idx], (long double)(want))

#define DATA_TESTS(NAME, TYPE)                                                                       \
  static void data_##NAME(shmem_team_t team, const char *team_name) {                                \
    TYPE *src = (TYPE *)src_heap, *dst = (TYPE *)dst_heap;                                           \
    const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team), root = t - 1;                  \
    size_t total = 0;                                                                                \
    /* broadcast from the last member; every member's dest, the root's too. */                       \
    for (int i = 0; i < N; ++i) src[i] = (TYPE)st_value(k, (size_t)i, 5);                            \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_broadcast(team, dst, src, N, root));                                   \
    for (int i = 0; i < N; ++i) EXPECT_ELEM(NAME, "broadcast", dst, i, (TYPE)st_value(root, (size_t)i, 5)); \
    EXPECT_ELEM(NAME, "broadcast (past the end)", dst, N, (TYPE)0);                                  \
    /* collect: member j gives j % 3 + 1 elements. */                                                \
    for (int i = 0; i < 3; ++i) src[i] = (TYPE)st_value(k, (size_t)i, 6);                            \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_collect(team, dst, src, (size_t)(k % 3 + 1)));                         \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int i = 0; i < j % 3 + 1; ++i, ++total)                                                   \
        EXPECT_ELEM(NAME, "collect", dst, total, (TYPE)st_value(j, (size_t)i, 6));                   \
    EXPECT_ELEM(NAME, "collect (past the end)", dst, total, (TYPE)0);                                \
    /* fcollect: 3 elements each. */                                                                 \
    for (int i = 0; i < 3; ++i) src[i] = (TYPE)st_value(k, (size_t)i, 7);                            \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_fcollect(team, dst, src, 3));                                          \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int i = 0; i < 3; ++i) EXPECT_ELEM(NAME, "fcollect", dst, 3 * j + i, (TYPE)st_value(j, (size_t)i, 7)); \
    EXPECT_ELEM(NAME, "fcollect (past the end)", dst, 3 * t, (TYPE)0);                               \
    /* alltoall: 2 elements from each member to each member. */                                      \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int e = 0; e < 2; ++e) src[2 * j + e] = (TYPE)st_value(k, (size_t)(2 * j + e), 8);        \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_alltoall(team, dst, src, 2));                                          \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int e = 0; e < 2; ++e)                                                                    \
        EXPECT_ELEM(NAME, "alltoall", dst, 2 * j + e, (TYPE)st_value(j, (size_t)(2 * k + e), 8));    \
    EXPECT_ELEM(NAME, "alltoall (past the end)", dst, 2 * t, (TYPE)0);                               \
    /* alltoalls: source stride 3, dest stride 2. */                                                 \
    for (int j = 0; j < 3 * 2 * t; ++j) src[j] = (TYPE)0;                                            \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int e = 0; e < 2; ++e) src[3 * (2 * j + e)] = (TYPE)st_value(k, (size_t)(2 * j + e), 9);  \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_alltoalls(team, dst, src, 2, 3, 2));                                   \
    for (int j = 0; j < t; ++j)                                                                      \
      for (int e = 0; e < 2; ++e) {                                                                  \
        EXPECT_ELEM(NAME, "alltoalls", dst, 2 * (2 * j + e), (TYPE)st_value(j, (size_t)(2 * k + e), 9)); \
        EXPECT_ELEM(NAME, "alltoalls (between the strides)", dst, 2 * (2 * j + e) + 1, (TYPE)0);     \
      }                                                                                              \
  }
MPF_SHMEM_RMA_TYPES(DATA_TESTS)

#define RUN_DATA(NAME, TYPE) data_##NAME(team, team_name);
static void data_all_types(shmem_team_t team, const char *team_name) { MPF_SHMEM_RMA_TYPES(RUN_DATA) }

/* The mem forms move bytes; member k's bytes come from seed 0xc011 + k. */
static void data_mem(shmem_team_t team, const char *team_name) {
  const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team), root = t / 2;
  const uint64_t seed = 0xc01100 + (uint64_t)k;
  char what[96];
  size_t total = 0;
  st_fill(src_heap, 100, seed);
  prepare(team);
  CHECK_ZERO(shmem_broadcastmem(team, dst_heap, src_heap, 37, root));
  snprintf(what, sizeof what, "shmem_broadcastmem on %s", team_name);
  expect_bytes(dst_heap, 37, 0xc01100 + (uint64_t)root, 0, what);
  expect_zero(dst_heap + 37, 1, what);
  prepare(team);
  CHECK_ZERO(shmem_collectmem(team, dst_heap, src_heap, (size_t)(k % 4 + 1) * 5));
  snprintf(what, sizeof what, "shmem_collectmem on %s", team_name);
  for (int j = 0; j < t; ++j) {
    size_t bytes = (size_t)(j % 4 + 1) * 5;
    expect_bytes(dst_heap + total, bytes, 0xc01100 + (uint64_t)j, 0, what);
    total += bytes;
  }
  expect_zero(dst_heap + total, 1, what);
  prepare(team);
  CHECK_ZERO(shmem_fcollectmem(team, dst_heap, src_heap, 11));
  snprintf(what, sizeof what, "shmem_fcollectmem on %s", team_name);
  for (int j = 0; j < t; ++j) expect_bytes(dst_heap + 11 * j, 11, 0xc01100 + (uint64_t)j, 0, what);
  expect_zero(dst_heap + 11 * t, 1, what);
  /* alltoallmem: the 7 bytes for member j start at 7 j in the source. */
  st_fill(src_heap, (size_t)7 * t, seed);
  prepare(team);
  CHECK_ZERO(shmem_alltoallmem(team, dst_heap, src_heap, 7));
  snprintf(what, sizeof what, "shmem_alltoallmem on %s", team_name);
  for (int j = 0; j < t; ++j) expect_bytes(dst_heap + 7 * j, 7, 0xc01100 + (uint64_t)j, (size_t)7 * k, what);
  expect_zero(dst_heap + 7 * t, 1, what);
  /* alltoallsmem: bytes at source stride 2, dest stride 3, 2 per member. */
  memset(src_heap, 0, (size_t)4 * t);
  for (int j = 0; j < t; ++j)
    for (int e = 0; e < 2; ++e) src_heap[2 * (2 * j + e)] = st_byte(seed, (size_t)(2 * j + e));
  prepare(team);
  CHECK_ZERO(shmem_alltoallsmem(team, dst_heap, src_heap, 3, 2, 2));
  for (int j = 0; j < t; ++j)
    for (int e = 0; e < 2; ++e) {
      unsigned char want = st_byte(0xc01100 + (uint64_t)j, (size_t)(2 * k + e));
      unsigned char got = dst_heap[3 * (2 * j + e)];
      CHECK(got == want, "shmem_alltoallsmem on %s: byte %d from member %d is 0x%02x, expected 0x%02x", team_name, e, j,
            got, want);
      CHECK(dst_heap[3 * (2 * j + e) + 1] == 0 && dst_heap[3 * (2 * j + e) + 2] == 0,
            "shmem_alltoallsmem on %s wrote between the dest strides", team_name);
    }
}

/* ---- Reductions ------------------------------------------------------------ */

/* Member k's element i for each operation: the results stay small. */
static int v_and(int k, int i) { return 0x7f & ~(1 << (((k + i) % 7 + 7) % 7)); }
static int v_or(int k, int i) { return 1 << (((k + i) % 7 + 7) % 7); }
static int v_xor(int k, int i) { return (k * 37 + i * 11) & 0x7f; }
static int v_minmax(int k, int i) { return (k * 7 + i * 5) % 50 + 1; }
static int v_sum(int k, int i) { return k < 16 ? (k + i) % 4 + 1 : 0; }
static int v_prod(int k, int i) { return (k < 6 && (k + i) % 3 == 0) ? 2 : 1; }

/* Out of place, then in place (dest == source), against `want` computed
 * here over every member's values. */
#define REDUCE_CHECK(NAME, TYPE, OP, VALUE, COMBINE)                                                 \
  {                                                                                                  \
    TYPE *src = (TYPE *)src_heap, *dst = (TYPE *)dst_heap;                                           \
    TYPE want[NR];                                                                                   \
    for (int i = 0; i < NR; ++i) {                                                                   \
      want[i] = (TYPE)VALUE(0, i);                                                                   \
      for (int j = 1; j < t; ++j) {                                                                  \
        TYPE x = (TYPE)VALUE(j, i);                                                                  \
        want[i] = COMBINE(want[i], x);                                                               \
      }                                                                                              \
      src[i] = (TYPE)VALUE(k, i);                                                                    \
    }                                                                                                \
    for (int in_place = 0; in_place < 2; ++in_place) {                                               \
      TYPE *from = in_place ? dst : src;                                                             \
      prepare(team);                                                                                 \
      if (in_place)                                                                                  \
        for (int i = 0; i < NR; ++i) dst[i] = (TYPE)VALUE(k, i);                                     \
      CHECK_ZERO(shmem_##NAME##_##OP##_reduce(team, dst, from, NR));                                 \
      for (int i = 0; i < NR; ++i)                                                                   \
        CHECK(dst[i] == want[i], "shmem_%s_%s_reduce on %s%s: element %d is %Lg, expected %Lg", #NAME, #OP, \
              team_name, in_place ? " (in place)" : "", i, (long double)dst[i], (long double)want[i]); \
      CHECK(dst[NR] == (TYPE)0, "shmem_%s_%s_reduce on %s wrote past nreduce", #NAME, #OP, team_name); \
    }                                                                                                \
  }

#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))
#define SUM(a, b) ((a) + (b))
#define PROD(a, b) ((a) * (b))

#define BITWISE_REDUCE_TESTS(NAME, TYPE)                                      \
  static void bitwise_##NAME(shmem_team_t team, const char *team_name) {     \
    const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team);         \
    REDUCE_CHECK(NAME, TYPE, and, v_and, AND)                                 \
    REDUCE_CHECK(NAME, TYPE, or, v_or, OR)                                    \
    REDUCE_CHECK(NAME, TYPE, xor, v_xor, XOR)                                 \
  }
#define MINMAX_REDUCE_TESTS(NAME, TYPE)                                       \
  static void minmax_##NAME(shmem_team_t team, const char *team_name) {      \
    const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team);         \
    REDUCE_CHECK(NAME, TYPE, min, v_minmax, MIN)                              \
    REDUCE_CHECK(NAME, TYPE, max, v_minmax, MAX)                              \
  }
#define ARITH_REDUCE_TESTS(NAME, TYPE)                                        \
  static void arith_##NAME(shmem_team_t team, const char *team_name) {       \
    const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team);         \
    REDUCE_CHECK(NAME, TYPE, sum, v_sum, SUM)                                 \
    REDUCE_CHECK(NAME, TYPE, prod, v_prod, PROD)                              \
  }
MPF_SHMEM_BITWISE_REDUCE_TYPES(BITWISE_REDUCE_TESTS)
MPF_SHMEM_MINMAX_REDUCE_TYPES(MINMAX_REDUCE_TESTS)
MPF_SHMEM_ARITH_REDUCE_TYPES(ARITH_REDUCE_TESTS)

#define RUN_BITWISE(NAME, TYPE) bitwise_##NAME(team, team_name);
#define RUN_MINMAX(NAME, TYPE) minmax_##NAME(team, team_name);
#define RUN_ARITH(NAME, TYPE) arith_##NAME(team, team_name);
static void reduce_all_types(shmem_team_t team, const char *team_name) {
  MPF_SHMEM_BITWISE_REDUCE_TYPES(RUN_BITWISE)
  MPF_SHMEM_MINMAX_REDUCE_TYPES(RUN_MINMAX)
  MPF_SHMEM_ARITH_REDUCE_TYPES(RUN_ARITH)
}

/* Complex values with imaginary parts: sums of (k + 1) + (k + i) I, and
 * products of factors 1 and I (exact: powers of I). */
#define COMPLEX_TESTS(NAME, TYPE, REAL, FMT)                                                         \
  static void complex_##NAME(shmem_team_t team, const char *team_name) {                             \
    const int t = shmem_team_n_pes(team), k = shmem_team_my_pe(team);                                \
    TYPE *src = (TYPE *)src_heap, *dst = (TYPE *)dst_heap;                                           \
    TYPE sum[NR], prod[NR];                                                                          \
    for (int i = 0; i < NR; ++i) {                                                                   \
      sum[i] = 0;                                                                                    \
      prod[i] = 1;                                                                                   \
      for (int j = 0; j < t; ++j) {                                                                  \
        sum[i] += (REAL)(j + 1) + (REAL)(j + i) * I;                                                 \
        prod[i] *= (j + i) % 2 ? (TYPE)I : (TYPE)1;                                                  \
      }                                                                                              \
    }                                                                                                \
    for (int i = 0; i < NR; ++i) src[i] = (REAL)(k + 1) + (REAL)(k + i) * I;                         \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_sum_reduce(team, dst, src, NR));                                       \
    for (int i = 0; i < NR; ++i)                                                                     \
      CHECK(dst[i] == sum[i], "shmem_%s_sum_reduce on %s: element %d is " FMT "+" FMT "i, expected " FMT "+" FMT "i", \
            #NAME, team_name, i, creal(dst[i]), cimag(dst[i]), creal(sum[i]), cimag(sum[i]));         \
    for (int i = 0; i < NR; ++i) src[i] = (k + i) % 2 ? (TYPE)I : (TYPE)1;                           \
    prepare(team);                                                                                   \
    CHECK_ZERO(shmem_##NAME##_prod_reduce(team, dst, src, NR));                                      \
    for (int i = 0; i < NR; ++i)                                                                     \
      CHECK(dst[i] == prod[i], "shmem_%s_prod_reduce on %s: element %d is " FMT "+" FMT "i, expected " FMT "+" FMT "i", \
            #NAME, team_name, i, creal(dst[i]), cimag(dst[i]), creal(prod[i]), cimag(prod[i]));      \
    for (int i = 0; i < NR; ++i) dst[i] = (REAL)(k + 1) + (REAL)(k + i) * I;                         \
    CHECK_ZERO(shmem_team_sync(team));                                                               \
    CHECK_ZERO(shmem_##NAME##_sum_reduce(team, dst, dst, NR));                                       \
    for (int i = 0; i < NR; ++i)                                                                     \
      CHECK(dst[i] == sum[i], "shmem_%s_sum_reduce in place on %s: element %d is " FMT "+" FMT "i", #NAME, \
            team_name, i, creal(dst[i]), cimag(dst[i]));                                             \
  }
COMPLEX_TESTS(complexf, float _Complex, float, "%g")
COMPLEX_TESTS(complexd, double _Complex, double, "%g")

static void all_collectives(shmem_team_t team, const char *team_name) {
  barriers(team, team_name);
  data_all_types(team, team_name);
  data_mem(team, team_name);
  reduce_all_types(team, team_name);
  complex_complexf(team, team_name);
  complex_complexd(team, team_name);
  CHECK_ZERO(shmem_team_sync(team));
}

int main(void) {
  shmem_team_t evens;
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  src_heap = shmem_malloc(BUF);
  dst_heap = shmem_malloc(BUF);
  slots = shmem_malloc((size_t)n * sizeof(long));
  CHECK(src_heap != NULL && dst_heap != NULL && slots != NULL, "shmem_malloc returned NULL");
  all_collectives(SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD");
  CHECK_ZERO(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens));
  if (me % 2 == 0) {
    CHECK(evens != SHMEM_TEAM_INVALID, "the team of even PEs is SHMEM_TEAM_INVALID on even PE %d", me);
    all_collectives(evens, "the team of even PEs");
  } else {
    CHECK(evens == SHMEM_TEAM_INVALID, "the team of even PEs is valid on odd PE %d", me);
  }
  shmem_barrier_all();
  if (evens != SHMEM_TEAM_INVALID) shmem_team_destroy(evens);
  /* The world again after the split team's traffic. */
  barriers(SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD");
  shmem_free(slots);
  shmem_free(dst_heap);
  shmem_free(src_heap);
  st_done("collectives");
  shmem_finalize();
  return 0;
}
