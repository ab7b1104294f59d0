/*
 * Ping-pong kernel: half the round-trip time of a blocking MPI_Send /
 * MPI_Recv exchange between ranks 0 and 1, over sizes 0 B .. 4 MiB: the
 * latency a message of that size sees. Plain MPI: the same source builds
 * against any MPI implementation, so `mpftune bench --compare` runs it
 * side by side with other MPIs.
 *   kernel_pingpong [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST]
 * Runs with exactly 2 ranks. Output and measurement: see kernel_util.h
 * (unit us, lower is better). --check gives every message its own byte
 * pattern and verifies every byte on both sides.
 */
#include "kernel_util.h"

struct pingpong {
  struct ku_kernel *k;
  unsigned char *buf;
  long seq; /* message number: each message of a --check run has its own pattern */
};

static double pingpong_step(void *ctx, long bytes, int iters) {
  struct pingpong *p = ctx;
  const int check = p->k->check;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++p->seq) {
    if (p->k->rank == 0) {
      if (check) ku_fill(p->buf, bytes, p->seq, 0);
      MPI_Send(p->buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(p->buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (check) ku_verify(p->k, "pong", p->buf, bytes, p->seq, 1);
    } else {
      MPI_Recv(p->buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (check) {
        ku_verify(p->k, "ping", p->buf, bytes, p->seq, 0);
        ku_fill(p->buf, bytes, p->seq, 1);
      }
      MPI_Send(p->buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static double pingpong_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters / 2 * 1e6;
}

int main(int argc, char **argv) {
  struct ku_kernel k = {.name = "pingpong",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "0,1,4,16,64,256,1K,4K,16K,64K,256K,1M,4M",
                        .quick_sizes = "0,1K,64K",
                        .exact_ranks = 2};
  ku_init(&argc, &argv, &k);
  struct pingpong p = {.k = &k, .buf = ku_alloc(&k, ku_max_bytes(&k))};
  for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, "-", k.sizes[s], pingpong_step, pingpong_us, &p);
  free(p.buf);
  return ku_finish(&k);
}
