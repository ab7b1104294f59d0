/*
 * rma_locks: passive-target synchronization under contention.
 *
 *   rma_locks FLAVOR atomic N      every rank, under MPI_Win_lock_all, N times: MPI_Fetch_and_op (MPI_SUM)
 *                                  on one long long of rank 0, and MPI_Accumulate (MPI_SUM) on one double
 *                                  (a compare-and-swap loop) and one long double (the accumulate lock)
 *                                  there, and MPI_MAX on an int; the results are exact
 *   rma_locks FLAVOR exclusive N   every rank, N times: an exclusive lock at rank 0, get a counter, add
 *                                  one, put it back, unlock; the counter ends at ranks * N
 *   rma_locks FLAVOR fair          ranks 2.. take and return shared locks at rank 0 without a pause
 *                                  until rank 1, asking for an exclusive lock in the middle of that
 *                                  stream, gets it and says so in rank 0's memory: a queue that let
 *                                  shared requests overtake an exclusive one would never end
 *
 * FLAVOR: allocate (node memory, CPU atomics) or create (process memory:
 * Cross Memory Attach, or the target's engine with rndv_mode=copy).
 */
#include "mpitest.h"

enum { COUNTER = 0, DSUM = 8, LDSUM = 16, MAXV = 32, FLAG = 40, WIN_BYTES = 64 };

static int rank, n;
static MPI_Win win;
static unsigned char *mem;

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(argc >= 3, "usage: rma_locks allocate|create atomic|exclusive|fair [N]");
  const char *test = argv[2];
  const long times = argc > 3 ? atol(argv[3]) : 0;
  if (strcmp(argv[1], "allocate") == 0) {
    CHECK_RC(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  } else {
    CHECK(strcmp(argv[1], "create") == 0, "unknown flavor %s", argv[1]);
    mem = mt_alloc(WIN_BYTES);
    CHECK_RC(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  memset(mem, 0, WIN_BYTES);
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

  if (strcmp(test, "atomic") == 0) {
    const long long one = 1;
    const double done = 1.0;
    const long double ldone = 1.0L;
    long long before = 0, last = -1;
    CHECK_RC(MPI_Win_lock_all(0, win));
    for (long i = 0; i < times; ++i) {
      CHECK_RC(MPI_Fetch_and_op(&one, &before, MPI_LONG_LONG, 0, COUNTER, MPI_SUM, win));
      CHECK_RC(MPI_Win_flush(0, win));
      CHECK(before > last, "fetch_and_op went back from %lld to %lld", last, before);
      last = before;
      CHECK_RC(MPI_Accumulate(&done, 1, MPI_DOUBLE, 0, DSUM, 1, MPI_DOUBLE, MPI_SUM, win));
      CHECK_RC(MPI_Accumulate(&ldone, 1, MPI_LONG_DOUBLE, 0, LDSUM, 1, MPI_LONG_DOUBLE, MPI_SUM, win));
      const int v = (int)((i * 7919 + rank * 104729) % 1000003);
      CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, 0, MAXV, 1, MPI_INT, MPI_MAX, win));
    }
    CHECK_RC(MPI_Win_unlock_all(win));
    int local_max = -1, max = -1;
    for (long i = 0; i < times; ++i) {
      const int v = (int)((i * 7919 + rank * 104729) % 1000003);
      if (v > local_max) local_max = v;
    }
    CHECK_RC(MPI_Reduce(&local_max, &max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      CHECK_RC(MPI_Win_sync(win));
      const long long total = (long long)n * times;
      CHECK(*(long long *)(mem + COUNTER) == total, "counter %lld, not %lld", *(long long *)(mem + COUNTER), total);
      CHECK(*(double *)(mem + DSUM) == (double)total, "double sum %g, not %lld", *(double *)(mem + DSUM), total);
      CHECK(*(long double *)(mem + LDSUM) == (long double)total, "long double sum %Lg", *(long double *)(mem + LDSUM));
      CHECK(*(int *)(mem + MAXV) == max, "max %d, not %d", *(int *)(mem + MAXV), max);
    }
  } else if (strcmp(test, "exclusive") == 0) {
    for (long i = 0; i < times; ++i) {
      long long counter = 0;
      CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_RC(MPI_Get(&counter, 1, MPI_LONG_LONG, 0, COUNTER, 1, MPI_LONG_LONG, win));
      CHECK_RC(MPI_Win_flush(0, win));
      ++counter;
      CHECK_RC(MPI_Put(&counter, 1, MPI_LONG_LONG, 0, COUNTER, 1, MPI_LONG_LONG, win));
      CHECK_RC(MPI_Win_unlock(0, win));
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      CHECK_RC(MPI_Win_sync(win));
      CHECK(*(long long *)(mem + COUNTER) == (long long)n * times, "counter %lld, not %lld",
            *(long long *)(mem + COUNTER), (long long)n * times);
    }
  } else {
    CHECK(strcmp(test, "fair") == 0 && n >= 3, "unknown test %s (fair needs 3 ranks)", test);
    long rounds = 0;
    if (rank == 1) {
      /* Let the stream of shared locks start, then ask for an exclusive one. */
      int seen = 0;
      while (seen == 0) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_RC(MPI_Get(&seen, 1, MPI_INT, 0, MAXV, 1, MPI_INT, win));
        CHECK_RC(MPI_Win_unlock(0, win));
      }
      const int flag = 1;
      CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK_RC(MPI_Put(&flag, 1, MPI_INT, 0, FLAG, 1, MPI_INT, win));
      CHECK_RC(MPI_Win_unlock(0, win));
    } else if (rank >= 2) {
      int flag = 0;
      for (; flag == 0; ++rounds) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK_RC(MPI_Get(&flag, 1, MPI_INT, 0, FLAG, 1, MPI_INT, win));
        if (rounds == 100) {
          const int one = 1;
          CHECK_RC(MPI_Accumulate(&one, 1, MPI_INT, 0, MAXV, 1, MPI_INT, MPI_SUM, win));
        }
        CHECK_RC(MPI_Win_unlock(0, win));
      }
    } else {
      /* Rank 0, the target, serves through its engine when CMA is off. */
    }
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    long most = 0;
    CHECK_RC(MPI_Reduce(&rounds, &most, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0) printf("rma_locks: the shared stream ran at most %ld rounds before the exclusive lock\n", most);
  }
  CHECK_RC(MPI_Win_free(&win));
  if (strcmp(argv[1], "create") == 0) free(mem);
  if (rank == 0) printf("rma_locks ok: %s %s, %d ranks\n", argv[1], test, n);
  MPI_Finalize();
  return 0;
}
