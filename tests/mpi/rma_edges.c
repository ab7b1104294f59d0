/*
 * rma_edges: corners of one-sided communication that MPICH's test suite
 * found (2 ranks):
 *   - MPI_BOTTOM as the origin buffer, with a datatype of absolute addresses;
 *   - an operation on a dynamic window over two regions attached next to
 *     each other in memory (every byte it touches is attached);
 *   - accumulates of nothing (count 0, or a type of no data) succeed whatever
 *     their types: empty signatures always match;
 *   - the base of an empty part of MPI_Win_allocate_shared memory is NULL;
 *   - a derived target datatype used five times: with rndv_mode=copy its
 *     layout goes to the target once and is found in the target's cache
 *     four times (the test list checks the counters).
 */
#include "mpitest.h"

enum { HALF = 1024 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(n == 2, "run with 2 ranks");
  const int peer = 1 - rank;

  /* MPI_BOTTOM with absolute addresses. */
  int window_ints[8] = {0}, source[4] = {rank * 10 + 1, rank * 10 + 2, rank * 10 + 3, rank * 10 + 4};
  MPI_Win win;
  CHECK_RC(MPI_Win_create(window_ints, sizeof window_ints, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Aint address;
  CHECK_RC(MPI_Get_address(source, &address));
  const int length = 4;
  MPI_Datatype absolute;
  CHECK_RC(MPI_Type_create_hindexed(1, &length, &address, MPI_INT, &absolute));
  CHECK_RC(MPI_Type_commit(&absolute));
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK_RC(MPI_Put(MPI_BOTTOM, 1, absolute, peer, 2, 4, MPI_INT, win));
  CHECK_RC(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) CHECK(window_ints[2 + i] == peer * 10 + 1 + i, "MPI_BOTTOM put, int %d", i);
  int back[4] = {0};
  CHECK_RC(MPI_Get_address(back, &address));
  MPI_Datatype absolute_back;
  CHECK_RC(MPI_Type_create_hindexed(1, &length, &address, MPI_INT, &absolute_back));
  CHECK_RC(MPI_Type_commit(&absolute_back));
  CHECK_RC(MPI_Get(MPI_BOTTOM, 1, absolute_back, peer, 2, 4, MPI_INT, win));
  CHECK_RC(MPI_Win_fence(0, win));
  for (int i = 0; i < 4; ++i) CHECK(back[i] == rank * 10 + 1 + i, "MPI_BOTTOM get, int %d", i);

  /* A derived target type, used again and again. */
  MPI_Datatype every_other;
  CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &every_other));
  CHECK_RC(MPI_Type_commit(&every_other));
  for (int round = 0; round < 5; ++round) {
    const int pair[2] = {round * 7, round * 7 + 1};
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
    CHECK_RC(MPI_Put(pair, 2, MPI_INT, peer, 4, 1, every_other, win));
    CHECK_RC(MPI_Win_unlock(peer, win));
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
  CHECK(window_ints[4] == 28 && window_ints[6] == 29, "the last vector put left %d and %d", window_ints[4],
        window_ints[6]);
  CHECK_RC(MPI_Win_unlock(rank, win));
  MPI_Type_free(&every_other);
  CHECK_RC(MPI_Win_fence(0, win));

  /* Accumulates of nothing. */
  MPI_Datatype empty;
  CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_RC(MPI_Type_commit(&empty));
  double d = 1;
  int result = 0;
  CHECK_RC(MPI_Accumulate(&d, 0, MPI_DOUBLE, peer, 0, 0, MPI_INT, MPI_SUM, win));
  CHECK_RC(MPI_Accumulate(&d, 1, empty, peer, 0, 3, empty, MPI_SUM, win));
  CHECK_RC(MPI_Get_accumulate(&d, 0, MPI_DOUBLE, &result, 0, MPI_SHORT, peer, 0, 0, MPI_INT, MPI_SUM, win));
  CHECK_RC(MPI_Put(&d, 0, MPI_DOUBLE, peer, 0, 0, MPI_INT, win));
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK_RC(MPI_Win_free(&win));
  MPI_Type_free(&absolute);
  MPI_Type_free(&absolute_back);
  MPI_Type_free(&empty);

  /* Two adjacent regions of a dynamic window, reached as one. */
  int *memory = mt_alloc(sizeof(int) * 2 * HALF);
  for (int i = 0; i < 2 * HALF; ++i) memory[i] = 0;
  CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_RC(MPI_Win_attach(win, memory, sizeof(int) * HALF));
  CHECK_RC(MPI_Win_attach(win, memory + HALF, sizeof(int) * HALF));
  MPI_Aint base[2];
  CHECK_RC(MPI_Get_address(memory, &base[rank]));
  CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD));
  const int span = HALF;  /* from the middle of the first region to the middle of the second */
  int *out = mt_alloc(sizeof(int) * span), *in = mt_alloc(sizeof(int) * span);
  for (int i = 0; i < span; ++i) out[i] = rank * 100000 + i;
  const MPI_Aint middle = base[peer] + (MPI_Aint)sizeof(int) * (HALF / 2);
  CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win));
  CHECK_RC(MPI_Put(out, span, MPI_INT, peer, middle, span, MPI_INT, win));
  CHECK_RC(MPI_Win_flush(peer, win));
  CHECK_RC(MPI_Accumulate(out, span, MPI_INT, peer, middle, span, MPI_INT, MPI_SUM, win));
  CHECK_RC(MPI_Win_flush(peer, win));
  CHECK_RC(MPI_Get(in, span, MPI_INT, peer, middle, span, MPI_INT, win));
  CHECK_RC(MPI_Win_unlock(peer, win));
  for (int i = 0; i < span; ++i) CHECK(in[i] == 2 * out[i], "spanning regions: int %d is %d, not %d", i, in[i], 2 * out[i]);
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_RC(MPI_Win_detach(win, memory));
  CHECK_RC(MPI_Win_detach(win, memory + HALF));
  CHECK_RC(MPI_Win_free(&win));
  free(out);
  free(in);
  free(memory);

  /* An empty part of shared memory has no address. */
  void *mine = NULL, *theirs = NULL;
  CHECK_RC(MPI_Win_allocate_shared(rank == 0 ? 0 : 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
  MPI_Aint size;
  int unit;
  CHECK_RC(MPI_Win_shared_query(win, 0, &size, &unit, &theirs));
  CHECK(size == 0 && theirs == NULL, "rank 0's empty part: size %ld at %p", (long)size, theirs);
  if (rank == 0) CHECK(mine == NULL, "MPI_Win_allocate_shared of 0 bytes gave %p", mine);
  CHECK_RC(MPI_Win_free(&win));

  if (rank == 0) printf("rma_edges ok\n");
  MPI_Finalize();
  return 0;
}
