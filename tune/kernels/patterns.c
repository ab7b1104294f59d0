/*
 * Patterns kernel: the MPF paper's message patterns (patterns.h) written in
 * plain MPI, as an MPI program would write them, to compare with the same
 * patterns as MPF conversations (kernel_conversations) and across MPIs:
 *   fcfs       a task queue: each worker sends rank 0 a request (MPI_Send)
 *              and receives its next task (MPI_Recv); rank 0 answers the
 *              requests in the order they come, with a stop once all tasks
 *              are out
 *   broadcast  MPI_Bcast from rank 0
 *   random     MPI_Isend to random ranks, and MPI_Iprobe / MPI_Recv of what
 *              came after each send
 * The figure is the bytes delivered per second (MB/s). See kernel_util.h.
 *   kernel_patterns [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST]
 */
#include "patterns.h"

enum { OP_FCFS, OP_BROADCAST, OP_RANDOM, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"fcfs", "broadcast", "random"};
enum { TAG_REQUEST = 1, TAG_TASK = 2, TAG_STOP = 3, TAG_RANDOM = 4 };

static void check(struct patterns *p, const char *what, long bytes) {
  if (p->k->check) ku_verify(p->k, what, p->recv, bytes, p->batch, 0);
}

static void fcfs(struct patterns *p, long bytes, int iters) {
  const int count = (int)bytes;
  if (p->k->rank == 0) {
    for (int t = 0; t < iters + p->k->size - 1; ++t) {
      MPI_Status status;
      MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_REQUEST, MPI_COMM_WORLD, &status);
      if (t < iters) {
        MPI_Send(p->send, count, MPI_BYTE, status.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
      } else {
        MPI_Send(NULL, 0, MPI_BYTE, status.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
      }
    }
    return;
  }
  for (;;) {
    MPI_Status status;
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_REQUEST, MPI_COMM_WORLD);
    MPI_Recv(p->recv, count, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    if (status.MPI_TAG == TAG_STOP) return;
    check(p, "fcfs task", bytes);
  }
}

static void broadcast(struct patterns *p, long bytes, int iters) {
  unsigned char *buf = p->k->rank == 0 ? p->send : p->recv;
  for (int i = 0; i < iters; ++i) {
    MPI_Bcast(buf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (p->k->rank != 0) check(p, "broadcast", bytes);
  }
}

/* Receives what has come; returns how many. */
static long drain(struct patterns *p, long bytes) {
  long got = 0;
  for (;;) {
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_RANDOM, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (!flag) return got;
    MPI_Recv(p->recv, (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, TAG_RANDOM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(p, "random", bytes);
    ++got;
  }
}

static void random_pattern(struct patterns *p, long bytes, int iters) {
  const int me = p->k->rank, size = p->k->size;
  const long expected = pat_expected(me, size, iters, p->batch);
  MPI_Request *sends = malloc(sizeof(MPI_Request) * (size_t)iters);
  if (sends == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  unsigned long long state = pat_seed(p->batch, me);
  long got = 0;
  for (int i = 0; i < iters; ++i) {
    MPI_Isend(p->send, (int)bytes, MPI_BYTE, pat_next_destination(&state, me, size), TAG_RANDOM, MPI_COMM_WORLD,
              &sends[i]);
    got += drain(p, bytes);
  }
  /* The rest: blocking receives, which progress our sends meanwhile. */
  for (; got < expected; ++got) {
    MPI_Recv(p->recv, (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, TAG_RANDOM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(p, "random", bytes);
  }
  MPI_Waitall(iters, sends, MPI_STATUSES_IGNORE);
  free(sends);
}

static double step(void *ctx, long bytes, int iters) {
  struct patterns *p = ctx;
  ++p->batch;
  if (p->k->check) ku_fill(p->send, bytes, p->batch, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  switch (p->op) {
    case OP_FCFS: fcfs(p, bytes, iters); break;
    case OP_BROADCAST: broadcast(p, bytes, iters); break;
    default: random_pattern(p, bytes, iters); break;
  }
  return MPI_Wtime() - start;
}

static double rate(void *ctx, long bytes, int iters, double seconds) {
  struct patterns *p = ctx;
  return pat_delivered(p, op_names[p->op], bytes, iters, seconds);
}

int main(int argc, char **argv) {
  struct patterns p = {.names = op_names, .count = OP_COUNT};
  for (int o = 0; o < OP_COUNT; ++o) p.selected[o] = 1;
  struct ku_kernel k = {.name = "patterns",
                        .unit = "MB/s",
                        .better = KU_HIGHER,
                        .full_sizes = "16,256,4K,64K",
                        .quick_sizes = "256,64K",
                        .min_ranks = 2,
                        .extra = pat_option,
                        .extra_ctx = &p,
                        .extra_usage = "[--ops fcfs,broadcast,random]"};
  p.k = &k;
  ku_init(&argc, &argv, &k);
  long largest = 1;
  for (int s = 0; s < k.nsizes; ++s) largest = k.sizes[s] > largest ? k.sizes[s] : largest;
  p.send = ku_alloc(&k, largest);
  p.recv = ku_alloc(&k, largest);
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!p.selected[o]) continue;
    p.op = o;
    for (int s = 0; s < k.nsizes; ++s) {
      /* random: up to 4 KiB, as in kernel_conversations (whose queues 64 KiB
       * messages to random ranks could fill, every sender then waiting). */
      if (o == OP_RANDOM && k.sizes[s] > 4096) continue;
      ku_measure_combined(&k, op_names[o], k.sizes[s], step, rate, pat_slowest, &p);
    }
  }
  free(p.send);
  free(p.recv);
  return ku_finish(&k);
}
