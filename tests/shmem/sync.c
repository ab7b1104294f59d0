/* Point-to-point synchronization (OpenSHMEM 1.5 chapter 9.10), for every
 * type of the synchronization table: wait_until and test with each
 * comparison (EQ NE GT GE LT LE); wait_until_all/any/some, test_all/any/some
 * and their _vector forms, with status masks that exclude elements (an
 * excluded element that satisfies the condition must be ignored, one that
 * never does must not be waited for) and with empty wait sets; the
 * deprecated shmem_long_wait and shmem_wait; and a chain around the ring in
 * which each PE waits for its left neighbour to write its flag.
 *
 * The left neighbour writes this PE's variables; between a PE's checks that
 * nothing is satisfied yet and its neighbour's writes there is a barrier. */
#include "shmemtest.h"

enum { K = 6 };

/* [0] one variable; [1 .. K] an array of K; 8 bytes each. */
static void *heap;
static long chain_flag;

static const struct {
  int cmp, before, after, value;
  const char *name;
} cases[] = {
    {SHMEM_CMP_EQ, 0, 7, 7, "EQ"}, {SHMEM_CMP_NE, 0, 7, 0, "NE"},  {SHMEM_CMP_GT, 0, 7, 5, "GT"},
    {SHMEM_CMP_GE, 0, 7, 7, "GE"}, {SHMEM_CMP_LT, 50, 7, 10, "LT"}, {SHMEM_CMP_LE, 50, 7, 7, "LE"},
};

/* Elements 1 and 4 are excluded. */
static const int status[K] = {0, 1, 0, 0, 1, 0};
static const int none[K] = {1, 1, 1, 1, 1, 1};

/* Marks the indices a some-routine returned; each must be one of `want`
 * (a bit mask) and appear once per call. Returns the updated mask. */
static unsigned mark_indices(const size_t *idx, size_t count, unsigned want, unsigned seen, const char *what) {
  unsigned this_call = 0;
  CHECK(count <= K, "%s returned %zu indices for %d elements", what, count, K);
  for (size_t j = 0; j < count; ++j) {
    CHECK(idx[j] < K && (want >> idx[j] & 1u), "%s returned index %zu, expected one of mask 0x%x", what, idx[j], want);
    CHECK(!(this_call >> idx[j] & 1u), "%s returned index %zu twice", what, idx[j]);
    this_call |= 1u << idx[j];
  }
  return seen | this_call;
}

#define SYNC_TESTS(NAME, TYPE)                                                                           \
  static void sync_##NAME(void) {                                                                        \
    TYPE *v = (TYPE *)heap;                                                                              \
    TYPE *a = (TYPE *)heap + 1;                                                                          \
    TYPE cmp_values[K];                                                                                  \
    size_t idx[K];                                                                                       \
    const int right = st_right();                                                                        \
    const int ncases = (int)(sizeof cases / sizeof cases[0]);                                            \
    /* wait_until, then test polled, with each comparison. */                                           \
    for (int poll = 0; poll < 2; ++poll) {                                                               \
      for (int c = 0; c < ncases; ++c) {                                                                 \
        const TYPE value = (TYPE)cases[c].value;                                                         \
        *v = (TYPE)cases[c].before;                                                                      \
        shmem_barrier_all();                                                                             \
        CHECK(shmem_##NAME##_test(v, cases[c].cmp, value) == 0,                                          \
              "shmem_" #NAME "_test(%s %d) is true of %d before my left neighbour wrote", cases[c].name,  \
              cases[c].value, cases[c].before);                                                          \
        shmem_barrier_all();                                                                             \
        shmem_##NAME##_p(v, (TYPE)cases[c].after, right);                                                \
        shmem_quiet();                                                                                   \
        if (poll) {                                                                                      \
          while (!shmem_##NAME##_test(v, cases[c].cmp, value)) {                                         \
          }                                                                                              \
        } else {                                                                                         \
          shmem_##NAME##_wait_until(v, cases[c].cmp, value);                                             \
        }                                                                                                \
        CHECK(*v == (TYPE)cases[c].after, "shmem_" #NAME "_%s(%s %d) returned with %Lg, expected %d",    \
              poll ? "test" : "wait_until", cases[c].name, cases[c].value, (long double)*v, cases[c].after); \
        CHECK(shmem_##NAME##_test(v, cases[c].cmp, value) == 1, "shmem_" #NAME "_test(%s %d) of %d is not 1", \
              cases[c].name, cases[c].value, cases[c].after);                                            \
        shmem_barrier_all();                                                                             \
      }                                                                                                  \
    }                                                                                                    \
    /* all: the excluded elements stay 0 and are not waited for. */                                     \
    for (int i = 0; i < K; ++i) a[i] = (TYPE)0;                                                          \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_all(a, K, status, SHMEM_CMP_EQ, (TYPE)9) == 0,                             \
          "shmem_" #NAME "_test_all is true before my left neighbour wrote");                            \
    CHECK(shmem_##NAME##_test_any(a, K, status, SHMEM_CMP_EQ, (TYPE)9) == SIZE_MAX,                      \
          "shmem_" #NAME "_test_any found an element before my left neighbour wrote");                   \
    CHECK(shmem_##NAME##_test_some(a, K, idx, status, SHMEM_CMP_EQ, (TYPE)9) == 0,                       \
          "shmem_" #NAME "_test_some found elements before my left neighbour wrote");                    \
    shmem_barrier_all();                                                                                 \
    for (int i = 0; i < K; ++i)                                                                          \
      if (!status[i]) shmem_##NAME##_p(&a[i], (TYPE)9, right);                                           \
    shmem_quiet();                                                                                       \
    shmem_##NAME##_wait_until_all(a, K, status, SHMEM_CMP_EQ, (TYPE)9);                                  \
    for (int i = 0; i < K; ++i)                                                                          \
      CHECK(a[i] == (TYPE)(status[i] ? 0 : 9), "shmem_" #NAME "_wait_until_all: element %d is %Lg", i,    \
            (long double)a[i]);                                                                          \
    CHECK(shmem_##NAME##_test_all(a, K, status, SHMEM_CMP_EQ, (TYPE)9) == 1,                             \
          "shmem_" #NAME "_test_all is not 1 once every included element is 9");                         \
    CHECK(shmem_##NAME##_test_all(a, K, NULL, SHMEM_CMP_EQ, (TYPE)9) == 0,                               \
          "shmem_" #NAME "_test_all without a status array ignored elements 1 and 4 (still 0)");         \
    shmem_barrier_all();                                                                                 \
    /* any: element 1 satisfies the condition but is excluded. */                                       \
    for (int i = 0; i < K; ++i) a[i] = (TYPE)0;                                                          \
    a[1] = (TYPE)9;                                                                                      \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_any(a, K, status, SHMEM_CMP_EQ, (TYPE)9) == SIZE_MAX,                      \
          "shmem_" #NAME "_test_any returned %zu: an excluded element", shmem_##NAME##_test_any(a, K, status, SHMEM_CMP_EQ, (TYPE)9)); \
    CHECK(shmem_##NAME##_test_any(a, K, NULL, SHMEM_CMP_EQ, (TYPE)9) == 1,                               \
          "shmem_" #NAME "_test_any without a status array did not return element 1");                   \
    CHECK(shmem_##NAME##_wait_until_any(a, K, none, SHMEM_CMP_EQ, (TYPE)9) == SIZE_MAX,                  \
          "shmem_" #NAME "_wait_until_any with every element excluded did not return SIZE_MAX");         \
    CHECK(shmem_##NAME##_test_any(a, 0, NULL, SHMEM_CMP_EQ, (TYPE)9) == SIZE_MAX,                        \
          "shmem_" #NAME "_test_any of 0 elements did not return SIZE_MAX");                             \
    shmem_barrier_all();                                                                                 \
    shmem_##NAME##_p(&a[3], (TYPE)9, right);                                                             \
    shmem_quiet();                                                                                       \
    {                                                                                                    \
      size_t i = shmem_##NAME##_wait_until_any(a, K, status, SHMEM_CMP_EQ, (TYPE)9);                     \
      CHECK(i == 3, "shmem_" #NAME "_wait_until_any returned %zu, expected 3", i);                       \
      i = shmem_##NAME##_test_any(a, K, status, SHMEM_CMP_EQ, (TYPE)9);                                  \
      CHECK(i == 3, "shmem_" #NAME "_test_any returned %zu, expected 3", i);                             \
    }                                                                                                    \
    shmem_barrier_all();                                                                                 \
    /* some: element 4 satisfies the condition but is excluded; 2 and 5 will. */                        \
    for (int i = 0; i < K; ++i) a[i] = (TYPE)0;                                                          \
    a[4] = (TYPE)9;                                                                                      \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_some(a, K, idx, status, SHMEM_CMP_EQ, (TYPE)9) == 0,                       \
          "shmem_" #NAME "_test_some counted an excluded element");                                      \
    CHECK(shmem_##NAME##_wait_until_some(a, K, idx, none, SHMEM_CMP_EQ, (TYPE)9) == 0,                   \
          "shmem_" #NAME "_wait_until_some with every element excluded did not return 0");               \
    shmem_barrier_all();                                                                                 \
    shmem_##NAME##_p(&a[2], (TYPE)9, right);                                                             \
    shmem_##NAME##_p(&a[5], (TYPE)9, right);                                                             \
    shmem_quiet();                                                                                       \
    {                                                                                                    \
      unsigned seen = 0;                                                                                 \
      while (seen != 0x24u) {                                                                            \
        size_t count = shmem_##NAME##_wait_until_some(a, K, idx, status, SHMEM_CMP_EQ, (TYPE)9);         \
        CHECK(count >= 1, "shmem_" #NAME "_wait_until_some returned 0");                                 \
        seen = mark_indices(idx, count, 0x24u, seen, "shmem_" #NAME "_wait_until_some");                 \
      }                                                                                                  \
      size_t count = shmem_##NAME##_test_some(a, K, idx, status, SHMEM_CMP_EQ, (TYPE)9);                 \
      CHECK(count == 2, "shmem_" #NAME "_test_some returned %zu, expected 2 (elements 2 and 5)", count); \
      (void)mark_indices(idx, count, 0x24u, 0, "shmem_" #NAME "_test_some");                             \
    }                                                                                                    \
    shmem_barrier_all();                                                                                 \
    /* all_vector with GE: element i must reach 20 + i. */                                              \
    for (int i = 0; i < K; ++i) {                                                                        \
      a[i] = (TYPE)0;                                                                                    \
      cmp_values[i] = (TYPE)(20 + i);                                                                    \
    }                                                                                                    \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_all_vector(a, K, status, SHMEM_CMP_GE, cmp_values) == 0,                   \
          "shmem_" #NAME "_test_all_vector is true before my left neighbour wrote");                     \
    shmem_barrier_all();                                                                                 \
    for (int i = 0; i < K; ++i)                                                                          \
      if (!status[i]) shmem_##NAME##_p(&a[i], (TYPE)(30 + i), right);                                    \
    shmem_quiet();                                                                                       \
    shmem_##NAME##_wait_until_all_vector(a, K, status, SHMEM_CMP_GE, cmp_values);                        \
    for (int i = 0; i < K; ++i)                                                                          \
      CHECK(a[i] == (TYPE)(status[i] ? 0 : 30 + i), "shmem_" #NAME "_wait_until_all_vector: element %d is %Lg", \
            i, (long double)a[i]);                                                                       \
    CHECK(shmem_##NAME##_test_all_vector(a, K, status, SHMEM_CMP_GE, cmp_values) == 1,                   \
          "shmem_" #NAME "_test_all_vector is not 1");                                                   \
    shmem_barrier_all();                                                                                 \
    /* any_vector with GT: excluded element 1 satisfies, element 5 will. */                             \
    for (int i = 0; i < K; ++i) a[i] = (TYPE)0;                                                          \
    a[1] = (TYPE)100;                                                                                    \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_any_vector(a, K, status, SHMEM_CMP_GT, cmp_values) == SIZE_MAX,            \
          "shmem_" #NAME "_test_any_vector returned an excluded element");                               \
    shmem_barrier_all();                                                                                 \
    shmem_##NAME##_p(&a[5], (TYPE)100, right);                                                           \
    shmem_quiet();                                                                                       \
    {                                                                                                    \
      size_t i = shmem_##NAME##_wait_until_any_vector(a, K, status, SHMEM_CMP_GT, cmp_values);           \
      CHECK(i == 5, "shmem_" #NAME "_wait_until_any_vector returned %zu, expected 5", i);                \
      i = shmem_##NAME##_test_any_vector(a, K, status, SHMEM_CMP_GT, cmp_values);                        \
      CHECK(i == 5, "shmem_" #NAME "_test_any_vector returned %zu, expected 5", i);                      \
    }                                                                                                    \
    shmem_barrier_all();                                                                                 \
    /* some_vector with NE against 0: excluded element 4 satisfies; 0 and 3 will. */                    \
    for (int i = 0; i < K; ++i) {                                                                        \
      a[i] = (TYPE)0;                                                                                    \
      cmp_values[i] = (TYPE)0;                                                                           \
    }                                                                                                    \
    a[4] = (TYPE)1;                                                                                      \
    shmem_barrier_all();                                                                                 \
    CHECK(shmem_##NAME##_test_some_vector(a, K, idx, status, SHMEM_CMP_NE, cmp_values) == 0,             \
          "shmem_" #NAME "_test_some_vector counted an excluded element");                               \
    shmem_barrier_all();                                                                                 \
    shmem_##NAME##_p(&a[0], (TYPE)1, right);                                                             \
    shmem_##NAME##_p(&a[3], (TYPE)2, right);                                                             \
    shmem_quiet();                                                                                       \
    {                                                                                                    \
      unsigned seen = 0;                                                                                 \
      while (seen != 0x9u) {                                                                             \
        size_t count = shmem_##NAME##_wait_until_some_vector(a, K, idx, status, SHMEM_CMP_NE, cmp_values); \
        CHECK(count >= 1, "shmem_" #NAME "_wait_until_some_vector returned 0");                          \
        seen = mark_indices(idx, count, 0x9u, seen, "shmem_" #NAME "_wait_until_some_vector");           \
      }                                                                                                  \
      size_t count = shmem_##NAME##_test_some_vector(a, K, idx, status, SHMEM_CMP_NE, cmp_values);       \
      CHECK(count == 2, "shmem_" #NAME "_test_some_vector returned %zu, expected 2 (elements 0 and 3)", count); \
      (void)mark_indices(idx, count, 0x9u, 0, "shmem_" #NAME "_test_some_vector");                       \
    }                                                                                                    \
    shmem_barrier_all();                                                                                 \
  }
MPF_SHMEM_SYNC_TYPES(SYNC_TESTS)

#define RUN_SYNC(NAME, TYPE) sync_##NAME();
static void all_types(void) { MPF_SHMEM_SYNC_TYPES(RUN_SYNC) }

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* shmem_long_wait and shmem_wait return once the variable differs from the value. */
static void deprecated_waits(void) {
  long *v = (long *)heap;
  *v = 3;
  shmem_barrier_all();
  shmem_long_p(v, 4, st_right());
  shmem_long_wait(v, 3);
  CHECK_EQ(*v, 4, "my variable after shmem_long_wait(3) returned");
  shmem_barrier_all();
  shmem_long_p(v, 5, st_right());
  shmem_wait(v, 4);
  CHECK_EQ(*v, 5, "my variable after shmem_wait(4) returned");
  shmem_barrier_all();
}
#pragma GCC diagnostic pop

/* Lap after lap, PE 0 writes PE 1's flag, PE 1 waits for it and writes PE
 * 2's, ... and the last PE writes PE 0's. */
static void chain(void) {
  enum { LAPS = 3 };
  const int me = shmem_my_pe(), n = shmem_n_pes();
  chain_flag = 0;
  shmem_barrier_all();
  for (long lap = 0; lap < LAPS; ++lap) {
    if (me == 0) {
      shmem_long_p(&chain_flag, lap * n + 1, st_right());
      shmem_long_wait_until(&chain_flag, SHMEM_CMP_EQ, (lap + 1) * n);
    } else {
      shmem_long_wait_until(&chain_flag, SHMEM_CMP_EQ, lap * n + me);
      shmem_long_p(&chain_flag, lap * n + me + 1, st_right());
    }
  }
  if (me == 0) CHECK_EQ(chain_flag, (long)LAPS * n, "PE 0's flag at the end of the chain");
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  heap = shmem_calloc(K + 1, 8);
  CHECK(heap != NULL, "shmem_calloc(%d, 8) returned NULL", K + 1);
  all_types();
  deprecated_waits();
  chain();
  shmem_free(heap);
  st_done("sync");
  shmem_finalize();
  return 0;
}
