/*
 * Conversations kernel: MPF conversations (mpf.h), the toolkit only. The MPF
 * paper's benchmarks (seed 003, section 4), beside one memcpy as the anchor:
 *   memcpy     one copy of `bytes` from a buffer to another (rank 0), the
 *              machine's limit for one process
 *   base       rank 0 sends a message to a conversation it receives from
 *              itself, then receives it (copied in, and out)
 *   fcfs, broadcast, random
 *              patterns.h's patterns as conversations: rank 0 sends to one
 *              conversation with every other rank an FCFS (a BROADCAST)
 *              receiver, ending an fcfs batch with an empty message per
 *              receiver; for random every rank receives from a conversation
 *              of its own and sends to the others'
 * memcpy and base run with one or two ranks only (the others would only
 * take the CPUs); the patterns with two or more. The figure is the bytes
 * delivered per second (MB/s); kernel_patterns measures the same patterns
 * written in MPI. MPI (MPI_COMM_WORLD) only synchronizes the batches.
 *   kernel_conversations [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST]
 */
#include <mpf.h>

#include "patterns.h"

enum { OP_MEMCPY, OP_BASE, OP_FCFS, OP_BROADCAST, OP_RANDOM, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"memcpy", "base", "fcfs", "broadcast", "random"};

struct conversations {
  struct patterns p;
  mpf_lnvc_t base_send, base_receive;
  mpf_lnvc_t fcfs, broadcast; /* rank 0 sends, the others receive */
  mpf_lnvc_t inbox;           /* random: this rank's */
  mpf_lnvc_t *to;             /* random: the others' inboxes */
};

static void must(struct ku_kernel *k, int rc, const char *call) {
  if (rc == MPF_SUCCESS) return;
  fprintf(stderr, "kernel_conversations: rank %d: %s: %s\n", k->rank, call, mpf_error_string(rc));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Receives one message of at most `bytes` from `from`; returns its length. */
static size_t receive(struct conversations *c, mpf_lnvc_t from, long bytes, const char *what) {
  size_t length = (size_t)bytes;
  must(c->p.k, mpf_receive(from, c->p.recv, &length), "mpf_receive");
  if (c->p.k->check && length > 0) ku_verify(c->p.k, what, c->p.recv, (long)length, c->p.batch, 0);
  return length;
}

static void open_all(struct conversations *c) {
  struct ku_kernel *k = c->p.k;
  char name[32];
  if (k->rank == 0) {
    must(k, mpf_open_send("bench.base", &c->base_send), "mpf_open_send");
    must(k, mpf_open_receive("bench.base", MPF_FCFS, &c->base_receive), "mpf_open_receive");
    must(k, mpf_open_send("bench.fcfs", &c->fcfs), "mpf_open_send");
    must(k, mpf_open_send("bench.broadcast", &c->broadcast), "mpf_open_send");
  } else {
    must(k, mpf_open_receive("bench.fcfs", MPF_FCFS, &c->fcfs), "mpf_open_receive");
    must(k, mpf_open_receive("bench.broadcast", MPF_BROADCAST, &c->broadcast), "mpf_open_receive");
  }
  snprintf(name, sizeof name, "bench.inbox.%d", k->rank);
  must(k, mpf_open_receive(name, MPF_FCFS, &c->inbox), "mpf_open_receive");
  c->to = malloc(sizeof(mpf_lnvc_t) * (size_t)k->size);
  if (c->to == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int r = 0; r < k->size; ++r) {
    if (r == k->rank) continue;
    snprintf(name, sizeof name, "bench.inbox.%d", r);
    must(k, mpf_open_send(name, &c->to[r]), "mpf_open_send");
  }
  /* Every receiver has joined before the first message. */
  MPI_Barrier(MPI_COMM_WORLD);
}

static void fcfs(struct conversations *c, long bytes, int iters) {
  struct ku_kernel *k = c->p.k;
  if (k->rank == 0) {
    for (int i = 0; i < iters; ++i) must(k, mpf_send(c->fcfs, c->p.send, (size_t)bytes), "mpf_send");
    for (int r = 1; r < k->size; ++r) must(k, mpf_send(c->fcfs, c->p.send, 0), "mpf_send"); /* stops */
    return;
  }
  while (receive(c, c->fcfs, bytes, "fcfs") > 0) {
  }
}

static void broadcast(struct conversations *c, long bytes, int iters) {
  struct ku_kernel *k = c->p.k;
  for (int i = 0; i < iters; ++i) {
    if (k->rank == 0) {
      must(k, mpf_send(c->broadcast, c->p.send, (size_t)bytes), "mpf_send");
    } else {
      receive(c, c->broadcast, bytes, "broadcast");
    }
  }
}

static long drain(struct conversations *c, long bytes) {
  long got = 0;
  while (mpf_check_receive(c->inbox) > 0) {
    receive(c, c->inbox, bytes, "random");
    ++got;
  }
  return got;
}

static void random_pattern(struct conversations *c, long bytes, int iters) {
  struct ku_kernel *k = c->p.k;
  const int me = k->rank;
  const long expected = pat_expected(me, k->size, iters, c->p.batch);
  unsigned long long state = pat_seed(c->p.batch, me);
  long got = 0;
  for (int i = 0; i < iters; ++i) {
    const int to = pat_next_destination(&state, me, k->size);
    must(k, mpf_send(c->to[to], c->p.send, (size_t)bytes), "mpf_send");
    got += drain(c, bytes);
  }
  for (; got < expected; ++got) receive(c, c->inbox, bytes, "random");
}

static double step(void *ctx, long bytes, int iters) {
  struct conversations *c = ctx;
  struct ku_kernel *k = c->p.k;
  ++c->p.batch;
  if (k->check) ku_fill(c->p.send, bytes, c->p.batch, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  switch (c->p.op) {
    case OP_MEMCPY:
      if (k->rank == 0) {
        for (int i = 0; i < iters; ++i) {
          memcpy(c->p.recv, c->p.send, (size_t)bytes);
          /* Keep the compiler from merging or dropping the copies. */
          __asm__ __volatile__("" : : "r"(c->p.recv) : "memory");
        }
      }
      break;
    case OP_BASE:
      if (k->rank == 0) {
        for (int i = 0; i < iters; ++i) {
          must(k, mpf_send(c->base_send, c->p.send, (size_t)bytes), "mpf_send");
          receive(c, c->base_receive, bytes, "base");
        }
      }
      break;
    case OP_FCFS: fcfs(c, bytes, iters); break;
    case OP_BROADCAST: broadcast(c, bytes, iters); break;
    default: random_pattern(c, bytes, iters); break;
  }
  return MPI_Wtime() - start;
}

static double rate(void *ctx, long bytes, int iters, double seconds) {
  struct conversations *c = ctx;
  return pat_delivered(&c->p, op_names[c->p.op], bytes, iters, seconds);
}

int main(int argc, char **argv) {
  struct conversations c = {.p = {.names = op_names, .count = OP_COUNT}};
  for (int o = 0; o < OP_COUNT; ++o) c.p.selected[o] = 1;
  struct ku_kernel k = {.name = "conversations",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "16,256,4K,64K,1M",
                        .quick_sizes = "256,64K",
                        .min_ranks = 1,
                        .extra = pat_option,
                        .extra_ctx = &c.p,
                        .extra_usage = "[--ops memcpy,base,fcfs,broadcast,random]"};
  c.p.k = &k;
  ku_init(&argc, &argv, &k);
  must(&k, mpf_init(&argc, &argv), "mpf_init");
  long largest = 1;
  for (int s = 0; s < k.nsizes; ++s) largest = k.sizes[s] > largest ? k.sizes[s] : largest;
  c.p.send = ku_alloc(&k, largest);
  c.p.recv = ku_alloc(&k, largest);
  open_all(&c);
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!c.p.selected[o]) continue;
    const int alone = o == OP_MEMCPY || o == OP_BASE;
    if ((alone && k.size > 2) || (!alone && k.size < 2)) {
      if (k.rank == 0) printf("# %s runs with %s ranks, not %d\n", op_names[o], alone ? "1 or 2" : "2 or more", k.size);
      continue;
    }
    c.p.op = o;
    for (int s = 0; s < k.nsizes; ++s) {
      /* fcfs ends a batch with empty messages; random stays within 4 KiB
       * (64 KiB messages to random ranks could fill every queue, each
       * sender then waiting for a receiver that waits too). */
      if ((o == OP_FCFS && k.sizes[s] == 0) || (o == OP_RANDOM && k.sizes[s] > 4096)) continue;
      ku_measure_combined(&k, op_names[o], k.sizes[s], step, rate, pat_slowest, &c);
    }
  }
  free(c.to);
  free(c.p.send);
  free(c.p.recv);
  must(&k, mpf_finalize(), "mpf_finalize");
  return ku_finish(&k);
}
