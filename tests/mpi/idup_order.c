/*
 * idup_order: MPI_Comm_idup must progress whatever else the ranks are
 * creating (issue 29, bug 5). MPI lets ranks start communicator creations
 * on different communicators in different orders; each case here deadlocked
 * when the agreement on a new communicator's context queued behind the
 * collectives the rank had started before it.
 *
 *   idup_order   (an even number of ranks, at least 2)
 *
 *   ring:          each rank shares one communicator with the next rank and
 *                  one with the previous, and idups both, its own first;
 *   create_group:  even ranks call MPI_Comm_create_group then MPI_Comm_idup,
 *                  odd ranks the other way round;
 *   dup_behind:    an MPI_Comm_dup on a half while an idup of the world is
 *                  pending, the halves in opposite orders;
 *   many:          eight idups of overlapping communicators in flight at once.
 * Every new communicator is then used (an Allreduce checked) and freed.
 */
#include "mpitest.h"

static int rank, size;

static void check_comm(MPI_Comm c, const char* what) {
  int n = 0, sum = 0, one = 1;
  MPI_Comm_size(c, &n);
  CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == n, "%s: Allreduce on the new communicator gave %d, expected %d", what, sum, n);
}

static void ring(void) {
  /* pair[k]: ranks k and k+1 (mod size). Each rank is in pair[rank] and pair[rank-1]. */
  MPI_Comm mine = MPI_COMM_NULL, left = MPI_COMM_NULL;
  for (int k = 0; k < size; k++) {
    const int a = k, b = (k + 1) % size;
    MPI_Comm c;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank == a || rank == b ? 0 : MPI_UNDEFINED, rank == a ? 0 : 1, &c));
    if (rank == a) mine = c;
    else if (rank == b) left = c;
  }
  MPI_Comm dups[2];
  MPI_Request req[2];
  CHECK_RC(MPI_Comm_idup(mine, &dups[0], &req[0]));
  CHECK_RC(MPI_Comm_idup(left, &dups[1], &req[1]));
  CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  /* Used in the order of the pairs' numbers, the same at every rank. */
  const int own_first = rank == 0;
  check_comm(dups[own_first ? 0 : 1], "ring, the lower pair");
  check_comm(dups[own_first ? 1 : 0], "ring, the higher pair");
  MPI_Comm all[4] = {mine, left, dups[0], dups[1]};
  for (int i = 0; i < 4; i++) CHECK_RC(MPI_Comm_free(&all[i]));
}

static void create_group(void) {
  MPI_Group world;
  MPI_Comm group_comm, dup;
  MPI_Request req;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  if (rank % 2 == 0) {
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &group_comm));
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
  } else {
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
    CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &group_comm));
  }
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  check_comm(dup, "create_group, the idup");
  check_comm(group_comm, "create_group, the group's");
  MPI_Group_free(&world);
  CHECK_RC(MPI_Comm_free(&dup));
  CHECK_RC(MPI_Comm_free(&group_comm));
}

static void dup_behind(void) {
  MPI_Comm half, half_dup, world_dup;
  MPI_Request req;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &world_dup, &req));
  CHECK_RC(MPI_Comm_dup(half, &half_dup));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  check_comm(half_dup, "dup_behind, the half's dup");
  check_comm(world_dup, "dup_behind, the world's idup");
  MPI_Comm all[3] = {half, half_dup, world_dup};
  for (int i = 0; i < 3; i++) CHECK_RC(MPI_Comm_free(&all[i]));
}

static void many(void) {
  enum { K = 8 };
  MPI_Comm parents[K], dups[K];
  MPI_Request req[K];
  for (int k = 0; k < K; k++) {
    /* Overlapping halves: color by bit k % 2 of (rank + k). */
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, ((rank + k) >> (k % 2)) & 1, rank, &parents[k]));
  }
  /* Started in an order that differs from rank to rank. */
  for (int i = 0; i < K; i++) {
    const int k = (i + rank) % K;
    CHECK_RC(MPI_Comm_idup(parents[k], &dups[k], &req[k]));
  }
  CHECK_RC(MPI_Waitall(K, req, MPI_STATUSES_IGNORE));
  for (int k = 0; k < K; k++) {
    check_comm(dups[k], "many");
    int result = MPI_UNEQUAL;
    CHECK_RC(MPI_Comm_compare(parents[k], dups[k], &result));
    CHECK(result == MPI_CONGRUENT, "many: an idup is not congruent with its parent (%d)", result);
  }
  for (int k = 0; k < K; k++) {
    CHECK_RC(MPI_Comm_free(&dups[k]));
    CHECK_RC(MPI_Comm_free(&parents[k]));
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size % 2 == 0, "idup_order needs an even number of ranks");
  ring();
  create_group();
  dup_behind();
  many();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("idup_order ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
