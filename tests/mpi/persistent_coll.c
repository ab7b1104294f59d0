/*
 * persistent_coll: persistent collectives (MPI-4.0 §6.13, issue 29). Each
 * collective is bound once and started three times, its buffers refilled
 * between starts (the request reads them at each start), every element of
 * every result checked; several started together with MPI_Startall; the
 * request's errors (started twice, freed while active); the persistent
 * neighbourhood collectives on a ring.
 *
 *   persistent_coll   (any number of ranks)
 */
#include "mpitest.h"

enum { N = 1000, kKinds = 8, kRounds = 3 };

static int rank, size;
static int value(int round, int r, int i) { return round * 1000003 + r * 1009 + i; }

/* The persistent neighbourhood collectives on a periodic ring: a rank's
   neighbours are rank - 1 (block 0) and rank + 1 (block 1). */
static void check_neighbor(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int mine[2], gathered[2], gatherv_out[4], a2a_in[2], a2a_out[2], v_out[2], w_out[2];
  const int ones[2] = {1, 1}, at[2] = {0, 1}, gaps[2] = {0, 2};
  const MPI_Aint bytes_at[2] = {0, sizeof(int)};
  const MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
  MPI_Request req[5];
  CHECK_RC(MPI_Neighbor_allgather_init(mine, 1, MPI_INT, gathered, 1, MPI_INT, ring, MPI_INFO_NULL, &req[0]));
  CHECK_RC(MPI_Neighbor_allgatherv_init(mine, 1, MPI_INT, gatherv_out, ones, gaps, MPI_INT, ring, MPI_INFO_NULL,
                                        &req[1]));
  CHECK_RC(MPI_Neighbor_alltoall_init(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, ring, MPI_INFO_NULL, &req[2]));
  CHECK_RC(MPI_Neighbor_alltoallv_init(a2a_in, ones, at, MPI_INT, v_out, ones, at, MPI_INT, ring, MPI_INFO_NULL,
                                       &req[3]));
  CHECK_RC(MPI_Neighbor_alltoallw_init(a2a_in, ones, bytes_at, ints, w_out, ones, bytes_at, ints, ring, MPI_INFO_NULL,
                                       &req[4]));
  for (int round = 0; round < kRounds; round++) {
    mine[0] = value(round, rank, 0);
    a2a_in[0] = value(round, rank, 1); /* to the left neighbour */
    a2a_in[1] = value(round, rank, 2); /* to the right one */
    gatherv_out[1] = gatherv_out[3] = -1;
    CHECK_RC(MPI_Startall(5, req));
    CHECK_RC(MPI_Waitall(5, req, MPI_STATUSES_IGNORE));
    CHECK(gathered[0] == value(round, left, 0) && gathered[1] == value(round, right, 0),
          "round %d: Neighbor_allgather_init gave %d %d", round, gathered[0], gathered[1]);
    CHECK(gatherv_out[0] == value(round, left, 0) && gatherv_out[2] == value(round, right, 0) &&
              gatherv_out[1] == -1 && gatherv_out[3] == -1,
          "round %d: Neighbor_allgatherv_init", round);
    /* From the left neighbour its block for the right, and back. */
    CHECK(a2a_out[0] == value(round, left, 2) && a2a_out[1] == value(round, right, 1),
          "round %d: Neighbor_alltoall_init gave %d %d", round, a2a_out[0], a2a_out[1]);
    CHECK(v_out[0] == a2a_out[0] && v_out[1] == a2a_out[1], "round %d: Neighbor_alltoallv_init", round);
    CHECK(w_out[0] == a2a_out[0] && w_out[1] == a2a_out[1], "round %d: Neighbor_alltoallw_init", round);
  }
  for (int k = 0; k < 5; k++) CHECK_RC(MPI_Request_free(&req[k]));
  CHECK_RC(MPI_Comm_free(&ring));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = size - 1;
  int* bcast = malloc(N * sizeof(int));
  int* red_in = malloc(N * sizeof(int));
  int* red_out = malloc(N * sizeof(int));
  int* all_out = malloc(N * sizeof(int));
  int* gather_in = malloc(N * sizeof(int));
  int* gather_out = malloc((size_t)size * N * sizeof(int));
  int* a2a_in = malloc((size_t)size * N * sizeof(int));
  int* a2a_out = malloc((size_t)size * N * sizeof(int));
  int* scan_out = malloc(N * sizeof(int));
  int* counts = malloc((size_t)size * sizeof(int));
  int* displs = malloc((size_t)size * sizeof(int));
  for (int r = 0; r < size; r++) {
    counts[r] = N;
    displs[r] = r * N;
  }
  MPI_Request req[kKinds];
  CHECK_RC(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
  CHECK_RC(MPI_Bcast_init(bcast, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
  CHECK_RC(MPI_Reduce_init(red_in, red_out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]));
  CHECK_RC(MPI_Allreduce_init(red_in, all_out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]));
  CHECK_RC(MPI_Gather_init(gather_in, N, MPI_INT, gather_out, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]));
  CHECK_RC(MPI_Alltoall_init(a2a_in, N, MPI_INT, a2a_out, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[5]));
  CHECK_RC(MPI_Scan_init(red_in, scan_out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[6]));
  CHECK_RC(MPI_Allgatherv_init(gather_in, N, MPI_INT, gather_out, counts, displs, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req[7]));
  for (int round = 0; round < kRounds; round++) {
    for (int i = 0; i < N; i++) {
      bcast[i] = rank == root ? value(round, root, i) : -1;
      red_in[i] = value(round, rank, i) % 1000;
      gather_in[i] = value(round, rank, i);
    }
    for (int s = 0; s < size; s++) {
      for (int i = 0; i < N; i++) a2a_in[s * N + i] = value(round, rank * size + s, i);
    }
    /* One at a time (the bcast, reduce, allreduce, scan), then the rest
     * together; the allgatherv last, after the gather's result is read. */
    for (int k = 0; k < 4; k++) {
      CHECK_RC(MPI_Start(&req[k]));
      CHECK_RC(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
      CHECK(req[k] != MPI_REQUEST_NULL, "MPI_Wait freed persistent request %d", k);
    }
    CHECK_RC(MPI_Startall(3, &req[4]));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Start(&req[4]), MPI_ERR_REQUEST); /* already active */
    CHECK_CLASS(MPI_Request_free(&req[4]), MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Waitall(3, &req[4], MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
      CHECK(bcast[i] == value(round, root, i), "round %d: Bcast_init element %d is %d", round, i, bcast[i]);
      int sum = 0, max = 0, prefix = 0;
      for (int r = 0; r < size; r++) {
        const int v = value(round, r, i) % 1000;
        sum += v;
        if (v > max) max = v;
        if (r <= rank) prefix += v;
      }
      if (rank == root) CHECK(red_out[i] == sum, "round %d: Reduce_init element %d is %d, expected %d", round, i, red_out[i], sum);
      CHECK(all_out[i] == max, "round %d: Allreduce_init element %d is %d, expected %d", round, i, all_out[i], max);
      CHECK(scan_out[i] == prefix, "round %d: Scan_init element %d is %d, expected %d", round, i, scan_out[i], prefix);
    }
    for (int s = 0; s < size; s++) {
      for (int i = 0; i < N; i++) {
        if (rank == 0) {
          CHECK(gather_out[s * N + i] == value(round, s, i), "round %d: Gather_init element %d of rank %d", round, i, s);
        }
        CHECK(a2a_out[s * N + i] == value(round, s * size + rank, i), "round %d: Alltoall_init element %d from %d",
              round, i, s);
      }
    }
    for (int i = 0; i < size * N; i++) gather_out[i] = -1;
    CHECK_RC(MPI_Start(&req[7]));
    CHECK_RC(MPI_Wait(&req[7], MPI_STATUS_IGNORE));
    for (int s = 0; s < size; s++) {
      for (int i = 0; i < N; i++) {
        CHECK(gather_out[s * N + i] == value(round, s, i), "round %d: Allgatherv_init element %d of rank %d", round, i, s);
      }
    }
    /* An inactive persistent request completes at once. */
    int flag = 0;
    CHECK_RC(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 1, "MPI_Test of an inactive persistent collective says %d", flag);
  }
  for (int k = 0; k < kKinds; k++) {
    CHECK_RC(MPI_Request_free(&req[k]));
    CHECK(req[k] == MPI_REQUEST_NULL, "MPI_Request_free left request %d", k);
  }
  check_neighbor();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("persistent_coll ok: %d ranks\n", size);
  free(bcast); free(red_in); free(red_out); free(all_out); free(gather_in); free(gather_out);
  free(a2a_in); free(a2a_out); free(scan_out); free(counts); free(displs);
  MPI_Finalize();
  return 0;
}
