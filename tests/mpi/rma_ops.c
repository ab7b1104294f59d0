/*
 * rma_ops: every one-sided operation, in one synchronization mode and one
 * window flavor, checked element by element.
 *
 *   rma_ops FLAVOR SYNC      FLAVOR: create | alloc_mem | allocate | shared | dynamic
 *                            SYNC:   fence | pscw | lock | lock_all
 *
 * create exposes a malloc'd buffer (reached by Cross Memory Attach, or by
 * the target's engine with rndv_mode=copy); alloc_mem one from MPI_Alloc_mem
 * (node memory, reached directly); allocate and shared the window's own;
 * dynamic a malloc'd buffer attached to a dynamic window.
 *
 * In one epoch every rank, for every target:
 *   - puts its block of ints into the target's put region (contiguous), and
 *     a strided vector into the interleaved region (derived on both sides);
 *   - gets the target's pattern (contiguous, and derived into a strided buffer);
 *   - accumulates (MPI_SUM) into shared ints, doubles and long doubles (the
 *     last by the accumulate lock), and MPI_MAXLOC on MPI_2INT and
 *     MPI_DOUBLE_INT pairs;
 *   - MPI_Get_accumulate with MPI_SUM, MPI_REPLACE and MPI_NO_OP on its own slot;
 *   - MPI_Fetch_and_op (MPI_SUM) on a counter at rank 0, K times;
 *   - MPI_Compare_and_swap of 0 -> rank + 1;
 *   - MPI_Rput, MPI_Rget, MPI_Raccumulate and MPI_Rget_accumulate, waited for;
 *   - an operation on MPI_PROC_NULL.
 * Then every value is checked: each target's memory, and each origin's
 * results (the fetch_and_op results, gathered, are exactly 0 .. n*K-1; one
 * compare_and_swap per target won).
 */
#include <stddef.h>

#include "mpitest.h"

enum {
  WIN_BYTES = 32768,
  BLOCK_INTS = 16,
  R_PUT = 0,         /* n blocks of BLOCK_INTS ints, one per origin (n <= 64) */
  R_GET = 4096,      /* GET_INTS ints of the target's pattern */
  GET_INTS = 64,
  R_ACC = 8192,      /* ACC_INTS ints, every origin adds rank + 1 */
  ACC_INTS = 16,
  R_VEC = 8448,      /* VEC_INTS ints: origin r writes elements r, r + n, r + 2n, ... */
  VEC_PER_ORIGIN = 4,
  R_FOP = 12288,     /* one long long at rank 0 */
  R_CAS = 12296,     /* one int */
  R_DOUBLE = 12352,  /* 8 doubles, summed */
  R_LDOUBLE = 12416, /* 4 long doubles, summed (the accumulate lock's path) */
  R_2INT = 12480,    /* 4 MPI_2INT pairs, maxloc */
  R_DINT = 12544,    /* 4 MPI_DOUBLE_INT pairs, maxloc */
  R_GACC = 12800,    /* per origin: 4 ints, fetched and changed by itself */
  R_REQ = 16384,     /* n blocks of BLOCK_INTS ints: Rput */
  R_RACC = 20480,    /* ACC_INTS ints: Raccumulate adds rank + 1 */
  FOP_TIMES = 10,
};

struct dint {
  double value;
  int index;
};

static int rank, n;
static const char *flavor, *sync_mode;
static MPI_Win win;
static unsigned char *mem;    /* this rank's window memory */
static MPI_Aint *base_of;     /* dynamic: each rank's memory address */
static MPI_Group world_group;

static int pattern(int target, int i) { return target * 100000 + i * 7 + 3; }

static MPI_Aint disp(int target, MPI_Aint offset) {
  return strcmp(flavor, "dynamic") == 0 ? base_of[target] + offset : offset;
}

static void make_window(void) {
  void *base = NULL;
  if (strcmp(flavor, "create") == 0) {
    mem = mt_alloc(WIN_BYTES);
    CHECK_RC(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else if (strcmp(flavor, "alloc_mem") == 0) {
    CHECK_RC(MPI_Alloc_mem(WIN_BYTES, MPI_INFO_NULL, &base));
    mem = base;
    CHECK_RC(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else if (strcmp(flavor, "allocate") == 0) {
    CHECK_RC(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    mem = base;
  } else if (strcmp(flavor, "shared") == 0) {
    CHECK_RC(MPI_Win_allocate_shared(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    mem = base;
  } else if (strcmp(flavor, "dynamic") == 0) {
    mem = mt_alloc(WIN_BYTES);
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_attach(win, mem, WIN_BYTES));
  } else {
    CHECK(0, "unknown flavor %s", flavor);
  }
  base_of = mt_alloc(sizeof(MPI_Aint) * (size_t)n);
  MPI_Aint mine;
  CHECK_RC(MPI_Get_address(mem, &mine));
  CHECK_RC(MPI_Allgather(&mine, 1, MPI_AINT, base_of, 1, MPI_AINT, MPI_COMM_WORLD));
}

/* The epoch around the operations to `target` (passive modes open one per
 * target; active modes one for all, opened before and closed after). */
static void open_all(void) {
  if (strcmp(sync_mode, "fence") == 0) {
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
  } else if (strcmp(sync_mode, "pscw") == 0) {
    CHECK_RC(MPI_Win_post(world_group, 0, win));
    CHECK_RC(MPI_Win_start(world_group, 0, win));
  } else if (strcmp(sync_mode, "lock_all") == 0) {
    CHECK_RC(MPI_Win_lock_all(0, win));
  } else {
    CHECK(strcmp(sync_mode, "lock") == 0, "unknown synchronization %s", sync_mode);
  }
}
static void open_target(int target) {
  if (strcmp(sync_mode, "lock") == 0) CHECK_RC(MPI_Win_lock(target % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, target, 0, win));
}
static void close_target(int target) {
  if (strcmp(sync_mode, "lock") == 0) CHECK_RC(MPI_Win_unlock(target, win));
  if (strcmp(sync_mode, "lock_all") == 0) CHECK_RC(MPI_Win_flush(target, win));
}
static void close_all(void) {
  if (strcmp(sync_mode, "fence") == 0) {
    CHECK_RC(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  } else if (strcmp(sync_mode, "pscw") == 0) {
    CHECK_RC(MPI_Win_complete(win));
    CHECK_RC(MPI_Win_wait(win));
  } else if (strcmp(sync_mode, "lock_all") == 0) {
    CHECK_RC(MPI_Win_unlock_all(win));
  }
  /* Passive modes: every origin is done before anyone checks its memory. */
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_RC(MPI_Win_sync(win));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(argc == 3, "usage: rma_ops FLAVOR SYNC");
  flavor = argv[1];
  sync_mode = argv[2];
  CHECK(n <= 64 && n * VEC_PER_ORIGIN * 4 <= R_FOP - R_VEC, "at most 64 ranks");
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  make_window();

  /* This rank's memory before the epoch: zeros but for the get pattern. */
  memset(mem, 0, WIN_BYTES);
  int *get_region = (int *)(mem + R_GET);
  for (int i = 0; i < GET_INTS; ++i) get_region[i] = pattern(rank, i);
  int *gacc = (int *)(mem + R_GACC);
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < 4; ++i) gacc[r * 4 + i] = 1000 + i;
  int *loc2 = (int *)(mem + R_2INT);
  for (int i = 0; i < 4; ++i) {
    loc2[2 * i] = -1;
    loc2[2 * i + 1] = -1;
  }
  struct dint *dloc = (struct dint *)(mem + R_DINT);
  for (int i = 0; i < 4; ++i) {
    dloc[i].value = -1.0;
    dloc[i].index = -1;
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

  /* Datatypes: a strided vector of ints (origin: stride 3; target: stride n). */
  MPI_Datatype origin_vec, target_vec, get_strided;
  CHECK_RC(MPI_Type_vector(VEC_PER_ORIGIN, 1, 3, MPI_INT, &origin_vec));
  CHECK_RC(MPI_Type_commit(&origin_vec));
  CHECK_RC(MPI_Type_vector(VEC_PER_ORIGIN, 1, n, MPI_INT, &target_vec));
  CHECK_RC(MPI_Type_commit(&target_vec));
  CHECK_RC(MPI_Type_vector(GET_INTS, 1, 2, MPI_INT, &get_strided));
  CHECK_RC(MPI_Type_commit(&get_strided));

  int block[BLOCK_INTS], vec_source[3 * VEC_PER_ORIGIN];
  for (int i = 0; i < BLOCK_INTS; ++i) block[i] = rank * 1000 + i;
  for (int i = 0; i < 3 * VEC_PER_ORIGIN; ++i) vec_source[i] = i % 3 == 0 ? rank * 10 + i / 3 : -7;
  int *got = mt_alloc(sizeof(int) * GET_INTS * (size_t)n);
  int *got_strided = mt_alloc(sizeof(int) * 2 * GET_INTS * (size_t)n);
  for (int i = 0; i < 2 * GET_INTS * n; ++i) got_strided[i] = -5;
  long long *fop_results = mt_alloc(sizeof(long long) * FOP_TIMES);
  int *cas_results = mt_alloc(sizeof(int) * (size_t)n);
  int gacc_sum[4], gacc_replace[4], gacc_noop[4], req_got[GET_INTS], racc_old[ACC_INTS];
  int acc_one[ACC_INTS], racc_one[ACC_INTS];
  for (int i = 0; i < ACC_INTS; ++i) acc_one[i] = racc_one[i] = rank + 1;
  double dvalues[8];
  long double ldvalues[4];
  for (int i = 0; i < 8; ++i) dvalues[i] = 0.5 * (rank + 1);
  for (int i = 0; i < 4; ++i) ldvalues[i] = 0.25L * (rank + 1);
  int pairs[8];
  struct dint dpairs[4];
  for (int i = 0; i < 4; ++i) {
    pairs[2 * i] = (rank * 7 + i) % n; /* value; index = rank */
    pairs[2 * i + 1] = rank;
    dpairs[i].value = (double)((rank * 5 + i) % n);
    dpairs[i].index = rank;
  }

  open_all();
  for (int t = 0; t < n; ++t) {
    open_target(t);
    CHECK_RC(MPI_Put(block, BLOCK_INTS, MPI_INT, t, disp(t, R_PUT + rank * BLOCK_INTS * 4), BLOCK_INTS, MPI_INT, win));
    CHECK_RC(MPI_Put(vec_source, 1, origin_vec, t, disp(t, R_VEC + rank * 4), 1, target_vec, win));
    CHECK_RC(MPI_Get(got + t * GET_INTS, GET_INTS, MPI_INT, t, disp(t, R_GET), GET_INTS, MPI_INT, win));
    CHECK_RC(MPI_Get(got_strided + t * 2 * GET_INTS, 1, get_strided, t, disp(t, R_GET), GET_INTS, MPI_INT, win));
    CHECK_RC(MPI_Accumulate(acc_one, ACC_INTS, MPI_INT, t, disp(t, R_ACC), ACC_INTS, MPI_INT, MPI_SUM, win));
    CHECK_RC(MPI_Accumulate(dvalues, 8, MPI_DOUBLE, t, disp(t, R_DOUBLE), 8, MPI_DOUBLE, MPI_SUM, win));
    CHECK_RC(MPI_Accumulate(ldvalues, 4, MPI_LONG_DOUBLE, t, disp(t, R_LDOUBLE), 4, MPI_LONG_DOUBLE, MPI_SUM, win));
    CHECK_RC(MPI_Accumulate(pairs, 4, MPI_2INT, t, disp(t, R_2INT), 4, MPI_2INT, MPI_MAXLOC, win));
    CHECK_RC(MPI_Accumulate(dpairs, 4, MPI_DOUBLE_INT, t, disp(t, R_DINT), 4, MPI_DOUBLE_INT, MPI_MAXLOC, win));
    const int swap_in = rank + 1, expect = 0;
    CHECK_RC(MPI_Compare_and_swap(&swap_in, &expect, &cas_results[t], MPI_INT, t, disp(t, R_CAS), win));
    if (t == 0) {
      const long long add = 1;
      for (int k = 0; k < FOP_TIMES; ++k) {
        CHECK_RC(MPI_Fetch_and_op(&add, &fop_results[k], MPI_LONG_LONG, 0, disp(0, R_FOP), MPI_SUM, win));
      }
    }
    if (t == (rank + 1) % n) {
      /* Its own slot at one target: sum, then replace, then read, in one
       * epoch (accumulates from one origin are applied in order). */
      const int add[4] = {1, 2, 3, 4}, put_in[4] = {-1, -2, -3, -4};
      CHECK_RC(MPI_Get_accumulate(add, 4, MPI_INT, gacc_sum, 4, MPI_INT, t, disp(t, R_GACC + rank * 16), 4, MPI_INT,
                                  MPI_SUM, win));
      CHECK_RC(MPI_Get_accumulate(put_in, 4, MPI_INT, gacc_replace, 4, MPI_INT, t, disp(t, R_GACC + rank * 16), 4,
                                  MPI_INT, MPI_REPLACE, win));
      CHECK_RC(MPI_Get_accumulate(NULL, 0, MPI_INT, gacc_noop, 4, MPI_INT, t, disp(t, R_GACC + rank * 16), 4, MPI_INT,
                                  MPI_NO_OP, win));
      MPI_Request reqs[4];
      CHECK_RC(MPI_Rput(block, BLOCK_INTS, MPI_INT, t, disp(t, R_REQ + rank * BLOCK_INTS * 4), BLOCK_INTS, MPI_INT,
                        win, &reqs[0]));
      CHECK_RC(MPI_Rget(req_got, GET_INTS, MPI_INT, t, disp(t, R_GET), GET_INTS, MPI_INT, win, &reqs[1]));
      CHECK_RC(MPI_Raccumulate(racc_one, ACC_INTS, MPI_INT, t, disp(t, R_RACC), ACC_INTS, MPI_INT, MPI_SUM, win,
                               &reqs[2]));
      CHECK_RC(MPI_Rget_accumulate(NULL, 0, MPI_INT, racc_old, ACC_INTS, MPI_INT, t, disp(t, R_GET), ACC_INTS,
                                   MPI_INT, MPI_NO_OP, win, &reqs[3]));
      CHECK_RC(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    }
    CHECK_RC(MPI_Put(block, BLOCK_INTS, MPI_INT, MPI_PROC_NULL, 0, BLOCK_INTS, MPI_INT, win));
    close_target(t);
  }
  close_all();

  /* The target's memory. */
  for (int o = 0; o < n; ++o) {
    const int *b = (const int *)(mem + R_PUT) + o * BLOCK_INTS;
    for (int i = 0; i < BLOCK_INTS; ++i) CHECK(b[i] == o * 1000 + i, "put block of rank %d [%d] is %d", o, i, b[i]);
  }
  const int *vec = (const int *)(mem + R_VEC);
  for (int o = 0; o < n; ++o)
    for (int k = 0; k < VEC_PER_ORIGIN; ++k) {
      CHECK(vec[k * n + o] == o * 10 + k, "vector element %d of rank %d is %d", k, o, vec[k * n + o]);
    }
  const int *acc = (const int *)(mem + R_ACC);
  const int *racc = (const int *)(mem + R_RACC);
  for (int i = 0; i < ACC_INTS; ++i) {
    CHECK(acc[i] == n * (n + 1) / 2, "accumulated int %d is %d, not %d", i, acc[i], n * (n + 1) / 2);
  }
  for (int i = 0; i < ACC_INTS; ++i) {
    CHECK(racc[i] == (rank + n - 1) % n + 1, "Raccumulate int %d is %d, not %d", i, racc[i], (rank + n - 1) % n + 1);
  }
  const double *dsum = (const double *)(mem + R_DOUBLE);
  for (int i = 0; i < 8; ++i) CHECK(dsum[i] == 0.25 * n * (n + 1), "double sum %d is %g", i, dsum[i]);
  const long double *ldsum = (const long double *)(mem + R_LDOUBLE);
  for (int i = 0; i < 4; ++i) CHECK(ldsum[i] == 0.125L * n * (n + 1), "long double sum %d is %Lg", i, ldsum[i]);
  for (int i = 0; i < 4; ++i) {
    /* maxloc: the largest value; among equal values the smallest index. */
    int best = -1, who = -1;
    double dbest = -1;
    int dwho = -1;
    for (int o = 0; o < n; ++o) {
      const int v = (o * 7 + i) % n;
      if (v > best) best = v, who = o;
      const double dv = (double)((o * 5 + i) % n);
      if (dv > dbest) dbest = dv, dwho = o;
    }
    CHECK(loc2[2 * i] == best && loc2[2 * i + 1] == who, "2int maxloc %d is (%d, %d), not (%d, %d)", i, loc2[2 * i],
          loc2[2 * i + 1], best, who);
    CHECK(dloc[i].value == dbest && dloc[i].index == dwho, "double_int maxloc %d is (%g, %d), not (%g, %d)", i,
          dloc[i].value, dloc[i].index, dbest, dwho);
  }
  const int *req = (const int *)(mem + R_REQ);
  const int from = (rank + n - 1) % n;
  for (int i = 0; i < BLOCK_INTS; ++i) CHECK(req[from * BLOCK_INTS + i] == from * 1000 + i, "Rput element %d", i);
  const int *slot = (const int *)(mem + R_GACC) + from * 4;
  for (int i = 0; i < 4; ++i) CHECK(slot[i] == -1 - i, "get_accumulate slot %d is %d", i, slot[i]);

  /* The origin's results. */
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < GET_INTS; ++i) {
      CHECK(got[t * GET_INTS + i] == pattern(t, i), "get from %d [%d] is %d", t, i, got[t * GET_INTS + i]);
      CHECK(got_strided[t * 2 * GET_INTS + 2 * i] == pattern(t, i) && got_strided[t * 2 * GET_INTS + 2 * i + 1] == -5,
            "strided get from %d [%d]", t, i);
    }
  for (int i = 0; i < 4; ++i) {
    CHECK(gacc_sum[i] == 1000 + i, "get_accumulate SUM fetched %d", gacc_sum[i]);
    CHECK(gacc_replace[i] == 1000 + i + i + 1, "get_accumulate REPLACE fetched %d", gacc_replace[i]);
    CHECK(gacc_noop[i] == -1 - i, "get_accumulate NO_OP fetched %d", gacc_noop[i]);
  }
  const int to = (rank + 1) % n;
  for (int i = 0; i < GET_INTS; ++i) CHECK(req_got[i] == pattern(to, i), "Rget [%d] is %d", i, req_got[i]);
  for (int i = 0; i < ACC_INTS; ++i) CHECK(racc_old[i] == pattern(to, i), "Rget_accumulate [%d]", i);

  /* fetch_and_op: together, exactly 0 .. n*FOP_TIMES-1. */
  long long *all_fop = mt_alloc(sizeof(long long) * FOP_TIMES * (size_t)n);
  CHECK_RC(MPI_Allgather(fop_results, FOP_TIMES, MPI_LONG_LONG, all_fop, FOP_TIMES, MPI_LONG_LONG, MPI_COMM_WORLD));
  char *seen = calloc((size_t)(n * FOP_TIMES), 1);
  for (int i = 0; i < n * FOP_TIMES; ++i) {
    CHECK(all_fop[i] >= 0 && all_fop[i] < n * FOP_TIMES && !seen[all_fop[i]], "fetch_and_op result %lld twice or out of range", all_fop[i]);
    seen[all_fop[i]] = 1;
  }
  if (rank == 0) CHECK(*(long long *)(mem + R_FOP) == n * FOP_TIMES, "counter is %lld", *(long long *)(mem + R_FOP));

  /* compare_and_swap: one winner per target, whose value it holds. */
  int *all_cas = mt_alloc(sizeof(int) * (size_t)(n * n));
  CHECK_RC(MPI_Allgather(cas_results, n, MPI_INT, all_cas, n, MPI_INT, MPI_COMM_WORLD));
  const int mine = *(int *)(mem + R_CAS);
  CHECK(mine >= 1 && mine <= n, "compare_and_swap left %d", mine);
  int winners = 0;
  for (int o = 0; o < n; ++o) {
    const int r = all_cas[o * n + rank];
    if (r == 0) {
      ++winners;
      CHECK(mine == o + 1, "rank %d won but the value is %d", o, mine);
    } else {
      CHECK(r == mine, "rank %d lost and saw %d, not %d", o, r, mine);
    }
  }
  CHECK(winners == 1, "%d ranks won compare_and_swap", winners);

  MPI_Type_free(&origin_vec);
  MPI_Type_free(&target_vec);
  MPI_Type_free(&get_strided);
  if (strcmp(flavor, "dynamic") == 0) CHECK_RC(MPI_Win_detach(win, mem));
  CHECK_RC(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
  if (strcmp(flavor, "alloc_mem") == 0) CHECK_RC(MPI_Free_mem(mem));
  if (strcmp(flavor, "create") == 0 || strcmp(flavor, "dynamic") == 0) free(mem);
  free(got);
  free(got_strided);
  free(fop_results);
  free(cas_results);
  free(all_fop);
  free(seen);
  free(all_cas);
  free(base_of);
  MPI_Group_free(&world_group);
  if (rank == 0) printf("rma_ops ok: %s %s, %d ranks\n", flavor, sync_mode, n);
  MPI_Finalize();
  return 0;
}
