/*
 * patterns.h: the message patterns of the MPF paper's benchmarks (seed 003,
 * section 4), shared by the two kernels that measure them: kernel_patterns
 * (written in plain MPI, so every MPI runs it) and kernel_conversations (the
 * same patterns as MPF conversations, the toolkit only). Plain C99 and MPI.
 *
 *   fcfs       rank 0 hands out `iters` messages of `bytes` to the other
 *              ranks, each to one of them, whoever asks first (a task queue)
 *   broadcast  rank 0 sends `iters` messages of `bytes`; every other rank
 *              receives every one
 *   random     every rank sends `iters` messages of `bytes`, each to a
 *              random other rank, and reads what came for it after each
 *              send, until it has all its messages
 *
 * A batch lasts as long as its slowest rank (pat_slowest); the figure is the
 * bytes delivered per second, all receivers together (MB/s, higher is
 * better): fcfs bytes * iters, broadcast bytes * iters * (ranks - 1), random
 * bytes * iters * ranks. The destinations of `random` come from a generator
 * seeded by the batch and the sender, so that every rank knows how many
 * messages will come for it without being told.
 *
 *   --ops LIST   some of the kernel's operations (all by default)
 * --check fills each batch's messages with the batch's pattern (ku_fill with
 * the batch as the sequence and 0 as the sender) and verifies every byte.
 */
#ifndef MPF_TUNE_PATTERNS_H
#define MPF_TUNE_PATTERNS_H

#include "kernel_util.h"

enum { PAT_MAX_OPS = 8 };

struct patterns {
  struct ku_kernel *k;
  const char *const *names; /* the kernel's operations */
  int count;
  int selected[PAT_MAX_OPS];
  int op;
  unsigned char *send, *recv;
  long batch; /* batches run so far: seeds `random` */
};

static int pat_option(void *ctx, const char *arg, const char *value) {
  struct patterns *p = ctx;
  if (strcmp(arg, "--ops") != 0) return 0;
  return ku_select_ops(value, p->names, p->count, p->selected);
}

/* The next destination of `sender`'s random messages: any rank but itself. */
static inline int pat_next_destination(unsigned long long *state, int sender, int size) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  const int d = (int)(*state % (unsigned long long)(size - 1));
  return d >= sender ? d + 1 : d;
}

static inline unsigned long long pat_seed(long batch, int sender) {
  return 0x9e3779b97f4a7c15ull * (unsigned long long)(batch + 1) + 0xbf58476d1ce4e5b9ull * (unsigned long long)(sender + 1);
}

/* How many of batch `batch`'s random messages come to `me`. */
static inline long pat_expected(int me, int size, int iters, long batch) {
  long count = 0;
  for (int s = 0; s < size; ++s) {
    if (s == me) continue;
    unsigned long long state = pat_seed(batch, s);
    for (int i = 0; i < iters; ++i) count += pat_next_destination(&state, s, size) == me;
  }
  return count;
}

static double pat_slowest(double seconds) {
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* Bytes delivered per second, in MB/s, for the pattern named `name`. */
static double pat_delivered(const struct patterns *p, const char *name, long bytes, int iters, double seconds) {
  double copies = 1;
  if (strcmp(name, "broadcast") == 0) copies = p->k->size - 1;
  if (strcmp(name, "random") == 0) copies = p->k->size;
  return seconds > 0 ? (double)bytes * iters * copies / seconds / 1e6 : 0;
}

#endif
