/* Teams (OpenSHMEM 1.5 chapter 9.4): shmem_team_split_strided over
 * start/stride/size combinations (stride 2 and 3, size 1, the whole world,
 * invalid triplets), with SHMEM_TEAM_INVALID on the PEs left out;
 * shmem_team_split_2d with xrange 2, 3 and more than the PEs (so that the
 * last row is short when npes is not a multiple); team_my_pe, team_n_pes and
 * team_translate_pe (to and from SHMEM_TEAM_WORLD, between two split teams,
 * and -1 for SHMEM_TEAM_INVALID and non-members); get_config; contexts
 * created on a team, which number PEs within the team; collectives on the new
 * teams; nested splits; team_destroy. */
#include "shmemtest.h"

/* Per PE: [0..1] context traffic; for buffer b (0..3) of check_team, the
 * reduction's source and dest at [2 + 2b], [3 + 2b] and the broadcast's at
 * [10 + 2b], [11 + 2b]. Teams whose collectives may overlap in time (a row
 * and a column of split_2d) use different buffers. */
static long *words;

/* Member `i` of a team is world PE start + stride * i. */
struct layout {
  int start, stride, size;
};

static int layout_index(struct layout l, int pe) {
  if (pe < l.start || (pe - l.start) % l.stride != 0 || (pe - l.start) / l.stride >= l.size) return -1;
  return (pe - l.start) / l.stride;
}

/* Numbering, translation to and from the world, and two collectives. `buf`
 * picks the words the collectives use. */
static void check_team(shmem_team_t team, struct layout l, int buf, const char *what) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int k = layout_index(l, me);
  CHECK(k >= 0, "%s: PE %d is not a member, but its handle is valid", what, me);
  CHECK_EQ(shmem_team_my_pe(team), k, what);
  CHECK_EQ(shmem_team_n_pes(team), l.size, what);
  for (int i = 0; i < l.size; ++i) {
    int pe = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
    CHECK(pe == l.start + l.stride * i, "%s: member %d translates to world PE %d, expected %d", what, i, pe,
          l.start + l.stride * i);
  }
  for (int pe = 0; pe < n; ++pe) {
    int i = shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, team);
    CHECK(i == layout_index(l, pe), "%s: world PE %d translates to member %d, expected %d", what, pe, i,
          layout_index(l, pe));
  }
  CHECK_EQ(shmem_team_translate_pe(team, l.size, SHMEM_TEAM_WORLD), -1, "translating member number n_pes");
  CHECK_EQ(shmem_team_translate_pe(team, -1, SHMEM_TEAM_WORLD), -1, "translating member number -1");
  CHECK_EQ(shmem_team_translate_pe(team, k, team), k, "translating my number to the same team");
  /* Sum of the members' world numbers, and a broadcast from the last member. */
  long *src = &words[2 + 2 * buf], *dst = &words[3 + 2 * buf];
  long want = 0;
  for (int i = 0; i < l.size; ++i) want += l.start + l.stride * i;
  *src = me;
  *dst = -1;
  CHECK_ZERO(shmem_team_sync(team));
  CHECK_ZERO(shmem_long_sum_reduce(team, dst, src, 1));
  CHECK(*dst == want, "%s: the sum of the members' world PE numbers is %ld, expected %ld", what, *dst, want);
  long *bsrc = &words[10 + 2 * buf], *bdst = &words[11 + 2 * buf];
  *bsrc = 1000 + me;
  *bdst = -1;
  CHECK_ZERO(shmem_team_sync(team));
  CHECK_ZERO(shmem_long_broadcast(team, bdst, bsrc, 1, l.size - 1));
  CHECK(*bdst == 1000 + l.start + l.stride * (l.size - 1), "%s: broadcast from the last member gave %ld, expected %d",
        what, *bdst, 1000 + l.start + l.stride * (l.size - 1));
  CHECK_ZERO(shmem_team_sync(team));
}

static void strided(int start, int stride, int size) {
  const int me = shmem_my_pe();
  const struct layout l = {start, stride, size};
  char what[96];
  shmem_team_t team = SHMEM_TEAM_WORLD;
  snprintf(what, sizeof what, "team (start %d, stride %d, size %d)", start, stride, size);
  CHECK_ZERO(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &team));
  if (layout_index(l, me) < 0) {
    CHECK(team == SHMEM_TEAM_INVALID, "%s: PE %d is not a member, but got a valid handle", what, me);
    CHECK_EQ(shmem_team_my_pe(team), -1, "shmem_team_my_pe(SHMEM_TEAM_INVALID)");
    CHECK_EQ(shmem_team_n_pes(team), -1, "shmem_team_n_pes(SHMEM_TEAM_INVALID)");
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, team), -1, "translating to SHMEM_TEAM_INVALID");
    CHECK_EQ(shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD), -1, "translating from SHMEM_TEAM_INVALID");
  } else {
    CHECK(team != SHMEM_TEAM_INVALID, "%s: member PE %d got SHMEM_TEAM_INVALID", what, me);
    check_team(team, l, 0, what);
    shmem_team_destroy(team);
  }
  shmem_barrier_all();
}

static void invalid_splits(void) {
  const int n = shmem_n_pes();
  shmem_team_t team = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &team) != 0,
        "shmem_team_split_strided(start 0, stride 1, size %d) with %d PEs returned 0", n + 1, n);
  CHECK(team == SHMEM_TEAM_INVALID, "a team of %d PEs out of %d is not SHMEM_TEAM_INVALID", n + 1, n);
  team = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n, 1, 1, NULL, 0, &team) != 0,
        "shmem_team_split_strided(start %d, stride 1, size 1) with %d PEs returned 0", n, n);
  CHECK(team == SHMEM_TEAM_INVALID, "a team starting at PE %d of %d is not SHMEM_TEAM_INVALID", n, n);
  /* A split of SHMEM_TEAM_INVALID makes no team (1.5: the handles are set
   * to SHMEM_TEAM_INVALID; the return value is not specified). */
  team = SHMEM_TEAM_WORLD;
  (void)shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &team);
  CHECK(team == SHMEM_TEAM_INVALID, "shmem_team_split_strided of SHMEM_TEAM_INVALID gave a valid team");
  shmem_team_t xt = SHMEM_TEAM_WORLD, yt = SHMEM_TEAM_WORLD;
  (void)shmem_team_split_2d(SHMEM_TEAM_INVALID, 2, NULL, 0, &xt, NULL, 0, &yt);
  CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
        "shmem_team_split_2d of SHMEM_TEAM_INVALID gave a valid x or y team");
  shmem_barrier_all();
}

/* Rows (x teams) of xrange PEs and columns (y teams); buf 0 for the rows, 1
 * for the columns. */
static void split_2d(shmem_team_t parent, struct layout p, int xrange) {
  const int me = shmem_my_pe();
  const int k = layout_index(p, me), np = p.size;
  const int xr = xrange < np ? xrange : np;
  const int x = k % xr, y = k / xr;
  shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
  char what[96];
  CHECK_ZERO(shmem_team_split_2d(parent, xrange, NULL, 0, &xt, NULL, 0, &yt));
  CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID, "shmem_team_split_2d(xrange %d) gave an invalid team",
        xrange);
  CHECK_EQ(shmem_team_my_pe(xt), x, "my number in the x team (my x coordinate)");
  CHECK_EQ(shmem_team_my_pe(yt), y, "my number in the y team (my y coordinate)");
  const struct layout row = {p.start + p.stride * y * xr, p.stride, np - y * xr < xr ? np - y * xr : xr};
  const struct layout col = {p.start + p.stride * x, p.stride * xr, (np - x + xr - 1) / xr};
  snprintf(what, sizeof what, "x team of split_2d(xrange %d) of %d PEs, row %d", xrange, np, y);
  check_team(xt, row, 2, what);
  snprintf(what, sizeof what, "y team of split_2d(xrange %d) of %d PEs, column %d", xrange, np, x);
  check_team(yt, col, 3, what);
  /* Between the two new teams: the x team's member j is in my column only if j == x. */
  for (int j = 0; j < row.size; ++j) {
    int want = j == x ? y : -1;
    CHECK_EQ(shmem_team_translate_pe(xt, j, yt), want, "an x team member translated to my y team");
  }
  CHECK_ZERO(shmem_team_sync(parent));
  shmem_team_destroy(yt);
  shmem_team_destroy(xt);
}

/* A team created with num_contexts 2 reports it, and its contexts number
 * PEs within the team: world PE p is member p - 1 of the team of PEs 1..n-1. */
static void configs_and_contexts(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int start = n > 1 ? 1 : 0;
  shmem_team_config_t config, got;
  shmem_team_t team = SHMEM_TEAM_INVALID;
  shmem_ctx_t ctx1 = SHMEM_CTX_INVALID, ctx2 = SHMEM_CTX_INVALID;
  config.num_contexts = 2;
  words[0] = -1;
  words[1] = 0;
  shmem_barrier_all();
  CHECK_ZERO(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, 1, n - start, &config, SHMEM_TEAM_NUM_CONTEXTS, &team));
  if (me >= start) {
    const int k = me - start, size = n - start;
    got.num_contexts = -1;
    CHECK_ZERO(shmem_team_get_config(team, SHMEM_TEAM_NUM_CONTEXTS, &got));
    CHECK_EQ(got.num_contexts, 2, "num_contexts of a team created with 2");
    CHECK_ZERO(shmem_team_create_ctx(team, 0, &ctx1));
    CHECK_ZERO(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &ctx2));
    shmem_team_t of_ctx = SHMEM_TEAM_INVALID;
    CHECK_ZERO(shmem_ctx_get_team(ctx1, &of_ctx));
    CHECK(of_ctx == team, "shmem_ctx_get_team of a context created on a team is not that team");
    /* Team-relative numbering: put to team member (k + 1) % size. */
    shmem_ctx_long_p(ctx1, &words[0], 10L * k + 7, (k + 1) % size);
    shmem_ctx_quiet(ctx1);
    (void)shmem_ctx_long_atomic_fetch_add(ctx2, &words[1], k + 1, 0);
    shmem_ctx_quiet(ctx2);
    CHECK_ZERO(shmem_team_sync(team));
    long left = 10L * ((k + size - 1) % size) + 7;
    CHECK(words[0] == left, "the word put by my left team neighbour through a team context is %ld, expected %ld",
          words[0], left);
    long v = shmem_ctx_long_g(ctx1, &words[0], k);
    CHECK(v == left, "shmem_ctx_long_g of my own team number through a team context gave %ld, expected %ld", v, left);
    if (k == 0)
      CHECK(words[1] == (long)size * (size + 1) / 2,
            "team member 0's word is %ld after every member's fetch_add through a team context, expected %ld",
            words[1], (long)size * (size + 1) / 2);
    CHECK_ZERO(shmem_team_sync(team));
    shmem_ctx_destroy(ctx2);
    shmem_ctx_destroy(ctx1);
    shmem_team_destroy(team);
  } else {
    CHECK(team == SHMEM_TEAM_INVALID, "PE %d outside the team of PEs %d..%d got a valid handle", me, start, n - 1);
    CHECK(shmem_team_create_ctx(team, 0, &ctx1) != 0, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) returned 0");
    CHECK(ctx1 == SHMEM_CTX_INVALID, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) did not give SHMEM_CTX_INVALID");
  }
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &got) != 0,
        "shmem_team_get_config(SHMEM_TEAM_INVALID) returned 0");
  CHECK_ZERO(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &got));
  ctx1 = SHMEM_CTX_DEFAULT;
  CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx1) != 0, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) returned 0");
  CHECK(ctx1 == SHMEM_CTX_INVALID, "shmem_team_create_ctx(SHMEM_TEAM_INVALID) did not give SHMEM_CTX_INVALID");
  CHECK_ZERO(shmem_team_create_ctx(SHMEM_TEAM_WORLD, 0, &ctx1));
  shmem_team_t of_ctx = SHMEM_TEAM_INVALID;
  CHECK_ZERO(shmem_ctx_get_team(ctx1, &of_ctx));
  CHECK(of_ctx == SHMEM_TEAM_WORLD, "shmem_ctx_get_team of a context created on SHMEM_TEAM_WORLD");
  shmem_ctx_destroy(ctx1);
  shmem_barrier_all();
}

/* The even PEs, then every other one of those (world PEs 0, 4, 8, ...), and
 * split_2d of the evens. */
static void nested(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const struct layout evens_layout = {0, 2, (n + 1) / 2};
  shmem_team_t evens = SHMEM_TEAM_INVALID, quarter = SHMEM_TEAM_INVALID;
  CHECK_ZERO(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, evens_layout.size, NULL, 0, &evens));
  if (me % 2 != 0) {
    CHECK(evens == SHMEM_TEAM_INVALID, "odd PE %d got a valid handle for the even PEs", me);
    shmem_barrier_all();
    return;
  }
  check_team(evens, evens_layout, 0, "the even PEs");
  const int ne = evens_layout.size;
  const struct layout quarter_layout = {0, 4, (ne + 1) / 2};
  CHECK_ZERO(shmem_team_split_strided(evens, 0, 2, quarter_layout.size, NULL, 0, &quarter));
  if (me % 4 == 0) {
    CHECK(quarter != SHMEM_TEAM_INVALID, "PE %d got SHMEM_TEAM_INVALID for every other even PE", me);
    check_team(quarter, quarter_layout, 1, "every other even PE (a split of a split)");
    for (int i = 0; i < quarter_layout.size; ++i)
      CHECK_EQ(shmem_team_translate_pe(quarter, i, evens), 2 * i, "a member of the nested team translated to its parent");
    for (int i = 0; i < ne; ++i)
      CHECK_EQ(shmem_team_translate_pe(evens, i, quarter), i % 2 == 0 ? i / 2 : -1,
               "a member of the parent translated to the nested team");
  } else {
    CHECK(quarter == SHMEM_TEAM_INVALID, "PE %d got a valid handle for every other even PE", me);
  }
  CHECK_ZERO(shmem_team_sync(evens));
  split_2d(evens, evens_layout, 2);
  if (quarter != SHMEM_TEAM_INVALID) shmem_team_destroy(quarter);
  shmem_team_destroy(evens);
  shmem_barrier_all();
}

int main(void) {
  shmem_init();
  const int n = shmem_n_pes();
  const struct layout world = {0, 1, n};
  words = shmem_calloc(24, sizeof(long));
  CHECK(words != NULL, "shmem_calloc(24, %zu) returned NULL", sizeof(long));
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1, "shmem_team_my_pe(SHMEM_TEAM_INVALID)");
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1, "shmem_team_n_pes(SHMEM_TEAM_INVALID)");
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1,
           "shmem_team_translate_pe from SHMEM_TEAM_INVALID");
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1,
           "shmem_team_translate_pe to SHMEM_TEAM_INVALID");
  check_team(SHMEM_TEAM_WORLD, world, 0, "SHMEM_TEAM_WORLD");
  strided(0, 1, n);
  strided(0, 2, (n + 1) / 2);
  if (n >= 2) strided(1, 2, n / 2);
  if (n >= 4) strided(0, 3, (n + 2) / 3);
  if (n >= 3) strided(1, n - 2, 2);
  strided(n - 1, 1, 1);
  strided(0, 5, 1);
  strided(n / 2, 1, n - n / 2);
  invalid_splits();
  split_2d(SHMEM_TEAM_WORLD, world, 2);
  split_2d(SHMEM_TEAM_WORLD, world, 3);
  split_2d(SHMEM_TEAM_WORLD, world, n + 2);
  split_2d(SHMEM_TEAM_WORLD, world, 1);
  configs_and_contexts();
  nested();
  shmem_free(words);
  st_done("teams");
  shmem_finalize();
  return 0;
}
