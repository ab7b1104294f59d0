/*
 * One-sided synchronization kernel: what opening and closing an epoch
 * costs, with no data moved, at whatever number of ranks it is started
 * with (more ranks than cores included), on an MPI_Win_allocate window:
 *   fence  MPI_Win_fence(0), as between two epochs of a bulk-synchronous program
 *   pscw   MPI_Win_post and MPI_Win_start to both ring neighbours, then
 *          MPI_Win_complete and MPI_Win_wait
 *   lock   MPI_Win_lock (exclusive) and MPI_Win_unlock at the next rank,
 *          with one 8-byte put in between (every rank at once: each lock
 *          is contended by one other origin)
 * A batch counts as long as its slowest rank took; the figure is the time
 * per epoch in us (lower is better). Plain MPI-3.
 *   kernel_rma_sync [--check] [--quick] [--reps N] [--rep-ms MS] [--ops fence,pscw,lock]
 * --check: the lock op's puts carry a count the next rank reads back at the end.
 */
#include "kernel_util.h"

enum { OP_FENCE, OP_PSCW, OP_LOCK, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"fence", "pscw", "lock"};

struct sync {
  struct ku_kernel *k;
  int selected[OP_COUNT];
  int op;
  MPI_Win win;
  long long *base;
  MPI_Group neighbours;
  long long puts;
};

static int sync_option(void *ctx, const char *arg, const char *value) {
  struct sync *s = ctx;
  if (strcmp(arg, "--ops") != 0) return 0;
  return ku_select_ops(value, op_names, OP_COUNT, s->selected);
}

static double sync_step(void *ctx, long bytes, int iters) {
  struct sync *s = ctx;
  (void)bytes;
  const int next = (s->k->rank + 1) % s->k->size;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    switch (s->op) {
      case OP_FENCE:
        MPI_Win_fence(0, s->win);
        break;
      case OP_PSCW:
        MPI_Win_post(s->neighbours, 0, s->win);
        MPI_Win_start(s->neighbours, 0, s->win);
        MPI_Win_complete(s->win);
        MPI_Win_wait(s->win);
        break;
      default: {
        const long long count = ++s->puts;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, s->win);
        MPI_Put(&count, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, s->win);
        MPI_Win_unlock(next, s->win);
        break;
      }
    }
  }
  return MPI_Wtime() - t0;
}

static double slowest_rank(double seconds) {
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static double sync_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters * 1e6;
}

int main(int argc, char **argv) {
  struct sync s = {.selected = {1, 1, 1}};
  struct ku_kernel k = {.name = "rma_sync",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "",
                        .quick_sizes = "",
                        .min_ranks = 2,
                        .extra = sync_option,
                        .extra_ctx = &s,
                        .extra_usage = "--ops fence,pscw,lock"};
  ku_init(&argc, &argv, &k);
  s.k = &k;
  MPI_Win_allocate(sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &s.base, &s.win);
  *s.base = 0;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ring[2] = {(k.rank + 1) % k.size, (k.rank + k.size - 1) % k.size};
  MPI_Group_incl(world, ring[0] == ring[1] ? 1 : 2, ring, &s.neighbours);
  MPI_Group_free(&world);
  MPI_Win_fence(MPI_MODE_NOPRECEDE, s.win);
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!s.selected[o]) continue;
    s.op = o;
    /* The lock op is passive target: close the fence epoch first. */
    if (o == OP_LOCK) MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win);
    ku_measure_combined(&k, op_names[o], -1, sync_step, sync_us, slowest_rank, &s);
    if (o == OP_LOCK) MPI_Win_fence(MPI_MODE_NOPRECEDE, s.win);
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, s.win);
  if (k.check && s.selected[OP_LOCK]) {
    /* The previous rank's last put is its count of puts: every rank made as many. */
    if (*s.base != s.puts) {
      fprintf(stderr, "kernel_rma_sync: rank %d holds %lld, its neighbour put %lld times\n", k.rank, *s.base, s.puts);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Group_free(&s.neighbours);
  MPI_Win_free(&s.win);
  return ku_finish(&k);
}
