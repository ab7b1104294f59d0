/*
 * One-sided bandwidth kernel: rank 0 puts (or gets) a window of messages of
 * one size to (from) rank 1's memory, each in its own part, then completes
 * them with MPI_Win_flush, inside one MPI_Win_lock_all epoch; on a window
 * from MPI_Win_allocate and on one from MPI_Win_create (rma_window.h). The
 * window holds 16 messages, fewer where 16 would pass 64 MiB (4 MiB: 16).
 * Ops are "<flavor>.put" and "<flavor>.get". Plain MPI-3.
 *   kernel_rma_bw [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--flavors allocate,create]
 * Exactly 2 ranks; unit MB/s (10^6 bytes per second), higher is better.
 * --check gives every message its own pattern: puts are read back; gets
 * read a pattern laid by a put before the timed batch.
 */
#include "rma_window.h"

enum { BW_WINDOW = 16, BW_POOL = 64 << 20 };

struct bw {
  struct ku_kernel *k;
  int flavors[RMA_FLAVORS];
  struct rma_window w;
  int get;
  unsigned char *local;
  long seq;
};

static int bw_option(void *ctx, const char *arg, const char *value) {
  struct bw *b = ctx;
  return rma_flavor_option(b->flavors, arg, value);
}

static int messages(long bytes) {
  const long fit = bytes > 0 ? BW_POOL / bytes : BW_WINDOW;
  return fit < BW_WINDOW ? (int)fit : BW_WINDOW;
}

static double bw_step(void *ctx, long bytes, int iters) {
  struct bw *b = ctx;
  if (b->k->rank != 0) return 0;
  const int n = messages(bytes);
  if (b->get && b->k->check) {
    /* What the gets will read: part m's own pattern, laid by a put. */
    for (int m = 0; m < n; ++m) ku_fill(b->local + (long)m * bytes, bytes, 0, m);
    MPI_Put(b->local, (int)(n * bytes), MPI_BYTE, 1, 0, (int)(n * bytes), MPI_BYTE, b->w.win);
    MPI_Win_flush(1, b->w.win);
    memset(b->local, 0, (size_t)(n * bytes));
  }
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++b->seq) {
    for (int m = 0; m < n; ++m) {
      unsigned char *part = b->local + (long)m * bytes;
      if (b->get) {
        MPI_Get(part, (int)bytes, MPI_BYTE, 1, (MPI_Aint)m * bytes, (int)bytes, MPI_BYTE, b->w.win);
      } else {
        if (b->k->check) ku_fill(part, bytes, b->seq, m);
        MPI_Put(part, (int)bytes, MPI_BYTE, 1, (MPI_Aint)m * bytes, (int)bytes, MPI_BYTE, b->w.win);
      }
    }
    MPI_Win_flush(1, b->w.win);
    if (b->k->check) {
      if (!b->get) {
        memset(b->local, 0, (size_t)(n * bytes));
        MPI_Get(b->local, (int)(n * bytes), MPI_BYTE, 1, 0, (int)(n * bytes), MPI_BYTE, b->w.win);
        MPI_Win_flush(1, b->w.win);
      }
      for (int m = 0; m < n; ++m) {
        ku_verify(b->k, b->get ? "get" : "put read back", b->local + (long)m * bytes, bytes, b->get ? 0 : b->seq, m);
      }
    }
  }
  return MPI_Wtime() - t0;
}

static double bw_mbs(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  return (double)bytes * messages(bytes) * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  struct bw b = {.flavors = {1, 1}};
  struct ku_kernel k = {.name = "rma_bw",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "8,64,1K,16K,64K,256K,1M,4M",
                        .quick_sizes = "1K,1M",
                        .exact_ranks = 2,
                        .extra = bw_option,
                        .extra_ctx = &b,
                        .extra_usage = "--flavors allocate,create"};
  ku_init(&argc, &argv, &k);
  b.k = &k;
  long pool = 0;
  for (int s = 0; s < k.nsizes; ++s) {
    const long need = k.sizes[s] * messages(k.sizes[s]);
    if (need > pool) pool = need;
  }
  if (pool == 0) pool = 64;
  b.local = ku_alloc(&k, pool);
  for (int f = 0; f < RMA_FLAVORS; ++f) {
    if (!b.flavors[f]) continue;
    rma_window_open(&k, &b.w, f, pool);
    if (k.rank == 0) MPI_Win_lock_all(0, b.w.win);
    for (int get = 0; get < 2; ++get) {
      b.get = get;
      for (int s = 0; s < k.nsizes; ++s) {
        char name[64];
        ku_measure(&k, rma_op_name(name, sizeof name, f, get ? "get" : "put"), k.sizes[s], bw_step, bw_mbs, &b);
      }
    }
    if (k.rank == 0) MPI_Win_unlock_all(b.w.win);
    rma_window_close(&b.w);
  }
  free(b.local);
  return ku_finish(&k);
}
