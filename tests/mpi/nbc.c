/*
 * Nonblocking collectives: each against its blocking twin's result, several
 * in flight at once and completed in another order, overlapped with
 * point-to-point traffic that would deadlock if they blocked, progressed by
 * MPI_Test loops, on a communicator freed before completion, and the
 * errors the standard names (MPI_Request_free and MPI_Cancel on them), and
 * large ones in flight together.
 *   nbc        (any number of ranks)
 */
#include "mpitest.h"

static int rank, size;

static int value(int r, int i) { return (r + 3) * 11 + i % 17; }

/* A collective that only completes when every rank has started it, while
   rank 0 sends to rank 1 a message rank 1 receives before it starts it. */
static void test_overlap_with_point_to_point(void) {
  if (size < 2) return;
  MPI_Request req;
  int token = 42;
  if (rank == 0) {
    CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
  } else if (rank == 1) {
    CHECK_RC(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  } else {
    CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  }
  MPI_Status st;
  CHECK_RC(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
  CHECK(token == 42, "token %d", token);
}

static void test_against_blocking(void) {
  enum { N = 20000 }; /* larger than a collective slot: several steps */
  int *in = (int *)mt_alloc(N * sizeof(int)), *a = (int *)mt_alloc(N * sizeof(int)), *b = (int *)mt_alloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) in[i] = value(rank, i);
  MPI_Request reqs[8];
  /* Allreduce and Bcast in flight together, waited in reverse order. */
  int *bc = (int *)mt_alloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) bc[i] = rank == size - 1 ? value(99, i) : -1;
  CHECK_RC(MPI_Iallreduce(in, a, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Ibcast(bc, N, MPI_INT, size - 1, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
  CHECK_RC(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  CHECK_RC(MPI_Allreduce(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(memcmp(a, b, N * sizeof(int)) == 0, "Iallreduce differs from Allreduce");
  for (int i = 0; i < N; ++i) CHECK(bc[i] == value(99, i), "Ibcast element %d is %d", i, bc[i]);
  /* Reduce to a non-zero root, scans. */
  const int root = size / 2;
  CHECK_RC(MPI_Ireduce(in, a, N, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Iscan(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; ++i) {
    int mx = value(0, i), prefix = 0;
    for (int r = 0; r < size; ++r) mx = value(r, i) > mx ? value(r, i) : mx;
    for (int r = 0; r <= rank; ++r) prefix += value(r, i);
    if (rank == root) CHECK(a[i] == mx, "Ireduce element %d is %d, expected %d", i, a[i], mx);
    CHECK(b[i] == prefix, "Iscan element %d is %d, expected %d", i, b[i], prefix);
  }
  CHECK_RC(MPI_Iexscan(in, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  if (rank > 0) {
    int prefix = 0;
    for (int r = 0; r < rank; ++r) prefix += value(r, 5);
    CHECK(b[5] == prefix, "Iexscan element 5 is %d, expected %d", b[5], prefix);
  }
  /* Gather, scatter, allgather, alltoall, reduce_scatter_block. */
  const int M = 500;
  int *mine = (int *)mt_alloc(M * sizeof(int)), *all = (int *)mt_alloc((size_t)M * size * sizeof(int));
  int *all2 = (int *)mt_alloc((size_t)M * size * sizeof(int));
  for (int i = 0; i < M; ++i) mine[i] = value(rank, i);
  CHECK_RC(MPI_Igather(mine, M, MPI_INT, all, M, MPI_INT, root, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Iallgather(mine, M, MPI_INT, all2, M, MPI_INT, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < M; ++i) {
      if (rank == root) CHECK(all[r * M + i] == value(r, i), "Igather rank %d element %d", r, i);
      CHECK(all2[r * M + i] == value(r, i), "Iallgather rank %d element %d", r, i);
    }
  for (int i = 0; i < M * size; ++i) all[i] = value(rank * 100 + i / M, i % M);
  CHECK_RC(MPI_Ialltoall(all, M, MPI_INT, all2, M, MPI_INT, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Iscatter(all, M, MPI_INT, mine, M, MPI_INT, 0, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < M; ++i) CHECK(all2[s * M + i] == value(s * 100 + rank, i), "Ialltoall from %d element %d", s, i);
  for (int i = 0; i < M; ++i) CHECK(mine[i] == value(rank, i), "Iscatter element %d is %d", i, mine[i]);
  for (int i = 0; i < M * size; ++i) all[i] = value(rank, i);
  CHECK_RC(MPI_Ireduce_scatter_block(all, mine, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
  for (int i = 0; i < M; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += value(r, rank * M + i);
    CHECK(mine[i] == want, "Ireduce_scatter_block element %d is %d, expected %d", i, mine[i], want);
  }
  free(in); free(a); free(b); free(bc); free(mine); free(all); free(all2);
}

/* Progress by MPI_Test while a ring of point-to-point messages goes round. */
static void test_progress_by_test(void) {
  enum { N = 30000 };
  int *buf = (int *)mt_alloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) buf[i] = rank == 0 ? value(7, i) : 0;
  MPI_Request req;
  CHECK_RC(MPI_Ibcast(buf, N, MPI_INT, 0, MPI_COMM_WORLD, &req));
  int flag = 0, token = 0, laps_to_finish = -1;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  /* A fixed number of laps (every rank must make the same number of
     Sendrecv calls), testing the broadcast on each. */
  for (int lap = 0; lap < 200; ++lap) {
    if (size > 1) {
      CHECK_RC(MPI_Sendrecv(&lap, 1, MPI_INT, next, 9, &token, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    if (!flag) {
      CHECK_RC(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      if (flag) laps_to_finish = lap;
    }
  }
  if (!flag) CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (rank == 0 && laps_to_finish >= 0) printf("nbc: the broadcast completed by MPI_Test after %d laps\n", laps_to_finish + 1);
  for (int i = 0; i < N; ++i) CHECK(buf[i] == value(7, i), "Ibcast by Test: element %d is %d", i, buf[i]);
  free(buf);
}

/* The program may free a datatype while a nonblocking collective uses it. */
static void test_freed_datatype(void) {
  enum { N = 5000 };
  int *buf = (int *)mt_alloc(2 * N * sizeof(int));
  for (int i = 0; i < 2 * N; ++i) buf[i] = rank == 0 ? i : -1;
  MPI_Datatype evens, every_other;
  CHECK_RC(MPI_Type_vector(N, 1, 2, MPI_INT, &evens));
  CHECK_RC(MPI_Type_commit(&evens));
  MPI_Request req[2];
  CHECK_RC(MPI_Ibcast(buf, 1, evens, 0, MPI_COMM_WORLD, &req[0]));
  CHECK_RC(MPI_Type_free(&evens));
  CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other));
  CHECK_RC(MPI_Type_commit(&every_other));
  int *all = (int *)mt_alloc(2 * (size_t)size * sizeof(int));
  for (int i = 0; i < 2 * size; ++i) all[i] = -1;
  int mine = 100 + rank;
  CHECK_RC(MPI_Iallgather(&mine, 1, MPI_INT, all, 1, every_other, MPI_COMM_WORLD, &req[1]));
  CHECK_RC(MPI_Type_free(&every_other));
  CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 2 * N; ++i) {
    const int want = rank == 0 || i % 2 == 0 ? i : -1;
    CHECK(buf[i] == want, "Ibcast with a freed type: int %d is %d, expected %d", i, buf[i], want);
  }
  for (int r = 0; r < size; ++r) CHECK(all[2 * r] == 100 + r && all[2 * r + 1] == -1, "Iallgather with a freed type: rank %d", r);
  free(buf);
  free(all);
}

static void test_freed_communicator_and_errors(void) {
  MPI_Comm dup;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int x = rank, sum = 0;
  MPI_Request req;
  CHECK_RC(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup, &req));
  CHECK_RC(MPI_Comm_free(&dup));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(sum == size * (size - 1) / 2, "Iallreduce on a freed communicator: %d", sum);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &req));
  CHECK_CLASS(MPI_Request_free(&req), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Cancel(&req), MPI_ERR_REQUEST);
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_CLASS(MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &req), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Large collectives in flight together, waited in reverse order: with more
   ranks than CPUs they share the board's stage (Bcast, Allgather, the
   Allreduce's result) and expose buffers through it (Alltoall), one after
   the other. */
static void test_large_in_flight(void) {
  enum { B = 100000, G = 3000, A = 1500, R = 100000 };
  int *bc = (int *)mt_alloc(B * sizeof(int));
  int *mine = (int *)mt_alloc(G * sizeof(int)), *all = (int *)mt_alloc((size_t)G * size * sizeof(int));
  int *to = (int *)mt_alloc((size_t)A * size * sizeof(int)), *from = (int *)mt_alloc((size_t)A * size * sizeof(int));
  int *in = (int *)mt_alloc(R * sizeof(int)), *sum = (int *)mt_alloc(R * sizeof(int));
  for (int i = 0; i < B; ++i) bc[i] = rank == 0 ? value(50, i) : -1;
  for (int i = 0; i < G; ++i) mine[i] = value(rank, i);
  for (int d = 0; d < size; ++d)
    for (int i = 0; i < A; ++i) to[d * A + i] = value(rank * 100 + d, i);
  for (int i = 0; i < R; ++i) in[i] = value(rank, i);
  MPI_Request reqs[4];
  CHECK_RC(MPI_Ibcast(bc, B, MPI_INT, 0, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Iallgather(mine, G, MPI_INT, all, G, MPI_INT, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Ialltoall(to, A, MPI_INT, from, A, MPI_INT, MPI_COMM_WORLD, &reqs[2]));
  CHECK_RC(MPI_Iallreduce(in, sum, R, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[3]));
  for (int k = 3; k >= 0; --k) CHECK_RC(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
  for (int i = 0; i < B; ++i) CHECK(bc[i] == value(50, i), "large Ibcast element %d is %d", i, bc[i]);
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < G; ++i) CHECK(all[r * G + i] == value(r, i), "large Iallgather rank %d element %d", r, i);
  for (int s = 0; s < size; ++s)
    for (int i = 0; i < A; ++i) CHECK(from[s * A + i] == value(s * 100 + rank, i), "large Ialltoall from %d element %d", s, i);
  for (int i = 0; i < R; ++i) {
    int want = 0;
    for (int r = 0; r < size; ++r) want += value(r, i);
    CHECK(sum[i] == want, "large Iallreduce element %d is %d, expected %d", i, sum[i], want);
  }
  free(bc);
  free(mine);
  free(all);
  free(to);
  free(from);
  free(in);
  free(sum);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_overlap_with_point_to_point();
  test_against_blocking();
  test_large_in_flight();
  test_progress_by_test();
  test_freed_datatype();
  test_freed_communicator_and_errors();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("nbc ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
