/*
 * Message-rate kernel: the first half of the ranks each stream windows of W
 * small nonblocking messages to a partner in the second half (rank r to
 * r + N/2), which acknowledges each window; the rate is the messages all
 * pairs deliver per second, in millions (Mmsg/s, higher is better), from
 * rank 0's time. See window.h and kernel_util.h. Plain MPI.
 *   kernel_msgrate [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--window W]
 * Runs with an even number of ranks (2 is one pair); W is 64 by default.
 */
#include "window.h"

static double msgrate_mmps(void *ctx, long bytes, int iters, double seconds) {
  const struct window *w = ctx;
  return (double)(w->k->size / 2) * window_messages(w, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct window w = {.window = WINDOW_DEFAULT};
  struct ku_kernel k = {.name = "msgrate",
                        .unit = "Mmsg/s",
                        .better = KU_HIGHER,
                        .full_sizes = "0,1,8,64,512,4K",
                        .quick_sizes = "8,512",
                        .min_ranks = 2,
                        .even_ranks = 1,
                        .extra = window_option,
                        .extra_ctx = &w,
                        .extra_usage = "--window W"};
  ku_init(&argc, &argv, &k);
  window_setup(&w, &k);
  for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, "-", k.sizes[s], window_stream, msgrate_mmps, &w);
  window_free(&w);
  return ku_finish(&k);
}
