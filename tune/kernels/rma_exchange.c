/*
 * Exchange kernel (seed 001 §5): each rank i supplies a block to ranks
 * i+1 .. i+n and takes one from ranks i-1 .. i-n (mod p), written seven
 * ways, on windows from MPI_Win_allocate (shared memory on a node) and
 * MPI_Win_create (process memory):
 *   put_fence  get_fence   MPI_Put / MPI_Get between two MPI_Win_fence
 *   put_pscw   get_pscw    the same between post/start and complete/wait
 *   put_lock   get_lock    each target locked exclusively in turn
 *   sendrecv               MPI_Sendrecv, no window (named under each flavor)
 * so users can see when one-sided communication pays off against
 * point-to-point (in the seed, Put-Fence matched Sendrecv from 64 KiB with
 * 8 ranks and 8 neighbours). Sizes are bytes per block; a size whose n
 * blocks pass 8 MiB is skipped. A batch counts as long as its slowest
 * rank; the figure is the time of one exchange in us (lower is better).
 * Ops are "<flavor>.<variant>". Plain MPI-3.
 *   kernel_rma_exchange [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--neighbours N]
 *                       [--flavors allocate,create]
 * n is --neighbours (default 8), at most the number of ranks. --check gives
 * every block its own pattern and verifies every block taken.
 */
#include "rma_window.h"

enum { V_PUT_FENCE, V_GET_FENCE, V_PUT_PSCW, V_GET_PSCW, V_PUT_LOCK, V_GET_LOCK, V_SENDRECV, V_COUNT };
static const char *const variant_names[V_COUNT] = {"put_fence", "get_fence", "put_pscw", "get_pscw",
                                                   "put_lock",  "get_lock",  "sendrecv"};
enum { EX_MAX_BLOCKS = 8 << 20, EX_TAG = 17 };

struct exchange {
  struct ku_kernel *k;
  int flavors[RMA_FLAVORS];
  int neighbours;
  int variant;
  struct rma_window w;  /* [n incoming blocks][n outgoing blocks] */
  unsigned char *local; /* n blocks: what gets bring, what sendrecv receives */
  MPI_Group targets, origins;
  long seq;
};

static int ex_option(void *ctx, const char *arg, const char *value) {
  struct exchange *e = ctx;
  if (strcmp(arg, "--neighbours") == 0) {
    if (value == NULL) return -1;
    e->neighbours = (int)ku_parse_long(value, 1, 1024);
    return e->neighbours < 1 ? -1 : 2;
  }
  return rma_flavor_option(e->flavors, arg, value);
}

static int to(const struct exchange *e, int j) { return (e->k->rank + j) % e->k->size; }
static int from(const struct exchange *e, int j) { return (e->k->rank - j % e->k->size + e->k->size) % e->k->size; }

/* The group of ranks i+1..i+n (sign 1) or i-1..i-n (sign -1), without repeats. */
static MPI_Group ring_group(const struct exchange *e, int sign) {
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ranks[1024], count = 0;
  char *seen = calloc((size_t)e->k->size, 1);
  for (int j = 1; j <= e->neighbours; ++j) {
    const int r = sign > 0 ? to(e, j) : from(e, j);
    if (!seen[r]) ranks[count++] = r;
    seen[r] = 1;
  }
  free(seen);
  MPI_Group_incl(world, count, ranks, &g);
  MPI_Group_free(&world);
  return g;
}

static unsigned char *outgoing(struct exchange *e, long bytes, int j) {
  return e->w.base + (long)(e->neighbours + j - 1) * bytes;
}

static void exchange_once(struct exchange *e, long bytes) {
  const int n = e->neighbours, v = e->variant;
  MPI_Win win = e->w.win;
  const int put = v == V_PUT_FENCE || v == V_PUT_PSCW || v == V_PUT_LOCK;
  if (v == V_SENDRECV) {
    for (int j = 1; j <= n; ++j) {
      MPI_Sendrecv(outgoing(e, bytes, j), (int)bytes, MPI_BYTE, to(e, j), EX_TAG, e->local + (long)(j - 1) * bytes,
                   (int)bytes, MPI_BYTE, from(e, j), EX_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return;
  }
  if (v == V_PUT_PSCW) {
    MPI_Win_post(e->origins, 0, win);
    MPI_Win_start(e->targets, 0, win);
  } else if (v == V_GET_PSCW) {
    MPI_Win_post(e->targets, 0, win);
    MPI_Win_start(e->origins, 0, win);
  }
  for (int j = 1; j <= n; ++j) {
    /* Block j goes to slot j-1 of rank i+j; a get takes slot j-1 of rank i-j's outgoing blocks. */
    const int peer = put ? to(e, j) : from(e, j);
    if (v == V_PUT_LOCK || v == V_GET_LOCK) MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win);
    if (put) {
      MPI_Put(outgoing(e, bytes, j), (int)bytes, MPI_BYTE, peer, (MPI_Aint)(j - 1) * bytes, (int)bytes, MPI_BYTE, win);
    } else {
      MPI_Get(e->local + (long)(j - 1) * bytes, (int)bytes, MPI_BYTE, peer, (MPI_Aint)(n + j - 1) * bytes, (int)bytes,
              MPI_BYTE, win);
    }
    if (v == V_PUT_LOCK || v == V_GET_LOCK) MPI_Win_unlock(peer, win);
  }
  if (v == V_PUT_FENCE || v == V_GET_FENCE) MPI_Win_fence(0, win);
  if (v == V_PUT_PSCW || v == V_GET_PSCW) {
    MPI_Win_complete(win);
    MPI_Win_wait(win);
  }
}

static double ex_step(void *ctx, long bytes, int iters) {
  struct exchange *e = ctx;
  const int n = e->neighbours;
  const int put = e->variant == V_PUT_FENCE || e->variant == V_PUT_PSCW || e->variant == V_PUT_LOCK;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++e->seq) {
    if (e->k->check) {
      for (int j = 1; j <= n; ++j) ku_fill(outgoing(e, bytes, j), bytes, e->seq, e->k->rank * 1024 + j);
      /* Lock epochs end at the origin: everyone's blocks are out before anyone reads. */
      MPI_Barrier(MPI_COMM_WORLD);
    }
    exchange_once(e, bytes);
    if (e->k->check) {
      MPI_Barrier(MPI_COMM_WORLD);
      for (int j = 1; j <= n; ++j) {
        const unsigned char *got = put ? e->w.base + (long)(j - 1) * bytes : e->local + (long)(j - 1) * bytes;
        ku_verify(e->k, variant_names[e->variant], got, bytes, e->seq, from(e, j) * 1024 + j);
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static double slowest_rank(double seconds) {
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static double ex_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters * 1e6;
}

int main(int argc, char **argv) {
  struct exchange e = {.flavors = {1, 1}, .neighbours = 8};
  struct ku_kernel k = {.name = "rma_exchange",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "1K,16K,64K,256K,1M",
                        .quick_sizes = "1K,64K",
                        .min_ranks = 2,
                        .extra = ex_option,
                        .extra_ctx = &e,
                        .extra_usage = "--neighbours N --flavors allocate,create"};
  ku_init(&argc, &argv, &k);
  e.k = &k;
  if (e.neighbours > k.size) e.neighbours = k.size;
  const int n = e.neighbours;
  long largest = 0;
  for (int s = 0; s < k.nsizes; ++s) {
    if (k.sizes[s] * n <= EX_MAX_BLOCKS && k.sizes[s] > largest) largest = k.sizes[s];
  }
  if (largest == 0) largest = 1;
  e.local = ku_alloc(&k, largest * n);
  e.targets = ring_group(&e, 1);
  e.origins = ring_group(&e, -1);
  for (int f = 0; f < RMA_FLAVORS; ++f) {
    if (!e.flavors[f]) continue;
    rma_window_open(&k, &e.w, f, 2 * largest * n);
    for (int v = 0; v < V_COUNT; ++v) {
      e.variant = v;
      /* Fence variants: one fence closes each exchange's epoch and opens
       * the next's; the first opens, the last closes without a successor. */
      const int fence = v == V_PUT_FENCE || v == V_GET_FENCE;
      if (fence) MPI_Win_fence(MPI_MODE_NOPRECEDE, e.w.win);
      for (int s = 0; s < k.nsizes; ++s) {
        char name[64];
        if (k.sizes[s] * n > EX_MAX_BLOCKS) {
          if (k.rank == 0 && v == 0) printf("# %ld-byte blocks x %d neighbours pass 8 MiB; skipped\n", k.sizes[s], n);
          continue;
        }
        ku_measure_combined(&k, rma_op_name(name, sizeof name, f, variant_names[v]), k.sizes[s], ex_step, ex_us,
                            slowest_rank, &e);
      }
      if (fence) MPI_Win_fence(MPI_MODE_NOSUCCEED, e.w.win);
    }
    rma_window_close(&e.w);
  }
  MPI_Group_free(&e.targets);
  MPI_Group_free(&e.origins);
  free(e.local);
  return ku_finish(&k);
}
