/*
 * One-sided latency kernel: the time of one 8-byte MPI_Put, MPI_Get,
 * MPI_Accumulate (MPI_SUM), MPI_Fetch_and_op (MPI_SUM) and
 * MPI_Compare_and_swap from rank 0 to rank 1, each completed by
 * MPI_Win_flush inside one MPI_Win_lock_all epoch, on a window from
 * MPI_Win_allocate and on one from MPI_Win_create (rma_window.h). Rank 1
 * only waits: the operations complete without its help, or with its
 * progress engine's where the MPI needs one. Ops are named
 * "<flavor>.<operation>" (allocate.put, create.get, ...).
 * Plain MPI-3: the same source builds against any MPI.
 *   kernel_rma_latency [--check] [--quick] [--reps N] [--rep-ms MS] [--flavors allocate,create]
 * Exactly 2 ranks; unit us, lower is better. --check verifies every value:
 * a put is read back, a get reads the target's pattern, accumulates and
 * fetches count up as they should.
 */
#include "rma_window.h"

enum { OP_PUT, OP_GET, OP_ACC, OP_FOP, OP_CAS, OP_COUNT, SLOT = 64 };
static const char *const op_names[OP_COUNT] = {"put", "get", "accumulate", "fetch_and_op", "compare_and_swap"};

struct lat {
  struct ku_kernel *k;
  int flavors[RMA_FLAVORS];
  struct rma_window w;
  int op;
  long long counter; /* what the target's counter holds (rank 0 alone changes it) */
  long seq;
};

static int lat_option(void *ctx, const char *arg, const char *value) {
  struct lat *l = ctx;
  return rma_flavor_option(l->flavors, arg, value);
}

static void fail(struct lat *l, const char *what, long long got, long long expected) {
  fprintf(stderr, "kernel_rma_latency: %s %s: got %lld, expected %lld\n", rma_flavor_names[l->w.flavor], what, got,
          expected);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static double lat_step(void *ctx, long bytes, int iters) {
  struct lat *l = ctx;
  (void)bytes;
  if (l->k->rank != 0) return 0;
  MPI_Win win = l->w.win;
  const int check = l->k->check;
  long long value = 0, result = 0, back = 0;
  const long long one = 1;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++l->seq) {
    switch (l->op) {
      case OP_PUT:
        value = l->seq * 7 + 1;
        MPI_Put(&value, 1, MPI_LONG_LONG, 1, SLOT, 1, MPI_LONG_LONG, win);
        MPI_Win_flush(1, win);
        if (check) {
          MPI_Get(&back, 1, MPI_LONG_LONG, 1, SLOT, 1, MPI_LONG_LONG, win);
          MPI_Win_flush(1, win);
          if (back != value) fail(l, "put read back", back, value);
        }
        break;
      case OP_GET:
        MPI_Get(&result, 1, MPI_LONG_LONG, 1, 2 * SLOT, 1, MPI_LONG_LONG, win);
        MPI_Win_flush(1, win);
        if (check && result != 424242) fail(l, "get", result, 424242);
        break;
      case OP_ACC:
        MPI_Accumulate(&one, 1, MPI_LONG_LONG, 1, 0, 1, MPI_LONG_LONG, MPI_SUM, win);
        MPI_Win_flush(1, win);
        ++l->counter;
        if (check) {
          MPI_Fetch_and_op(NULL, &back, MPI_LONG_LONG, 1, 0, MPI_NO_OP, win);
          MPI_Win_flush(1, win);
          if (back != l->counter) fail(l, "accumulate", back, l->counter);
        }
        break;
      case OP_FOP:
        MPI_Fetch_and_op(&one, &result, MPI_LONG_LONG, 1, 0, MPI_SUM, win);
        MPI_Win_flush(1, win);
        if (check && result != l->counter) fail(l, "fetch_and_op", result, l->counter);
        ++l->counter;
        break;
      default: {
        const long long next = l->counter + 1;
        MPI_Compare_and_swap(&next, &l->counter, &result, MPI_LONG_LONG, 1, 0, win);
        MPI_Win_flush(1, win);
        if (check && result != l->counter) fail(l, "compare_and_swap", result, l->counter);
        l->counter = next;
        break;
      }
    }
  }
  return MPI_Wtime() - t0;
}

static double lat_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters * 1e6;
}

int main(int argc, char **argv) {
  struct lat l = {.flavors = {1, 1}};
  struct ku_kernel k = {.name = "rma_latency",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "8",
                        .quick_sizes = "8",
                        .exact_ranks = 2,
                        .extra = lat_option,
                        .extra_ctx = &l,
                        .extra_usage = "--flavors allocate,create"};
  ku_init(&argc, &argv, &k);
  l.k = &k;
  /* Both windows at once, operation by operation (compare_and_swap last,
   * on the create window first): an MPI that fails one operation still
   * measures the others. */
  struct rma_window windows[RMA_FLAVORS];
  long long counters[RMA_FLAVORS] = {0, 0};
  for (int f = 0; f < RMA_FLAVORS; ++f) {
    if (!l.flavors[f]) continue;
    rma_window_open(&k, &windows[f], f, 4 * SLOT);
    if (k.rank == 1) ((long long *)(void *)(windows[f].base + 2 * SLOT))[0] = 424242;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int f = 0; f < RMA_FLAVORS; ++f) {
    if (l.flavors[f] && k.rank == 0) MPI_Win_lock_all(0, windows[f].win);
  }
  for (int o = 0; o < OP_COUNT; ++o) {
    for (int i = 0; i < RMA_FLAVORS; ++i) {
      const int f = o == OP_CAS ? RMA_FLAVORS - 1 - i : i;
      if (!l.flavors[f]) continue;
      char name[64];
      l.op = o;
      l.w = windows[f];
      l.counter = counters[f];
      ku_measure(&k, rma_op_name(name, sizeof name, f, op_names[o]), 8, lat_step, lat_us, &l);
      counters[f] = l.counter;
    }
  }
  for (int f = 0; f < RMA_FLAVORS; ++f) {
    if (!l.flavors[f]) continue;
    if (k.rank == 0) MPI_Win_unlock_all(windows[f].win);
    rma_window_close(&windows[f]);
  }
  return ku_finish(&k);
}
