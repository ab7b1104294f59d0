/*
 * OpenSHMEM collectives kernel: the time of shmem_barrier_all, a broadcast
 * and a sum reduction of longs over all PEs, at whatever number of PEs it is
 * started with (more PEs than cores included), in us per operation (lower is
 * better). Each batch starts after a shmem_barrier_all and counts as long as
 * its slowest PE took. Sizes are bytes per PE, rounded down to whole longs
 * (a size below 8 is skipped): the message of the broadcast, the vector of
 * the reduction. The root of the
 * broadcast moves to the next PE at every call, as the collectives kernel's
 * (so that no root runs ahead of the others call after call).
 *   barrier_all  shmem_barrier_all
 *   broadcast    OpenSHMEM 1.5: shmem_broadcastmem on SHMEM_TEAM_WORLD;
 *                1.4: shmem_broadcast64 on the active set of all PEs
 *   sum_reduce   1.5: shmem_long_sum_reduce on SHMEM_TEAM_WORLD;
 *                1.4: shmem_long_sum_to_all on all PEs
 * The 1.4 forms take turns between two pSync arrays, as that standard asks
 * of back-to-back calls. See kernel_core.h for the measurement and output.
 *   kernel_shmem_collectives [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST]
 * --ops: some of barrier_all,broadcast,sum_reduce (all by default).
 * --check verifies every byte each PE received and every sum.
 */
#include "shmem_util.h"

enum op { OP_BARRIER_ALL, OP_BROADCAST, OP_SUM_REDUCE, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"barrier_all", "broadcast", "sum_reduce"};

#if !KU_SHMEM_1_5
enum {
  SYNC_LONGS = SHMEM_BCAST_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE ? SHMEM_BCAST_SYNC_SIZE : SHMEM_REDUCE_SYNC_SIZE
};
#endif

struct coll {
  struct ku_kernel *k;
  int selected[OP_COUNT];
  enum op op;
  unsigned char *source, *dest; /* symmetric */
  long *psync;                  /* 1.4: two arrays of SYNC_LONGS */
  long *pwrk;                   /* 1.4: the reduction's work array */
  long seq;                     /* calls so far: the root, the patterns, the pSync */
};

static int coll_option(void *ctx, const char *arg, const char *value) {
  struct coll *c = ctx;
  if (strcmp(arg, "--ops") != 0) return 0;
  return ku_select_ops(value, op_names, OP_COUNT, c->selected);
}

/* Element i of PE r's input to reduction `seq`. */
static long reduce_input(long seq, int r, long i) {
  return (seq * 3 + r + i) % 1000;
}

static int root_of(const struct coll *c) {
  return (int)(c->seq % c->k->size);
}

static void prepare(struct coll *c, long bytes) {
  if (c->op == OP_BROADCAST) {
    if (c->k->rank == root_of(c)) ku_fill(c->source, bytes, c->seq, c->k->rank);
  } else if (c->op == OP_SUM_REDUCE) {
    long *in = (long *)(void *)c->source;
    for (long i = 0; i < bytes / (long)sizeof(long); ++i) in[i] = reduce_input(c->seq, c->k->rank, i);
  }
}

static void verify(struct coll *c, long bytes) {
  if (c->op == OP_BROADCAST) {
    /* 1.4 leaves the root's dest alone; 1.5 writes it too. */
    if (c->k->rank != root_of(c)) ku_verify(c->k, "broadcast", c->dest, bytes, c->seq, root_of(c));
  } else if (c->op == OP_SUM_REDUCE) {
    const long *out = (const long *)(const void *)c->dest;
    for (long i = 0; i < bytes / (long)sizeof(long); ++i) {
      long expected = 0;
      for (int r = 0; r < c->k->size; ++r) expected += reduce_input(c->seq, r, i);
      if (out[i] != expected) {
        fprintf(stderr, "kernel_shmem_collectives: PE %d: sum_reduce of %ld longs: element %ld is %ld, expected %ld\n",
                c->k->rank, bytes / (long)sizeof(long), i, out[i], expected);
        shmem_global_exit(1);
      }
    }
  }
}

static void run_op(struct coll *c, long bytes) {
  const size_t longs = (size_t)bytes / sizeof(long);
  switch (c->op) {
    case OP_BARRIER_ALL:
      shmem_barrier_all();
      break;
#if KU_SHMEM_1_5
    case OP_BROADCAST:
      shmem_broadcastmem(SHMEM_TEAM_WORLD, c->dest, c->source, (size_t)bytes, root_of(c));
      break;
    case OP_SUM_REDUCE:
      shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)(void *)c->dest, (const long *)(const void *)c->source, longs);
      break;
#else
    case OP_BROADCAST:
      shmem_broadcast64(c->dest, c->source, longs, root_of(c), 0, 0, c->k->size, c->psync + (c->seq & 1) * SYNC_LONGS);
      break;
    case OP_SUM_REDUCE:
      shmem_long_sum_to_all((long *)(void *)c->dest, (long *)(void *)c->source, (int)longs, 0, 0, c->k->size, c->pwrk,
                            c->psync + (c->seq & 1) * SYNC_LONGS);
      break;
#endif
    default:
      break;
  }
}

static double coll_step(void *ctx, long bytes, int iters) {
  struct coll *c = ctx;
  shmem_barrier_all();
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i, ++c->seq) {
    if (c->k->check) prepare(c, bytes);
    run_op(c, bytes);
    if (c->k->check) verify(c, bytes);
  }
  return ku_now() - t0;
}

static double coll_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters * 1e6;
}

int main(int argc, char **argv) {
  struct coll c = {.selected = {1, 1, 1}};
  struct ku_kernel k = {.name = "shmem_collectives",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "8,64,1K,16K,256K,1M",
                        .quick_sizes = "8,4K",
                        .min_ranks = 1,
                        .extra = coll_option,
                        .extra_ctx = &c,
                        .extra_usage = "[--ops barrier_all,broadcast,sum_reduce]"};
  ku_init(&argc, &argv, &k);
  c.k = &k;
  const long largest = ku_max_bytes(&k);
  c.source = ku_shmem_alloc(&k, largest);
  c.dest = ku_shmem_alloc(&k, largest);
#if !KU_SHMEM_1_5
  long work = largest / (long)sizeof(long) / 2 + 1;
  if (work < SHMEM_REDUCE_MIN_WRKDATA_SIZE) work = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
  c.pwrk = (long *)(void *)ku_shmem_alloc(&k, work * (long)sizeof(long));
  c.psync = (long *)(void *)ku_shmem_alloc(&k, 2 * SYNC_LONGS * (long)sizeof(long));
  for (int i = 0; i < 2 * SYNC_LONGS; ++i) c.psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all(); /* every pSync is set before any PE uses one */
#endif
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!c.selected[o]) continue;
    c.op = (enum op)o;
    if (c.op == OP_BARRIER_ALL) {
      ku_measure_combined(&k, op_names[o], -1, coll_step, coll_us, ku_slowest_pe, &c);
      continue;
    }
    for (int s = 0; s < k.nsizes; ++s) {
      const long bytes = k.sizes[s] / (long)sizeof(long) * (long)sizeof(long);
      if (bytes == 0) continue;
      ku_measure_combined(&k, op_names[o], bytes, coll_step, coll_us, ku_slowest_pe, &c);
    }
  }
#if !KU_SHMEM_1_5
  shmem_free(c.psync);
  shmem_free(c.pwrk);
#endif
  shmem_free(c.dest);
  shmem_free(c.source);
  return ku_finish(&k);
}
