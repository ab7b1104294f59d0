/*
 * OpenSHMEM latency kernel: the time of one remote access to symmetric
 * memory, in us (lower is better).
 *   put            an 8-byte put, as its target sees it: half the round trip
 *                  of a ping-pong in which PE 0 writes a long into PE 1's
 *                  word (shmem_long_p, then shmem_quiet), PE 1 waits for it
 *                  (shmem_long_wait_until) and answers into PE 0's word the
 *                  same way. Not put + quiet alone: a put that completes
 *                  locally says nothing of when its target can see it.
 *   get            PE 0 reads `bytes` of PE 1's memory (shmem_getmem, which
 *                  returns with the data), one get after another, over
 *                  sizes 8 B .. 1 MiB
 *   fetch_add      PE 0 adds 1 to a long of PE 1 and fetches the old value
 *                  (shmem_long_atomic_fetch_add), one after another
 *   fetch_add_all  every PE (PE 0 too) does the same on one long of PE 0 at
 *                  once; a batch lasts as long as its slowest PE
 * put, get and fetch_add run with 2 PEs (PE 1 only waits in get and
 * fetch_add) and are skipped with a comment line at other counts;
 * fetch_add_all runs at every count. The 8-byte operations have no sizes
 * (bytes=-1). Plain OpenSHMEM 1.4: the same source builds against any
 * OpenSHMEM. See kernel_core.h for the measurement and the output.
 *   kernel_shmem_latency [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST]
 * --ops: some of put,get,fetch_add,fetch_add_all (all by default); --sizes
 * are get's. --check verifies every value: each put carries the next number
 * of the sequence, each get PE 1's pattern, each fetch the count of the
 * adds before it, and after each fetch_add_all batch PE 0's word the sum of
 * all adds.
 */
#include "shmem_util.h"

enum { OP_PUT, OP_GET, OP_FETCH_ADD, OP_FETCH_ADD_ALL, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"put", "get", "fetch_add", "fetch_add_all"};

/* The symmetric words, each on a cache line of its own. */
enum { WORD_PING, WORD_PONG, WORD_COUNTER, WORD_TOTAL, WORD_COUNT };
enum { LINE_LONGS = 64 / sizeof(long) };

struct lat {
  struct ku_kernel *k;
  int selected[OP_COUNT];
  int op;
  long *words;           /* symmetric: WORD_COUNT lines */
  unsigned char *remote; /* get: what PE 0 reads of PE 1 (its pattern) */
  unsigned char *local;  /* get: where PE 0 reads it to */
  long seq;              /* put: round trips so far, the value of the next */
  long adds;             /* fetch_add: what PE 1's counter holds */
  long total;            /* fetch_add_all: what PE 0's word holds */
};

static int lat_option(void *ctx, const char *arg, const char *value) {
  struct lat *l = ctx;
  if (strcmp(arg, "--ops") != 0) return 0;
  return ku_select_ops(value, op_names, OP_COUNT, l->selected);
}

static long *word(struct lat *l, int which) {
  return l->words + which * LINE_LONGS;
}

static void value_failed(struct lat *l, const char *what, long got, long expected) {
  fprintf(stderr, "kernel_shmem_latency: PE %d: %s: got %ld, expected %ld\n", l->k->rank, what, got, expected);
  shmem_global_exit(1);
}

/* Waits until `w` moves past `previous`, and checks it moved to `expected`. */
static void wait_for(struct lat *l, long *w, long previous, long expected, const char *what) {
  shmem_long_wait_until(w, SHMEM_CMP_NE, previous);
  if (l->k->check && *(volatile long *)w != expected) value_failed(l, what, *(volatile long *)w, expected);
}

static double put_step(struct lat *l, int iters) {
  long *ping = word(l, WORD_PING), *pong = word(l, WORD_PONG);
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i, ++l->seq) {
    if (l->k->rank == 0) {
      shmem_long_p(ping, l->seq + 1, 1);
      shmem_quiet();
      wait_for(l, pong, l->seq, l->seq + 1, "pong");
    } else {
      wait_for(l, ping, l->seq, l->seq + 1, "ping");
      shmem_long_p(pong, l->seq + 1, 0);
      shmem_quiet();
    }
  }
  return ku_now() - t0;
}

static double get_step(struct lat *l, long bytes, int iters) {
  if (l->k->rank != 0) return 0;
  const int check = l->k->check;
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i) {
    if (check) memset(l->local, 0, (size_t)bytes);
    shmem_getmem(l->local, l->remote, (size_t)bytes, 1);
    if (check) ku_verify(l->k, "get", l->local, bytes, 0, 1);
  }
  return ku_now() - t0;
}

static double fetch_add_step(struct lat *l, int iters) {
  if (l->k->rank != 0) return 0;
  long *counter = word(l, WORD_COUNTER);
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i, ++l->adds) {
    const long old = shmem_long_atomic_fetch_add(counter, 1, 1);
    if (l->k->check && old != l->adds) value_failed(l, "fetch_add", old, l->adds);
  }
  return ku_now() - t0;
}

static double fetch_add_all_step(struct lat *l, int iters) {
  long *total = word(l, WORD_TOTAL);
  shmem_barrier_all();
  const double t0 = ku_now();
  for (int i = 0; i < iters; ++i) (void)shmem_long_atomic_fetch_add(total, 1, 0);
  const double seconds = ku_now() - t0;
  l->total += (long)iters * l->k->size;
  if (l->k->check) {
    shmem_barrier_all(); /* every PE's adds are done */
    if (l->k->rank == 0 && *(volatile long *)total != l->total) {
      value_failed(l, "fetch_add_all total", *(volatile long *)total, l->total);
    }
  }
  return seconds;
}

static double lat_step(void *ctx, long bytes, int iters) {
  struct lat *l = ctx;
  switch (l->op) {
    case OP_PUT:
      return put_step(l, iters);
    case OP_GET:
      return get_step(l, bytes, iters);
    case OP_FETCH_ADD:
      return fetch_add_step(l, iters);
    default:
      return fetch_add_all_step(l, iters);
  }
}

static double lat_us(void *ctx, long bytes, int iters, double seconds) {
  struct lat *l = ctx;
  (void)bytes;
  return seconds / iters * 1e6 / (l->op == OP_PUT ? 2 : 1);
}

int main(int argc, char **argv) {
  struct lat l = {.selected = {1, 1, 1, 1}};
  struct ku_kernel k = {.name = "shmem_latency",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "8,64,512,4K,32K,256K,1M",
                        .quick_sizes = "8,4K",
                        .min_ranks = 2,
                        .extra = lat_option,
                        .extra_ctx = &l,
                        .extra_usage = "[--ops put,get,fetch_add,fetch_add_all]"};
  ku_init(&argc, &argv, &k);
  l.k = &k;
  const long largest = ku_max_bytes(&k);
  l.words = (long *)(void *)ku_shmem_alloc(&k, (long)(WORD_COUNT * LINE_LONGS * sizeof(long)));
  l.remote = ku_shmem_alloc(&k, largest);
  l.local = ku_shmem_alloc(&k, largest);
  if (k.rank == 1) ku_fill(l.remote, largest, 0, 1);
  shmem_barrier_all(); /* PE 1's pattern is there before PE 0 reads it */
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!l.selected[o]) continue;
    if (o != OP_FETCH_ADD_ALL && k.size != 2) {
      if (k.rank == 0) printf("# %s runs with 2 PEs, not %d\n", op_names[o], k.size);
      continue;
    }
    l.op = o;
    if (o != OP_GET) {
      ku_measure_combined(&k, op_names[o], -1, lat_step, lat_us, o == OP_FETCH_ADD_ALL ? ku_slowest_pe : NULL, &l);
      continue;
    }
    for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, op_names[o], k.sizes[s], lat_step, lat_us, &l);
  }
  shmem_free(l.local);
  shmem_free(l.remote);
  shmem_free(l.words);
  return ku_finish(&k);
}
