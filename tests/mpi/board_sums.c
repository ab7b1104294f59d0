/*
 * Reductions through the board's sums (lib/coll/algorithms/board.cpp): on
 * MPI_COMM_WORLD with more ranks than coll_exchange_max, a Reduce or
 * Allreduce above the board's rows with a commutative operation has every
 * rank add its input into one of two shared sums: in whatever order the
 * ranks run with an exact operation (integers, logicals, bytes), else in
 * rank order, each rank waiting for the one before it. What could go wrong
 * there, each checked against results computed locally:
 *   - a sum reused while a rank still copies out of it: Reduce and
 *     Allreduce back to back with a moving root, staged Bcasts between
 *     them, no barrier;
 *   - several in flight at once (Ireduce/Iallreduce started together,
 *     completed in reverse order), in place too;
 *   - element types other than int, with wrap-around;
 *   - vectors larger than a sum (rounds; see the small_stage variant);
 *   - floating point must be added in rank order, not as ranks run: its
 *     result would then depend on which rank ran first. Twenty Allreduces
 *     of doubles whose sum depends on the order, each with another rank
 *     arriving last, must give the same bits every time and at every
 *     Reduce root.
 *   board_sums [count]       count: ints per rank (default 50000)
 */
#include "mpitest.h"

static int rank, size;
static int count = 50000;

/* Rank r's element i at iteration `it`. */
static int input(int it, int r, int i) { return (it * 31 + r * 7 + i) % 1009 - 300; }

static void expect_sum(const int *got, int it, int n, const char *what) {
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += input(it, r, i);
    CHECK(got[i] == want, "%s iteration %d: element %d is %d, expected %d", what, it, i, got[i], want);
  }
}

static void test_back_to_back(void) {
  int *in = (int *)mt_alloc((size_t)count * sizeof(int));
  int *out = (int *)mt_alloc((size_t)count * sizeof(int));
  enum { BCAST = 100000 };
  unsigned char *bc = (unsigned char *)mt_alloc(BCAST);
  for (int it = 0; it < 40; ++it) {
    for (int i = 0; i < count; ++i) in[i] = input(it, rank, i);
    for (int i = 0; i < count; ++i) out[i] = -1;
    if (it % 3 == 2) {
      CHECK_RC(MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      expect_sum(out, it, count, "allreduce");
    } else {
      const int root = it % size;
      CHECK_RC(MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
      if (rank == root) expect_sum(out, it, count, "reduce");
    }
    if (it % 5 == 4) {
      const int root = (it / 5) % size;
      for (int i = 0; i < BCAST; ++i) bc[i] = rank == root ? (unsigned char)(i * 13 + it) : 0;
      CHECK_RC(MPI_Bcast(bc, BCAST, MPI_BYTE, root, MPI_COMM_WORLD));
      for (int i = 0; i < BCAST; ++i) CHECK(bc[i] == (unsigned char)(i * 13 + it), "bcast %d: byte %d", it, i);
    }
  }
  free(in);
  free(out);
  free(bc);
}

static void test_in_flight(void) {
  enum { K = 6 };
  int *in[K], *out[K];
  MPI_Request reqs[K];
  for (int k = 0; k < K; ++k) {
    in[k] = (int *)mt_alloc((size_t)count * sizeof(int));
    out[k] = (int *)mt_alloc((size_t)count * sizeof(int));
    for (int i = 0; i < count; ++i) in[k][i] = input(100 + k, rank, i);
    for (int i = 0; i < count; ++i) out[k][i] = k % 3 == 2 ? in[k][i] : -1;
  }
  for (int k = 0; k < K; ++k) {
    if (k % 3 == 0) {
      CHECK_RC(MPI_Ireduce(in[k], out[k], count, MPI_INT, MPI_SUM, (k + 1) % size, MPI_COMM_WORLD, &reqs[k]));
    } else if (k % 3 == 1) {
      CHECK_RC(MPI_Iallreduce(in[k], out[k], count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
    } else {
      CHECK_RC(MPI_Iallreduce(MPI_IN_PLACE, out[k], count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[k]));
    }
  }
  for (int k = K; k-- > 0;) CHECK_RC(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
  for (int k = 0; k < K; ++k) {
    if (k % 3 != 0 || rank == (k + 1) % size) expect_sum(out[k], 100 + k, count, "in flight");
    free(in[k]);
    free(out[k]);
  }
}

static void test_types(void) {
  const int n = count;
  unsigned char *c = (unsigned char *)mt_alloc((size_t)n), *cx = (unsigned char *)mt_alloc((size_t)n);
  unsigned short *s = (unsigned short *)mt_alloc((size_t)n * sizeof(unsigned short));
  unsigned short *ss = (unsigned short *)mt_alloc((size_t)n * sizeof(unsigned short));
  long long *l = (long long *)mt_alloc((size_t)n * sizeof(long long));
  long long *lmax = (long long *)mt_alloc((size_t)n * sizeof(long long));
  for (int i = 0; i < n; ++i) {
    c[i] = (unsigned char)(rank * 37 + i);
    s[i] = (unsigned short)(60000 + rank * 1000 + i); /* the sum wraps */
    l[i] = ((rank * 7919LL + i * 104729LL) % 65537) << 20;
  }
  CHECK_RC(MPI_Allreduce(c, cx, n, MPI_UNSIGNED_CHAR, MPI_BXOR, MPI_COMM_WORLD));
  CHECK_RC(MPI_Allreduce(s, ss, n, MPI_UNSIGNED_SHORT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_RC(MPI_Reduce(l, lmax, n, MPI_LONG_LONG, MPI_MAX, size - 1, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    unsigned char x = 0;
    unsigned short sum = 0;
    long long mx = 0;
    for (int r = 0; r < size; ++r) {
      x ^= (unsigned char)(r * 37 + i);
      sum = (unsigned short)(sum + (unsigned short)(60000 + r * 1000 + i));
      const long long v = ((r * 7919LL + i * 104729LL) % 65537) << 20;
      mx = r == 0 || v > mx ? v : mx;
    }
    CHECK(cx[i] == x, "unsigned char BXOR element %d is %u, expected %u", i, cx[i], x);
    CHECK(ss[i] == sum, "unsigned short SUM element %d is %u, expected %u", i, ss[i], sum);
    if (rank == size - 1) CHECK(lmax[i] == mx, "long long MAX element %d is %lld, expected %lld", i, lmax[i], mx);
  }
  free(c);
  free(cx);
  free(s);
  free(ss);
  free(l);
  free(lmax);
}

/* Keeps the CPU for `ms` milliseconds: the rank arrives late. */
static void busy(double ms) {
  const double until = MPI_Wtime() + ms / 1e3;
  while (MPI_Wtime() < until) {
  }
}

static void test_doubles_keep_their_order(void) {
  const int n = count;
  double *in = (double *)mt_alloc((size_t)n * sizeof(double));
  double *first = (double *)mt_alloc((size_t)n * sizeof(double));
  double *out = (double *)mt_alloc((size_t)n * sizeof(double));
  /* Two ranks hold 1e16 and -1e16, the others a small term that 1e16
     absorbs (its ulp is 2): the sum is about the small terms' sum if the
     large ones cancel first, and less if small terms meet 1e16 first. */
  for (int i = 0; i < n; ++i) {
    in[i] = rank == i % size ? 1e16 : rank == (i + 1) % size ? -1e16 : 0.75 + (rank % 3) * 0.25;
  }
  CHECK_RC(MPI_Allreduce(in, first, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (int it = 0; it < 20; ++it) {
    /* Another rank arrives last each time, and so would add last. */
    if (rank == it % size) busy(2);
    CHECK_RC(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(memcmp(out, first, (size_t)n * sizeof(double)) == 0, "allreduce of doubles %d differs from the first", it);
  }
  for (int root = 0; root < size; ++root) {
    CHECK_RC(MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD));
    if (rank == root) CHECK(memcmp(out, first, (size_t)n * sizeof(double)) == 0, "reduce of doubles at root %d differs", root);
  }
  free(in);
  free(first);
  free(out);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) count = (int)mt_arg(argc, argv, 1, "count");
  test_back_to_back();
  test_in_flight();
  test_types();
  test_doubles_keep_their_order();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("board_sums ok: %d ranks, %d ints\n", size, count);
  MPI_Finalize();
  return 0;
}
