/*
 * Bidirectional bandwidth kernel: ranks 0 and 1 each send the other a window
 * of W nonblocking messages at the same time and wait for both directions;
 * the bandwidth is the bytes moved both ways over the time, in MB/s (10^6
 * bytes per second, higher is better). See window.h and kernel_util.h.
 * Plain MPI.
 *   kernel_bibw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--window W]
 * Runs with exactly 2 ranks; W is 64 by default.
 */
#include "window.h"

static double bibw_mbps(void *ctx, long bytes, int iters, double seconds) {
  const struct window *w = ctx;
  return 2.0 * (double)bytes * window_messages(w, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct window w = {.window = WINDOW_DEFAULT};
  struct ku_kernel k = {.name = "bibw",
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
  for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, "-", k.sizes[s], window_exchange, bibw_mbps, &w);
  window_free(&w);
  return ku_finish(&k);
}
