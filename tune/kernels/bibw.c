/*
 * Bidirectional bandwidth kernel: ranks 0 and 1 each send the other a window
 * of W nonblocking messages at the same time and wait for both directions;
 * the bandwidth is the bytes moved both ways over the time, in MB/s (10^6
 * bytes per second, higher is better). See window.h and kernel_util.h.
 * Plain MPI.
 *   kernel_bibw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--window W] [--cma]
 * Runs with exactly 2 ranks; W is 64 by default. With --cma each message is
 * one process_vm_readv by its receiver instead of MPI, the machine's
 * single-copy floor on the same buffers (window_cma.h); its lines say op=cma.
 */
#include "window_cma.h"

static double bibw_mbps(void *ctx, long bytes, int iters, double seconds) {
  const struct window *w = ctx; /* the first member of struct window_cma */
  return 2.0 * (double)bytes * window_messages(w, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct window_cma c = {.window = {.window = WINDOW_DEFAULT}};
  struct ku_kernel k = {.name = "bibw",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "1,4,16,64,256,1K,4K,16K,64K,256K,1M,4M",
                        .quick_sizes = "1K,64K,1M",
                        .exact_ranks = 2,
                        .extra = window_cma_option,
                        .extra_ctx = &c,
                        .extra_usage = "--window W --cma"};
  ku_init(&argc, &argv, &k);
  window_cma_setup(&c, &k);
  for (int s = 0; s < k.nsizes; ++s) {
    ku_measure(&k, c.enabled ? "cma" : "-", k.sizes[s], c.enabled ? window_cma_exchange : window_exchange,
               bibw_mbps, &c);
  }
  window_free(&c.window);
  return ku_finish(&k);
}
