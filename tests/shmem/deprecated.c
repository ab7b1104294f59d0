/* The deprecated interfaces that ported programs still call (OpenSHMEM 1.5
 * annex and the deprecated sections of chapter 9): start_pes (no
 * shmem_finalize: the library finalizes at exit), _my_pe and _num_pes;
 * shmalloc, shfree, shrealloc and shmemalign; the active-set collectives over
 * PE_start/logPE_stride/PE_size subsets (all PEs, the even PEs, the odd PEs,
 * every fourth PE): shmem_barrier, shmem_sync, broadcast32/64 (the root's dest
 * is left alone, the old semantics), collect32/64, fcollect32/64,
 * alltoall32/64, alltoalls32/64 and the *_to_all reductions for every type of
 * their tables, with pWrk and pSync arrays sized and initialised as the
 * standard says; the old AMO names and waits for every type of their tables;
 * and the cache routines. */
#include "shmemtest.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

enum { NR = 5, MAXN = 1024 };
#define WRK (NR / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? NR / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE)

/* Work arrays: symmetric, initialised to SHMEM_SYNC_VALUE before use, and
 * reused only after a barrier_all. The 32-bit routines use [0], the 64-bit
 * ones [1], since each pair runs back to back. */
static long psync_barrier[SHMEM_BARRIER_SYNC_SIZE];
static long psync_bcast[2][SHMEM_BCAST_SYNC_SIZE];
static long psync_collect[2][SHMEM_COLLECT_SYNC_SIZE];
static long psync_reduce[SHMEM_REDUCE_SYNC_SIZE];
static long psync_alltoall[2][SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_alltoalls[2][SHMEM_ALLTOALLS_SYNC_SIZE];

/* Data for the 32- and 64-bit collectives. */
static uint32_t src32[8 * MAXN], dst32[8 * MAXN];
static uint64_t src64[8 * MAXN], dst64[8 * MAXN];
static long slots[MAXN];

struct active_set {
  int start, log_stride, size;
  const char *name;
};

static int member_index(const struct active_set *s, int pe) {
  const int stride = 1 << s->log_stride;
  if (pe < s->start || (pe - s->start) % stride != 0 || (pe - s->start) / stride >= s->size) return -1;
  return (pe - s->start) / stride;
}

static int member_pe(const struct active_set *s, int i) { return s->start + (i << s->log_stride); }

static void init_psync(void) {
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) psync_barrier[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync_reduce[i] = SHMEM_SYNC_VALUE;
  for (int w = 0; w < 2; ++w) {
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) psync_bcast[w][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_COLLECT_SYNC_SIZE; ++i) psync_collect[w][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; ++i) psync_alltoall[w][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_ALLTOALLS_SYNC_SIZE; ++i) psync_alltoalls[w][i] = SHMEM_SYNC_VALUE;
  }
  shmem_barrier_all();
}

static void setup_and_memory(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK_EQ(_my_pe(), me, "_my_pe()");
  CHECK_EQ(_num_pes(), n, "_num_pes()");
  start_pes(0); /* a second call has no effect */
  CHECK_EQ(_num_pes(), n, "_num_pes() after a second start_pes");
  unsigned char *p = shmalloc(100);
  CHECK(p != NULL, "shmalloc(100) returned NULL");
  st_fill(p, 100, 0xde9000 + (uint64_t)me);
  unsigned char *q = shmemalign(256, 64);
  CHECK(q != NULL && (uintptr_t)q % 256 == 0, "shmemalign(256, 64) returned %p", (void *)q);
  unsigned char *r = shrealloc(p, 10000);
  CHECK(r != NULL, "shrealloc(100 -> 10000) returned NULL");
  st_verify(r, 100, 0xde9000 + (uint64_t)me, "the first 100 bytes after shrealloc");
  shmem_putmem(r + 9000, "deprecated", 10, st_right());
  shmem_putmem(q, "aligned", 7, st_right());
  shmem_barrier_all();
  CHECK(memcmp(r + 9000, "deprecated", 10) == 0, "a put into a shrealloc'ed block did not land");
  CHECK(memcmp(q, "aligned", 7) == 0, "a put into a shmemalign'ed block did not land");
  shmem_barrier_all();
  shfree(q);
  shfree(r);
  /* The cache routines exist and do nothing harmful. */
  shmem_clear_cache_inv();
  shmem_set_cache_inv();
  shmem_clear_cache_line_inv(slots);
  shmem_set_cache_line_inv(slots);
  shmem_udcflush();
  shmem_udcflush_line(slots);
}

/* Members write their slot on every member; shmem_barrier completes the
 * puts, shmem_sync after a quiet. */
static void barriers(const struct active_set *s) {
  const int me = shmem_my_pe(), k = member_index(s, me);
  for (int use_sync = 0; use_sync < 2; ++use_sync) {
    if (k >= 0) {
      for (int j = 0; j < s->size; ++j) slots[j] = -1;
      shmem_barrier(s->start, s->log_stride, s->size, psync_barrier);
      for (int j = 0; j < s->size; ++j) shmem_long_p(&slots[k], 10L * k + use_sync, member_pe(s, j));
      if (use_sync) {
        shmem_quiet();
        shmem_sync(s->start, s->log_stride, s->size, psync_barrier);
      } else {
        shmem_barrier(s->start, s->log_stride, s->size, psync_barrier);
      }
      for (int j = 0; j < s->size; ++j)
        CHECK(slots[j] == 10L * j + use_sync, "%s on %s: slot %d is %ld, expected %ld",
              use_sync ? "shmem_sync" : "shmem_barrier", s->name, j, slots[j], 10L * j + use_sync);
    }
    shmem_barrier_all();
  }
}

static void clear_dst(void) {
  memset(dst32, 0, sizeof dst32);
  memset(dst64, 0, sizeof dst64);
  shmem_barrier_all();
}

/* Element i of member k's source for operation `op`. */
static uint64_t datum(int k, int i, int op) { return ((uint64_t)op << 40) ^ ((uint64_t)(k + 1) << 20) ^ (uint64_t)(i + 1); }

#define EXPECT32_64(idx, want, what)                                                                         \
  do {                                                                                                       \
    CHECK(dst32[idx] == (uint32_t)(want), "%s32 on %s: element %d is 0x%x, expected 0x%x", what, s->name,   \
          (int)(idx), dst32[idx], (uint32_t)(want));                                                         \
    CHECK(dst64[idx] == (uint64_t)(want), "%s64 on %s: element %d is 0x%llx, expected 0x%llx", what, s->name, \
          (int)(idx), (unsigned long long)dst64[idx], (unsigned long long)(want));                           \
  } while (0)

static void fill(int k, int count, int op, int stride) {
  for (int i = 0; i < count; ++i) {
    src32[i * stride] = (uint32_t)datum(k, i, op);
    src64[i * stride] = datum(k, i, op);
  }
}

static void data_collectives(const struct active_set *s) {
  const int me = shmem_my_pe(), k = member_index(s, me), t = s->size;
  const int root = t - 1;
  /* broadcast: the root's dest stays as it was. */
  fill(k, 6, 1, 1);
  clear_dst();
  if (k >= 0) {
    shmem_broadcast32(dst32, src32, 6, root, s->start, s->log_stride, s->size, psync_bcast[0]);
    shmem_broadcast64(dst64, src64, 6, root, s->start, s->log_stride, s->size, psync_bcast[1]);
    for (int i = 0; i < 7; ++i) {
      uint64_t want = (k == root || i == 6) ? 0 : datum(root, i, 1);
      EXPECT32_64(i, want, k == root ? "shmem_broadcast (the root's own dest)" : "shmem_broadcast");
    }
  }
  /* collect: member j gives j % 3 + 1 elements. */
  fill(k, 3, 2, 1);
  clear_dst();
  if (k >= 0) {
    shmem_collect32(dst32, src32, (size_t)(k % 3 + 1), s->start, s->log_stride, s->size, psync_collect[0]);
    shmem_collect64(dst64, src64, (size_t)(k % 3 + 1), s->start, s->log_stride, s->size, psync_collect[1]);
    int at = 0;
    for (int j = 0; j < t; ++j)
      for (int i = 0; i < j % 3 + 1; ++i, ++at) EXPECT32_64(at, datum(j, i, 2), "shmem_collect");
    EXPECT32_64(at, 0, "shmem_collect (past the end)");
  }
  /* fcollect: 3 each. */
  fill(k, 3, 3, 1);
  clear_dst();
  if (k >= 0) {
    shmem_fcollect32(dst32, src32, 3, s->start, s->log_stride, s->size, psync_collect[0]);
    shmem_fcollect64(dst64, src64, 3, s->start, s->log_stride, s->size, psync_collect[1]);
    for (int j = 0; j < t; ++j)
      for (int i = 0; i < 3; ++i) EXPECT32_64(3 * j + i, datum(j, i, 3), "shmem_fcollect");
    EXPECT32_64(3 * t, 0, "shmem_fcollect (past the end)");
  }
  /* alltoall: 2 elements to each member; element i of the block for member j is datum(k, 2j + i). */
  fill(k, 2 * t, 4, 1);
  clear_dst();
  if (k >= 0) {
    shmem_alltoall32(dst32, src32, 2, s->start, s->log_stride, s->size, psync_alltoall[0]);
    shmem_alltoall64(dst64, src64, 2, s->start, s->log_stride, s->size, psync_alltoall[1]);
    for (int j = 0; j < t; ++j)
      for (int i = 0; i < 2; ++i) EXPECT32_64(2 * j + i, datum(j, 2 * k + i, 4), "shmem_alltoall");
    EXPECT32_64(2 * t, 0, "shmem_alltoall (past the end)");
  }
  /* alltoalls: source stride 3, dest stride 2. */
  memset(src32, 0, sizeof src32);
  memset(src64, 0, sizeof src64);
  fill(k, 2 * t, 5, 3);
  clear_dst();
  if (k >= 0) {
    shmem_alltoalls32(dst32, src32, 2, 3, 2, s->start, s->log_stride, s->size, psync_alltoalls[0]);
    shmem_alltoalls64(dst64, src64, 2, 3, 2, s->start, s->log_stride, s->size, psync_alltoalls[1]);
    for (int j = 0; j < t; ++j)
      for (int i = 0; i < 2; ++i) {
        EXPECT32_64(2 * (2 * j + i), datum(j, 2 * k + i, 5), "shmem_alltoalls");
        EXPECT32_64(2 * (2 * j + i) + 1, 0, "shmem_alltoalls (between the strides)");
      }
  }
  shmem_barrier_all();
}

/* ---- *_to_all reductions ---------------------------------------------------- */

static int v_and(int k, int i) { return 0x7f & ~(1 << (((k + i) % 7 + 7) % 7)); }
static int v_or(int k, int i) { return 1 << (((k + i) % 7 + 7) % 7); }
static int v_xor(int k, int i) { return (k * 37 + i * 11) & 0x7f; }
static int v_minmax(int k, int i) { return (k * 7 + i * 5) % 50 + 1; }
static int v_sum(int k, int i) { return k < 16 ? (k + i) % 4 + 1 : 0; }
static int v_prod(int k, int i) { return (k < 6 && (k + i) % 3 == 0) ? 2 : 1; }

#define AND(a, b) ((a) & (b))
#define OR(a, b) ((a) | (b))
#define XOR(a, b) ((a) ^ (b))
#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))
#define SUM(a, b) ((a) + (b))
#define PROD(a, b) ((a) * (b))

/* Out of place, then in place; the non-members only take part in the barriers. */
#define TO_ALL_CHECK(NAME, TYPE, OP, VALUE, COMBINE)                                                          \
  {                                                                                                           \
    static TYPE src[NR], dst[NR + 1], pwrk[WRK];                                                              \
    TYPE want[NR];                                                                                            \
    for (int in_place = 0; in_place < 2; ++in_place) {                                                        \
      TYPE *from = in_place ? dst : src;                                                                      \
      for (int i = 0; i < NR; ++i) {                                                                          \
        want[i] = (TYPE)VALUE(0, i);                                                                          \
        for (int j = 1; j < s->size; ++j) {                                                                   \
          TYPE x = (TYPE)VALUE(j, i);                                                                         \
          want[i] = COMBINE(want[i], x);                                                                      \
        }                                                                                                     \
        src[i] = (TYPE)VALUE(k, i);                                                                           \
        dst[i] = in_place ? src[i] : (TYPE)0;                                                                 \
      }                                                                                                       \
      dst[NR] = (TYPE)0;                                                                                      \
      shmem_barrier_all();                                                                                    \
      if (k >= 0) {                                                                                           \
        shmem_##NAME##_##OP##_to_all(dst, from, NR, s->start, s->log_stride, s->size, pwrk, psync_reduce);    \
        for (int i = 0; i < NR; ++i)                                                                          \
          CHECK(dst[i] == want[i], "shmem_%s_%s_to_all on %s%s: element %d is %Lg, expected %Lg", #NAME, #OP,  \
                s->name, in_place ? " (in place)" : "", i, (long double)dst[i], (long double)want[i]);        \
        CHECK(dst[NR] == (TYPE)0, "shmem_%s_%s_to_all on %s wrote past nreduce", #NAME, #OP, s->name);        \
      }                                                                                                       \
      shmem_barrier_all();                                                                                    \
    }                                                                                                         \
  }

#define TO_ALL_BITWISE(NAME, TYPE)                                                                            \
  static void to_all_bitwise_##NAME(const struct active_set *s) {                                            \
    const int k = member_index(s, shmem_my_pe());                                                             \
    TO_ALL_CHECK(NAME, TYPE, and, v_and, AND)                                                                 \
    TO_ALL_CHECK(NAME, TYPE, or, v_or, OR)                                                                    \
    TO_ALL_CHECK(NAME, TYPE, xor, v_xor, XOR)                                                                 \
  }
#define TO_ALL_MINMAX(NAME, TYPE)                                                                             \
  static void to_all_minmax_##NAME(const struct active_set *s) {                                             \
    const int k = member_index(s, shmem_my_pe());                                                             \
    TO_ALL_CHECK(NAME, TYPE, min, v_minmax, MIN)                                                              \
    TO_ALL_CHECK(NAME, TYPE, max, v_minmax, MAX)                                                              \
  }
#define TO_ALL_ARITH(NAME, TYPE)                                                                              \
  static void to_all_arith_##NAME(const struct active_set *s) {                                              \
    const int k = member_index(s, shmem_my_pe());                                                             \
    TO_ALL_CHECK(NAME, TYPE, sum, v_sum, SUM)                                                                 \
    TO_ALL_CHECK(NAME, TYPE, prod, v_prod, PROD)                                                              \
  }
MPF_SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_BITWISE)
MPF_SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_MINMAX)
MPF_SHMEM_TO_ALL_ARITH_TYPES(TO_ALL_ARITH)

#define RUN_BITWISE(NAME, TYPE) to_all_bitwise_##NAME(s);
#define RUN_MINMAX(NAME, TYPE) to_all_minmax_##NAME(s);
#define RUN_ARITH(NAME, TYPE) to_all_arith_##NAME(s);
static void reductions(const struct active_set *s) {
  MPF_SHMEM_TO_ALL_BITWISE_TYPES(RUN_BITWISE)
  MPF_SHMEM_TO_ALL_MINMAX_TYPES(RUN_MINMAX)
  MPF_SHMEM_TO_ALL_ARITH_TYPES(RUN_ARITH)
}

/* ---- Old AMO names and waits -------------------------------------------------- */

/* On the right neighbour's word: set, fetch, swap, then for the integer types
 * cswap, fadd, finc, add, inc; the owner checks the result. */
static void *amo_heap;

#define OLD_EXTENDED_TESTS(NAME, TYPE)                                                                        \
  static void old_extended_##NAME(void) {                                                                     \
    TYPE *w = (TYPE *)amo_heap;                                                                               \
    const int right = st_right();                                                                             \
    *w = (TYPE)0;                                                                                             \
    shmem_barrier_all();                                                                                      \
    shmem_##NAME##_set(w, (TYPE)12, right);                                                                   \
    shmem_quiet();                                                                                            \
    TYPE f = shmem_##NAME##_fetch(w, right);                                                                  \
    CHECK(f == (TYPE)12, "shmem_%s_fetch after shmem_%s_set(12) gave %Lg", #NAME, #NAME, (long double)f);     \
    f = shmem_##NAME##_swap(w, (TYPE)34, right);                                                              \
    CHECK(f == (TYPE)12, "shmem_%s_swap returned %Lg, expected 12", #NAME, (long double)f);                   \
    shmem_barrier_all();                                                                                      \
    CHECK(*w == (TYPE)34, "my word is %Lg after my left neighbour's shmem_%s_swap(34)", (long double)*w, #NAME); \
    shmem_barrier_all();                                                                                      \
  }
#define OLD_AMO_TESTS(NAME, TYPE)                                                                             \
  static void old_amo_##NAME(void) {                                                                          \
    TYPE *w = (TYPE *)amo_heap;                                                                               \
    const int right = st_right();                                                                             \
    *w = (TYPE)3;                                                                                             \
    shmem_barrier_all();                                                                                      \
    TYPE f = shmem_##NAME##_cswap(w, (TYPE)2, (TYPE)9, right);                                                \
    CHECK(f == (TYPE)3, "shmem_%s_cswap (not equal) returned %lld, expected 3", #NAME, (long long)f);        \
    f = shmem_##NAME##_cswap(w, (TYPE)3, (TYPE)9, right);                                                     \
    CHECK(f == (TYPE)3, "shmem_%s_cswap (equal) returned %lld, expected 3", #NAME, (long long)f);            \
    f = shmem_##NAME##_fadd(w, (TYPE)5, right);                                                               \
    CHECK(f == (TYPE)9, "shmem_%s_fadd returned %lld, expected 9", #NAME, (long long)f);                     \
    f = shmem_##NAME##_finc(w, right);                                                                        \
    CHECK(f == (TYPE)14, "shmem_%s_finc returned %lld, expected 14", #NAME, (long long)f);                   \
    shmem_##NAME##_add(w, (TYPE)10, right);                                                                   \
    shmem_##NAME##_inc(w, right);                                                                             \
    shmem_barrier_all();                                                                                      \
    CHECK(*w == (TYPE)26, "my word is %lld after my left neighbour's old AMOs, expected 26", (long long)*w);  \
    shmem_barrier_all();                                                                                      \
  }
#define OLD_WAIT_TESTS(NAME, TYPE)                                                                            \
  static void old_wait_##NAME(void) {                                                                         \
    TYPE *w = (TYPE *)amo_heap;                                                                               \
    *w = (TYPE)1;                                                                                             \
    shmem_barrier_all();                                                                                      \
    shmem_##NAME##_p(w, (TYPE)2, st_right());                                                                 \
    shmem_##NAME##_wait(w, (TYPE)1);                                                                          \
    CHECK(*w == (TYPE)2, "shmem_%s_wait(1) returned with my word %lld, expected 2", #NAME, (long long)*w);   \
    shmem_barrier_all();                                                                                      \
  }
MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(OLD_EXTENDED_TESTS)
MPF_SHMEM_OLD_AMO_TYPES(OLD_AMO_TESTS)
MPF_SHMEM_OLD_WAIT_TYPES(OLD_WAIT_TESTS)

#define RUN_OLD_EXTENDED(NAME, TYPE) old_extended_##NAME();
#define RUN_OLD_AMO(NAME, TYPE) old_amo_##NAME();
#define RUN_OLD_WAIT(NAME, TYPE) old_wait_##NAME();
static void old_names(void) {
  amo_heap = shmalloc(16);
  CHECK(amo_heap != NULL, "shmalloc(16) returned NULL");
  MPF_SHMEM_OLD_EXTENDED_AMO_TYPES(RUN_OLD_EXTENDED)
  MPF_SHMEM_OLD_AMO_TYPES(RUN_OLD_AMO)
  MPF_SHMEM_OLD_WAIT_TYPES(RUN_OLD_WAIT)
  shfree(amo_heap);
}

int main(void) {
  start_pes(0);
  const int n = shmem_n_pes();
  CHECK(n <= MAXN, "deprecated runs with at most %d PEs, not %d", MAXN, n);
  struct active_set sets[4] = {
      {0, 0, n, "all PEs"},
      {0, 1, (n + 1) / 2, "the even PEs"},
      {1, 1, n / 2, "the odd PEs"},
      {0, 2, (n + 3) / 4, "every fourth PE"},
  };
  init_psync();
  setup_and_memory();
  for (int i = 0; i < 4; ++i) {
    if (sets[i].size < 1) continue;
    barriers(&sets[i]);
    data_collectives(&sets[i]);
    reductions(&sets[i]);
  }
  old_names();
  st_done("deprecated");
  return 0; /* no shmem_finalize: start_pes finalizes at exit */
}
