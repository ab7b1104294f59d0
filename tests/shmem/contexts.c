/* Communication contexts (OpenSHMEM 1.5 chapter 9.6): shmem_ctx_create with
 * the options 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE
 * and combinations; RMA and AMOs on each; ctx_fence ordering a put before the
 * flag that announces it; ctx_quiet completing non-blocking puts; the quiet
 * that ctx_destroy performs; many contexts alive at once; ctx_get_team; and
 * the no-ops on SHMEM_CTX_INVALID. */
#include "shmemtest.h"

enum { DATA = 8192 };

/* Per PE: the data a neighbour puts, a flag announcing it, a counter on PE 0. */
static long *data;
static long flag;
static long counter;
static long round_no;

/* The left neighbour's data for round r. */
static long value(int pe, long r, int i) { return r * 1000003L + pe * 7919L + i; }

/* Data, then fence, then the flag: the flag's arrival means the data is
 * there. The flag only grows, so it is never reset. */
static void fenced(shmem_ctx_t ctx, int use_default_fence, const char *what) {
  const int me = shmem_my_pe(), right = st_right(), left = st_left();
  static long src[DATA];
  const long r = ++round_no;
  for (int i = 0; i < DATA; ++i) src[i] = value(me, r, i);
  shmem_ctx_long_put(ctx, data, src, DATA, right);
  if (use_default_fence)
    shmem_fence();
  else
    shmem_ctx_fence(ctx);
  shmem_ctx_long_p(ctx, &flag, r, right);
  shmem_ctx_quiet(ctx);
  shmem_long_wait_until(&flag, SHMEM_CMP_GE, r);
  for (int i = 0; i < DATA; ++i)
    CHECK(data[i] == value(left, r, i), "%s: element %d of my left neighbour's put is %ld after its flag, expected %ld",
          what, i, data[i], value(left, r, i));
  shmem_barrier_all();
}

static void exercise(shmem_ctx_t ctx, const char *what) {
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = st_right(), left = st_left();
  static long src[DATA], got[DATA];
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK_ZERO(shmem_ctx_get_team(ctx, &team));
  CHECK(team == SHMEM_TEAM_WORLD, "%s: shmem_ctx_get_team did not give SHMEM_TEAM_WORLD", what);
  fenced(ctx, 0, what);
  /* get from the right neighbour what this PE put there. */
  shmem_ctx_long_get(ctx, got, data, DATA, right);
  for (int i = 0; i < DATA; ++i)
    CHECK(got[i] == value(me, round_no, i), "%s: shmem_ctx_long_get element %d is %ld, expected %ld", what, i, got[i],
          value(me, round_no, i));
  shmem_barrier_all();
  /* put_nbi completed by ctx_quiet, then the barrier. */
  const long r = ++round_no;
  for (int i = 0; i < DATA; ++i) src[i] = value(me, r, i);
  shmem_ctx_long_put_nbi(ctx, data, src, DATA, right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int i = 0; i < DATA; ++i)
    CHECK(data[i] == value(left, r, i), "%s: element %d after shmem_ctx_long_put_nbi and ctx_quiet is %ld, expected %ld",
          what, i, data[i], value(left, r, i));
  memset(got, 0, sizeof got);
  shmem_ctx_long_get_nbi(ctx, got, data, DATA, right);
  shmem_ctx_quiet(ctx);
  for (int i = 0; i < DATA; ++i)
    CHECK(got[i] == src[i], "%s: shmem_ctx_long_get_nbi element %d is %ld, expected %ld", what, i, got[i], src[i]);
  /* AMOs: every PE adds into PE 0's counter, and swaps its right neighbour's flag back. */
  counter = 0;
  shmem_barrier_all();
  const long total = (long)n * (n + 1) / 2 + n; /* every PE adds me + 1, then 1 */
  long before = shmem_ctx_long_atomic_fetch_add(ctx, &counter, me + 1, 0);
  CHECK(before >= 0 && before + me + 1 <= total, "%s: fetch_add of %d on PE 0 returned %ld, with %ld the final total",
        what, me + 1, before, total);
  shmem_ctx_long_atomic_inc(ctx, &counter, 0);
  long old = shmem_ctx_long_atomic_compare_swap(ctx, &flag, r - 1, r, right);
  CHECK(old == r - 1, "%s: compare_swap of my right neighbour's flag found %ld, expected %ld", what, old, r - 1);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  if (me == 0)
    CHECK(counter == total, "%s: PE 0's counter is %ld after every PE's fetch_add and inc, expected %ld", what, counter,
          total);
  CHECK(flag == r, "%s: my flag is %ld after my left neighbour's compare_swap, expected %ld", what, flag, r);
  CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &counter, 0), total, "PE 0's counter fetched");
  shmem_barrier_all();
  fenced(ctx, 1, what);
}

static void options(void) {
  static const struct {
    long options;
    const char *name;
  } opts[] = {
      {0, "a context with options 0"},
      {SHMEM_CTX_PRIVATE, "a SHMEM_CTX_PRIVATE context"},
      {SHMEM_CTX_SERIALIZED, "a SHMEM_CTX_SERIALIZED context"},
      {SHMEM_CTX_NOSTORE, "a SHMEM_CTX_NOSTORE context"},
      {SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE, "a SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE context"},
      {SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE, "a SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE context"},
  };
  for (size_t o = 0; o < sizeof opts / sizeof opts[0]; ++o) {
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    int rc = shmem_ctx_create(opts[o].options, &ctx);
    CHECK(rc == 0, "shmem_ctx_create(%ld) returned %d", opts[o].options, rc);
    CHECK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "shmem_ctx_create(%ld) gave %s", opts[o].options,
          ctx == SHMEM_CTX_INVALID ? "SHMEM_CTX_INVALID" : "SHMEM_CTX_DEFAULT");
    exercise(ctx, opts[o].name);
    shmem_ctx_destroy(ctx);
  }
  exercise(SHMEM_CTX_DEFAULT, "SHMEM_CTX_DEFAULT");
}

/* shmem_ctx_destroy quiets the context: a put_nbi issued just before it has
 * landed once every PE is past the barrier. */
static void destroy_quiets(void) {
  const int me = shmem_my_pe(), left = st_left();
  static long src[DATA];
  shmem_ctx_t ctx;
  const long r = ++round_no;
  CHECK_ZERO(shmem_ctx_create(0, &ctx));
  for (int i = 0; i < DATA; ++i) src[i] = value(me, r, i);
  shmem_ctx_long_put_nbi(ctx, data, src, DATA, st_right());
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  for (int i = 0; i < DATA; ++i)
    CHECK(data[i] == value(left, r, i), "element %d of a put_nbi on a context destroyed right after is %ld, expected %ld",
          i, data[i], value(left, r, i));
  shmem_barrier_all();
}

/* Sixteen contexts at once, each carrying one element; destroyed in a
 * different order than created. */
static void many(void) {
  enum { COUNT = 16 };
  const int me = shmem_my_pe(), left = st_left();
  shmem_ctx_t ctx[COUNT];
  const long r = ++round_no;
  for (int c = 0; c < COUNT; ++c) {
    CHECK_ZERO(shmem_ctx_create(c % 2 ? SHMEM_CTX_PRIVATE : 0, &ctx[c]));
    for (int j = 0; j < c; ++j) CHECK(ctx[c] != ctx[j], "contexts %d and %d are the same handle", j, c);
  }
  for (int c = 0; c < COUNT; ++c) shmem_ctx_long_p(ctx[c], &data[c], value(me, r, c), st_right());
  for (int c = COUNT - 1; c >= 0; c -= 2) shmem_ctx_quiet(ctx[c]);
  for (int c = 0; c < COUNT; c += 2) shmem_ctx_destroy(ctx[c]);
  for (int c = 1; c < COUNT; c += 2) shmem_ctx_destroy(ctx[c]);
  shmem_barrier_all();
  for (int c = 0; c < COUNT; ++c)
    CHECK(data[c] == value(left, r, c), "the element put on context %d of %d is %ld, expected %ld", c, COUNT, data[c],
          value(left, r, c));
  shmem_barrier_all();
}

static void handles(void) {
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK_ZERO(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team));
  CHECK(team == SHMEM_TEAM_WORLD, "shmem_ctx_get_team(SHMEM_CTX_DEFAULT) did not give SHMEM_TEAM_WORLD");
  team = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0, "shmem_ctx_get_team(SHMEM_CTX_INVALID) returned 0");
  CHECK(team == SHMEM_TEAM_INVALID, "shmem_ctx_get_team(SHMEM_CTX_INVALID) did not give SHMEM_TEAM_INVALID");
  /* No operation on SHMEM_CTX_INVALID. */
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_destroy(SHMEM_CTX_INVALID);
}

int main(void) {
  shmem_init();
  data = shmem_calloc(DATA, sizeof(long));
  CHECK(data != NULL, "shmem_calloc(%d, %zu) returned NULL", DATA, sizeof(long));
  handles();
  options();
  destroy_quiets();
  many();
  shmem_free(data);
  st_done("contexts");
  shmem_finalize();
  return 0;
}
