/*
 * Streaming bandwidth kernel: rank 0 sends rank 1 windows of W nonblocking
 * messages (MPI_Isend / MPI_Irecv, then MPI_Waitall), and rank 1
 * acknowledges each window with an empty message; the bandwidth is the
 * bytes of the windows over their time, in MB/s (10^6 bytes per second,
 * higher is better). See window.h for the window and kernel_util.h for the
 * measurement and output. Plain MPI.
 *   kernel_bw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--window W]
 * Runs with exactly 2 ranks; W is 64 by default.
 */
#include "window.h"

static double bw_mbps(void *ctx, long bytes, int iters, double seconds) {
  const struct window *w = ctx;
  return (double)bytes * window_messages(w, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct window w = {.window = WINDOW_DEFAULT};
  struct ku_kernel k = {.name = "bw",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "1,4,16,64,256,1K,4K,16K,64K,256K,1M,4M",
                        .quick_sizes = "1K,64K,1M",
                        .exact_ranks = 2,
                        .extra = window_option,
                        .extra_ctx = &w,
                        .extra_usage = "--window W"};
  ku_init(&argc, &argv, &k);
  window_setup(&w, &k);
  for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, "-", k.sizes[s], window_stream, bw_mbps, &w);
  window_free(&w);
  return ku_finish(&k);
}
