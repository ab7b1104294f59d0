/*
 * rma_passive: passive-target operations complete while the target
 * computes and never calls MPI (seed 001: memory reached without the
 * target's help).
 *
 *   rma_passive FLAVOR [no-cma]     FLAVOR: create (a malloc'd buffer, reached by Cross Memory Attach)
 *                                   or allocate (node memory)
 *
 * Rank 0 spins on its own memory, with no MPI call, until every other
 * rank's record has arrived there; each other rank locks rank 0 (shared or
 * exclusive), puts its record, accumulates into a sum, gets the record
 * back and unlocks, several times. A target whose help were needed would
 * never see the records: the spin gives up after 60 s and fails.
 *
 * With no-cma every rank's own Cross Memory Attach calls fail with EPERM
 * (a seccomp filter, as in a container): a create window then falls back
 * to the target's engine at the first refusal, so rank 0 must call MPI to
 * let the records in; it polls with MPI_Iprobe, and the library says once
 * that CMA was refused.
 */
#define _GNU_SOURCE /* syscall() */
#include "mpitest.h"
#include "../common/refuse_cma.h"

enum { ROUNDS = 20, RECORD_INTS = 8 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(argc >= 2, "usage: rma_passive create|allocate [no-cma]");
  const int no_cma = argc > 2 && strcmp(argv[2], "no-cma") == 0;
  if (no_cma) forbid_cma_calls();
  const size_t bytes = sizeof(int) * RECORD_INTS * (size_t)n + sizeof(long long);
  int *mem = NULL;
  MPI_Win win;
  if (strcmp(argv[1], "allocate") == 0) {
    CHECK_RC(MPI_Win_allocate((MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  } else {
    CHECK(strcmp(argv[1], "create") == 0, "unknown flavor %s", argv[1]);
    mem = mt_alloc(bytes);
    CHECK_RC(MPI_Win_create(mem, (MPI_Aint)bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  memset(mem, 0, bytes);
  long long *sum = (long long *)(mem + RECORD_INTS * n);
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

  if (rank == 0) {
    /* Compute until every record is in; no MPI call (but for no-cma). */
    const double deadline = MPI_Wtime() + 60;
    volatile int *records = mem;
    int arrived = 0;
    while (arrived < n - 1) {
      arrived = 0;
      for (int r = 1; r < n; ++r) arrived += records[r * RECORD_INTS + RECORD_INTS - 1] == ROUNDS;
      if (no_cma) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      }
      CHECK(MPI_Wtime() < deadline, "only %d of %d records arrived while the target computed", arrived, n - 1);
    }
  } else {
    int record[RECORD_INTS], back[RECORD_INTS];
    const long long one = 1;
    for (int round = 1; round <= ROUNDS; ++round) {
      for (int i = 0; i < RECORD_INTS; ++i) record[i] = i == RECORD_INTS - 1 ? round : rank * 100 + i;
      CHECK_RC(MPI_Win_lock(round % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_RC(MPI_Put(record, RECORD_INTS, MPI_INT, 0, rank * RECORD_INTS, RECORD_INTS, MPI_INT, win));
      CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, RECORD_INTS * n, 1, MPI_LONG_LONG, MPI_SUM, win));
      CHECK_RC(MPI_Get(back, RECORD_INTS, MPI_INT, 0, rank * RECORD_INTS, RECORD_INTS, MPI_INT, win));
      CHECK_RC(MPI_Win_unlock(0, win));
      for (int i = 0; i < RECORD_INTS; ++i) CHECK(back[i] == record[i], "round %d: got back %d at %d", round, back[i], i);
    }
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_RC(MPI_Win_sync(win));
    CHECK(*sum == (long long)(n - 1) * ROUNDS, "sum %lld, not %lld", *sum, (long long)(n - 1) * ROUNDS);
    for (int r = 1; r < n; ++r)
      for (int i = 0; i < RECORD_INTS - 1; ++i) CHECK(mem[r * RECORD_INTS + i] == r * 100 + i, "record of %d", r);
  }
  CHECK_RC(MPI_Win_free(&win));
  if (strcmp(argv[1], "create") == 0) free(mem);
  if (rank == 0) printf("rma_passive ok: %s%s, %d ranks\n", argv[1], no_cma ? " (CMA refused)" : "", n);
  MPI_Finalize();
  return 0;
}
