/*
 * Streaming bandwidth kernel: rank 0 sends rank 1 windows of W nonblocking
 * messages (MPI_Isend / MPI_Irecv, then MPI_Waitall), and rank 1
 * acknowledges each window with an empty message; the bandwidth is the
 * bytes of the windows over their time, in MB/s (10^6 bytes per second,
 * higher is better). See window.h for the window and kernel_util.h for the
 * measurement and output. Plain MPI.
 *   kernel_bw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--window W] [--cma]
 * Runs with exactly 2 ranks; W is 64 by default. With --cma each message is
 * one process_vm_readv by its receiver instead of MPI, the machine's
 * single-copy floor on the same buffers (window_cma.h); its lines say op=cma.
 */
#include "window_cma.h"

static double bw_mbps(void *ctx, long bytes, int iters, double seconds) {
  const struct window *w = ctx; /* the first member of struct window_cma */
  return (double)bytes * window_messages(w, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct window_cma c = {.window = {.window = WINDOW_DEFAULT}};
  struct ku_kernel k = {.name = "bw",
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
    ku_measure(&k, c.enabled ? "cma" : "-", k.sizes[s], c.enabled ? window_cma_stream : window_stream,
               bw_mbps, &c);
  }
  window_free(&c.window);
  return ku_finish(&k);
}
