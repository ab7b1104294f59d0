/*
 * OpenSHMEM bandwidth kernel: PE 0 streams windows of W nonblocking puts
 * (shmem_putmem_nbi) of one size into PE 1's symmetric memory, each window
 * completed by shmem_quiet (op put), or windows of W nonblocking gets
 * (shmem_getmem_nbi) from it (op get). The bandwidth is the bytes of the
 * windows over their time, in MB/s (10^6 bytes per second, higher is
 * better). Every operation of a window moves between the same two buffers
 * (a put's source is not to be changed before the quiet, nor a get's
 * destination read), so the figure is the rate at which the library moves
 * data, not a rate of distinct memory. W is 64, fewer for messages over
 * 1 MiB so that a window moves at most 64 MiB (16 of 4 MiB), as the bw
 * kernel's window. PE 1 only waits. Plain OpenSHMEM 1.4: the same source
 * builds against any OpenSHMEM. See kernel_core.h for the measurement and
 * the output.
 *   kernel_shmem_bw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST] [--window W]
 * Runs with exactly 2 PEs. --ops: put, get or both (the default). --check
 * gives each window of puts its own pattern and reads it back after the
 * quiet; each window of gets reads PE 1's pattern into a cleared buffer.
 */
#include "shmem_util.h"

enum { OP_PUT, OP_GET, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"put", "get"};
enum { WINDOW_DEFAULT = 64, WINDOW_MAX = 1024, WINDOW_BYTES = 64 << 20 };

struct bw {
  struct ku_kernel *k;
  int selected[OP_COUNT];
  int op;
  int window;            /* --window: operations per quiet */
  unsigned char *source; /* put: PE 0's; get: PE 1's, its pattern */
  unsigned char *target; /* put: PE 1's; get: PE 0's */
  unsigned char *back;   /* --check of put: the target read back (private) */
  long seq;              /* put windows so far: their patterns */
};

static int bw_option(void *ctx, const char *arg, const char *value) {
  struct bw *b = ctx;
  if (strcmp(arg, "--ops") == 0) return ku_select_ops(value, op_names, OP_COUNT, b->selected);
  if (strcmp(arg, "--window") != 0) return 0;
  const long w = value ? ku_parse_long(value, 1, WINDOW_MAX) : 0;
  if (w < 1) return -1;
  b->window = (int)w;
  return 2;
}

/* Operations per window at this size. */
static int window_of(const struct bw *b, long bytes) {
  const long fit = bytes > 0 ? WINDOW_BYTES / bytes : b->window;
  return fit < b->window ? (int)(fit > 0 ? fit : 1) : b->window;
}

static double bw_step(void *ctx, long bytes, int iters) {
  struct bw *b = ctx;
  if (b->k->rank != 0) return 0;
  const int n = window_of(b, bytes), check = b->k->check;
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i) {
    if (b->op == OP_PUT) {
      if (check) ku_fill(b->source, bytes, ++b->seq, 0);
      for (int m = 0; m < n; ++m) shmem_putmem_nbi(b->target, b->source, (size_t)bytes, 1);
      shmem_quiet();
      if (check) {
        shmem_getmem(b->back, b->target, (size_t)bytes, 1);
        ku_verify(b->k, "put read back", b->back, bytes, b->seq, 0);
      }
    } else {
      if (check) memset(b->target, 0, (size_t)bytes);
      for (int m = 0; m < n; ++m) shmem_getmem_nbi(b->target, b->source, (size_t)bytes, 1);
      shmem_quiet();
      if (check) ku_verify(b->k, "get", b->target, bytes, 0, 1);
    }
  }
  return ku_now() - t0;
}

static double bw_mbps(void *ctx, long bytes, int iters, double seconds) {
  const struct bw *b = ctx;
  return (double)bytes * window_of(b, bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct bw b = {.selected = {1, 1}, .window = WINDOW_DEFAULT};
  struct ku_kernel k = {.name = "shmem_bw",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "8,64,512,4K,16K,64K,256K,1M,4M",
                        .quick_sizes = "8,4K,1M",
                        .exact_ranks = 2,
                        .extra = bw_option,
                        .extra_ctx = &b,
                        .extra_usage = "[--ops put,get] [--window W]"};
  ku_init(&argc, &argv, &k);
  b.k = &k;
  const long largest = ku_max_bytes(&k);
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!b.selected[o]) continue;
    b.op = o;
    /* Each op its own buffers: a get's source holds PE 1's pattern. */
    b.source = ku_shmem_alloc(&k, largest);
    b.target = ku_shmem_alloc(&k, largest);
    b.back = ku_alloc(&k, largest);
    if (o == OP_GET && k.rank == 1) ku_fill(b.source, largest, 0, 1);
    shmem_barrier_all(); /* PE 1's pattern is there before PE 0 reads it */
    for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, op_names[o], k.sizes[s], bw_step, bw_mbps, &b);
    free(b.back);
    shmem_free(b.target);
    shmem_free(b.source);
  }
  return ku_finish(&k);
}
