/*
 * Token-ring kernel: a token (one int) goes round all ranks, rank 0 to 1 to
 * ... to N-1 and back to 0; the figure is the time per hop, in us (lower is
 * better). With more ranks than CPUs it measures how fast a waiting rank is
 * woken. Every rank adds one to the token, so rank 0 checks after each batch
 * that it went round every rank of every round (always, not only under
 * --check). See kernel_util.h (the kernel has no sizes: bytes=-1). Plain MPI.
 *   kernel_token_ring [--check] [--quick] [--reps N] [--rep-ms MS]
 * Runs with 2 ranks or more.
 */
#include "kernel_util.h"

struct ring {
  struct ku_kernel *k;
  long token;
};

static double ring_step(void *ctx, long bytes, int iters) {
  (void)bytes;
  struct ring *r = ctx;
  const int rank = r->k->rank, size = r->k->size;
  const long start = r->token;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    if (rank == 0) {
      ++r->token;
      MPI_Send(&r->token, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(&r->token, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&r->token, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ++r->token;
      MPI_Send(&r->token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
    }
  }
  const double seconds = MPI_Wtime() - t0;
  if (rank == 0 && r->token != start + (long)iters * size) {
    fprintf(stderr, "kernel_token_ring: the token is %ld after %d rounds of %d ranks, expected %ld\n", r->token, iters,
            size, start + (long)iters * size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return seconds;
}

static double ring_us_per_hop(void *ctx, long bytes, int iters, double seconds) {
  (void)bytes;
  return seconds / iters / ((struct ring *)ctx)->k->size * 1e6;
}

int main(int argc, char **argv) {
  struct ku_kernel k = {.name = "token_ring", .unit = "us", .better = KU_LOWER, .full_sizes = "", .quick_sizes = "",
                        .min_ranks = 2};
  ku_init(&argc, &argv, &k);
  struct ring r = {.k = &k, .token = 0};
  ku_measure(&k, "-", -1, ring_step, ring_us_per_hop, &r);
  return ku_finish(&k);
}
