/*
 * Collectives kernel: the time of MPI_Barrier, MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Alltoall and MPI_Allgather on MPI_COMM_WORLD, over
 * sizes, at whatever number of ranks it is started with (more ranks than
 * cores included). Each batch starts after an MPI_Barrier, and counts as
 * long as its slowest rank took (an MPI_Allreduce of the ranks' times); the
 * figure is the time per operation in us (lower is better). The root of
 * Bcast and Reduce moves to the next rank at every call (as in the Intel MPI
 * Benchmarks), so that a root cannot run ahead of the others call after call
 * and a batch measures operations, not a pipeline from one root. Sizes are
 * bytes per rank: the message of Bcast, the vector of Reduce and Allreduce
 * (MPI_INT, MPI_SUM; MPI_DOUBLE with --type double), what each rank sends to each other in
 * Alltoall and contributes in Allgather. A size whose buffer would exceed
 * 16 MiB at this number of ranks is skipped (with a comment line).
 * See kernel_util.h. Plain MPI.
 *   kernel_collectives [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--ops LIST] [--type T]
 * --ops: some of barrier,bcast,reduce,allreduce,alltoall,allgather (all by default).
 * --type: the element type of Reduce and Allreduce, int (default) or double.
 * --check verifies every byte of every result.
 */
#include "kernel_util.h"

enum { COLL_MAX_BUFFER = 16 << 20 };

enum op { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLTOALL, OP_ALLGATHER, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"barrier", "bcast", "reduce", "allreduce", "alltoall", "allgather"};

struct coll {
  struct ku_kernel *k;
  int selected[OP_COUNT];
  enum op op;
  unsigned char *send, *recv;
  long seq;
  int doubles; /* reductions on MPI_DOUBLE instead of MPI_INT */
};

static int coll_option(void *ctx, const char *arg, const char *value) {
  struct coll *c = ctx;
  if (strcmp(arg, "--type") == 0) {
    if (value == NULL) return -1;
    if (strcmp(value, "int") == 0 || strcmp(value, "double") == 0) {
      c->doubles = strcmp(value, "double") == 0;
      return 2;
    }
    return -1;
  }
  if (strcmp(arg, "--ops") != 0) return 0;
  return ku_select_ops(value, op_names, OP_COUNT, c->selected);
}

/* Element i of rank r's reduction input for call `seq`. */
static int reduce_input(long seq, int r, long i) {
  return (int)((seq * 3 + r + i) % 1000);
}

/* Bytes of one element of Reduce and Allreduce. */
static long element_bytes(const struct coll *c) {
  return c->doubles ? (long)sizeof(double) : (long)sizeof(int);
}

/* Element i of a reduction buffer, as a double (exact: the sums are small integers). */
static double element_at(const struct coll *c, const unsigned char *buf, long i) {
  return c->doubles ? ((const double *)(const void *)buf)[i] : ((const int *)(const void *)buf)[i];
}

static void check_sum(struct coll *c, const unsigned char *result, long count) {
  for (long i = 0; i < count; ++i) {
    long expected = 0;
    for (int r = 0; r < c->k->size; ++r) expected += reduce_input(c->seq, r, i);
    if (element_at(c, result, i) != (double)expected) {
      fprintf(stderr, "kernel_collectives: rank %d: %s of %ld %ss: element %ld is %g, expected %ld\n", c->k->rank,
              op_names[c->op], count, c->doubles ? "double" : "int", i, element_at(c, result, i), expected);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

/* The root of call `seq` of Bcast and Reduce. */
static int root_of(const struct coll *c) {
  return (int)(c->seq % c->k->size);
}

/* Fill the inputs of call `seq` (under --check). */
static void prepare(struct coll *c, long bytes) {
  const int rank = c->k->rank, size = c->k->size;
  switch (c->op) {
    case OP_BCAST:
      if (rank == root_of(c)) ku_fill(c->send, bytes, c->seq, rank);
      break;
    case OP_REDUCE:
    case OP_ALLREDUCE:
      for (long i = 0; i < bytes / element_bytes(c); ++i) {
        if (c->doubles) {
          ((double *)(void *)c->send)[i] = reduce_input(c->seq, rank, i);
        } else {
          ((int *)(void *)c->send)[i] = reduce_input(c->seq, rank, i);
        }
      }
      break;
    case OP_ALLTOALL:
      for (int j = 0; j < size; ++j) ku_fill(c->send + (long)j * bytes, bytes, c->seq, rank * size + j);
      break;
    case OP_ALLGATHER:
      ku_fill(c->send, bytes, c->seq, rank);
      break;
    default:
      break;
  }
}

static void verify(struct coll *c, long bytes) {
  const int rank = c->k->rank, size = c->k->size;
  switch (c->op) {
    case OP_BCAST:
      ku_verify(c->k, "bcast", c->send, bytes, c->seq, root_of(c));
      break;
    case OP_REDUCE:
      if (rank == root_of(c)) check_sum(c, c->recv, bytes / element_bytes(c));
      break;
    case OP_ALLREDUCE:
      check_sum(c, c->recv, bytes / element_bytes(c));
      break;
    case OP_ALLTOALL:
      for (int i = 0; i < size; ++i) ku_verify(c->k, "alltoall block", c->recv + (long)i * bytes, bytes, c->seq, i * size + rank);
      break;
    case OP_ALLGATHER:
      for (int i = 0; i < size; ++i) ku_verify(c->k, "allgather block", c->recv + (long)i * bytes, bytes, c->seq, i);
      break;
    default:
      break;
  }
}

static void run_op(struct coll *c, long bytes) {
  switch (c->op) {
    case OP_BARRIER:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case OP_BCAST:
      MPI_Bcast(c->send, (int)bytes, MPI_BYTE, root_of(c), MPI_COMM_WORLD);
      break;
    case OP_REDUCE:
      MPI_Reduce(c->send, c->recv, (int)(bytes / element_bytes(c)), c->doubles ? MPI_DOUBLE : MPI_INT, MPI_SUM,
                 root_of(c), MPI_COMM_WORLD);
      break;
    case OP_ALLREDUCE:
      MPI_Allreduce(c->send, c->recv, (int)(bytes / element_bytes(c)), c->doubles ? MPI_DOUBLE : MPI_INT, MPI_SUM,
                    MPI_COMM_WORLD);
      break;
    case OP_ALLTOALL:
      MPI_Alltoall(c->send, (int)bytes, MPI_BYTE, c->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLGATHER:
      MPI_Allgather(c->send, (int)bytes, MPI_BYTE, c->recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      break;
    default:
      break;
  }
}

static double coll_step(void *ctx, long bytes, int iters) {
  struct coll *c = ctx;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++c->seq) {
    if (c->k->check) prepare(c, bytes);
    run_op(c, bytes);
    if (c->k->check) verify(c, bytes);
  }
  return MPI_Wtime() - t0;
}

static double slowest_rank(double seconds) {
  double slowest = 0;
  MPI_Allreduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

static double coll_us(void *ctx, long bytes, int iters, double seconds) {
  (void)ctx;
  (void)bytes;
  return seconds / iters * 1e6;
}

/* Bytes of the largest buffer `op` needs for `bytes` per rank. */
static long buffer_bytes(enum op op, long bytes, int size) {
  return op == OP_ALLTOALL || op == OP_ALLGATHER ? bytes * size : bytes;
}

int main(int argc, char **argv) {
  struct coll c = {.selected = {1, 1, 1, 1, 1, 1}};
  struct ku_kernel k = {.name = "collectives",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "4,64,1K,16K,256K,1M",
                        .quick_sizes = "4,4K",
                        .min_ranks = 1,
                        .extra = coll_option,
                        .extra_ctx = &c,
                        .extra_usage = "--ops LIST --type int|double"};
  ku_init(&argc, &argv, &k);
  c.k = &k;
  long largest = 4;
  for (int s = 0; s < k.nsizes; ++s) {
    for (int o = OP_BCAST; o < OP_COUNT; ++o) {
      const long b = buffer_bytes((enum op)o, k.sizes[s], k.size);
      if (c.selected[o] && b <= COLL_MAX_BUFFER && b > largest) largest = b;
    }
  }
  c.send = ku_alloc(&k, largest);
  c.recv = ku_alloc(&k, largest);
  for (int o = 0; o < OP_COUNT; ++o) {
    if (!c.selected[o]) continue;
    c.op = (enum op)o;
    if (c.op == OP_BARRIER) {
      ku_measure_combined(&k, op_names[o], -1, coll_step, coll_us, slowest_rank, &c);
      continue;
    }
    for (int s = 0; s < k.nsizes; ++s) {
      /* Reductions work on whole elements. */
      const long e = element_bytes(&c);
      const long bytes = c.op == OP_REDUCE || c.op == OP_ALLREDUCE ? k.sizes[s] / e * e : k.sizes[s];
      if (buffer_bytes(c.op, bytes, k.size) > COLL_MAX_BUFFER) {
        if (k.rank == 0) {
          printf("# %s: %ld bytes x %d ranks exceeds 16 MiB per buffer; skipped\n", op_names[o], bytes, k.size);
        }
        continue;
      }
      ku_measure_combined(&k, op_names[o], bytes, coll_step, coll_us, slowest_rank, &c);
    }
  }
  free(c.send);
  free(c.recv);
  return ku_finish(&k);
}
