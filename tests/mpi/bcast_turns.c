/*
 * Broadcasts whose root moves one rank on at every call, on the board
 * (lib/coll/board.hpp, "Turns"): with more ranks than CPUs, a rank whose
 * turn as root is far off sleeps until a root shortly before its turn
 * wakes it, and a rank that waits for anything else wakes such sleepers
 * first.
 * Each case below is a run of rotating roots followed by something else,
 * repeated so that runs end at different roots; every Bcast's message is
 * checked at every rank, in sizes from 1 byte to a whole entry (8 KiB),
 * and the runs wrap the board's ring of entries many times. After a run:
 *   - a barrier, an Allreduce;
 *   - point-to-point: each rank sends to the next and receives from the one
 *     before; the last root receives from every rank;
 *   - a Bcast whose root jumps (no longer a run), then a run again;
 *   - roots moving backwards (never a run);
 *   - an Ibcast of the next root, waited for, and the run goes on.
 * The test's counters (EXPECT_COUNTERS in CMakeLists.txt) check that ranks
 * did sleep for their turns and that a wake, not the sleep's time limit,
 * ended almost all of those sleeps.
 *
 *   bcast_turns [poll]
 * poll: after each run nobody waits (after_polling), so the sleepers nobody
 * wakes end by their time limit (turn_timeouts > 0), and the job still
 * ends.
 */
#include "mpitest.h"

enum { ENTRY = 8192, REPEATS = 5 };

static int rank, size;
static unsigned char *buffer;
static long calls; /* Bcasts so far: each one's message differs */

static size_t size_of_call(long call) {
  static const size_t sizes[] = {4, 1, 100, ENTRY, 64, 8};
  return sizes[call % 6];
}

static unsigned char byte_of(long call, int root, size_t i) { return (unsigned char)(call * 7 + root * 13 + i); }

static void bcast_from(int root) {
  const size_t bytes = size_of_call(calls);
  for (size_t i = 0; i < bytes; ++i) buffer[i] = rank == root ? byte_of(calls, root, i) : 0;
  CHECK_RC(MPI_Bcast(buffer, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD));
  for (size_t i = 0; i < bytes; ++i) {
    CHECK(buffer[i] == byte_of(calls, root, i), "Bcast #%ld (root %d, %zu bytes): byte %zu is %d", calls, root,
          bytes, i, buffer[i]);
  }
  ++calls;
}

/* A run of `length` rotating roots from `first`; returns the last root. */
static int run_of_turns(int first, int length) {
  int root = first;
  for (int i = 0; i < length; ++i) {
    root = (first + i) % size;
    bcast_from(root);
  }
  return root;
}

static void after_barrier(int last) {
  (void)last;
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
}

static void after_allreduce(int last) {
  int mine = rank + last, sum = -1;
  CHECK_RC(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2 + size * last, "Allreduce after a run: %d", sum);
}

static void after_point_to_point(int last) {
  const int next = (rank + 1) % size, before = (rank + size - 1) % size;
  long got = -1, mine = calls * 1000 + rank;
  CHECK_RC(MPI_Sendrecv(&mine, 1, MPI_LONG, next, 7, &got, 1, MPI_LONG, before, 7, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
  CHECK(got == calls * 1000 + before, "from rank %d after a run: %ld", before, got);
  /* The last root waits for each rank in turn, the farthest turns first. */
  if (rank == last) {
    for (int i = 1; i < size; ++i) {
      const int from = (last + size - i) % size;
      CHECK_RC(MPI_Recv(&got, 1, MPI_LONG, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(got == from, "rank %d's report after a run: %ld", from, got);
    }
  } else {
    mine = rank;
    CHECK_RC(MPI_Send(&mine, 1, MPI_LONG, last, 8, MPI_COMM_WORLD));
  }
}

static void after_jump(int last) {
  const int jumped = (last + size / 2) % size;
  bcast_from(jumped);
  run_of_turns(jumped + 1, size + 3);
}

static void after_backwards(int last) {
  for (int i = 1; i <= 2 * size; ++i) bcast_from((last + size * 2 - i) % size);
}

static void after_ibcast(int last) {
  const int root = (last + 1) % size;
  const size_t bytes = size_of_call(calls);
  for (size_t i = 0; i < bytes; ++i) buffer[i] = rank == root ? byte_of(calls, root, i) : 0;
  MPI_Request request;
  CHECK_RC(MPI_Ibcast(buffer, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD, &request));
  CHECK_RC(MPI_Wait(&request, MPI_STATUS_IGNORE));
  for (size_t i = 0; i < bytes; ++i) CHECK(buffer[i] == byte_of(calls, root, i), "Ibcast #%ld: byte %zu", calls, i);
  ++calls;
  run_of_turns(root + 1, size + 5);
}

/* Nobody waits: rank 0 probes for every other rank's message and then
 * tells each to go on; the others test their send and the go-ahead. So
 * until the ranks still asleep in a Bcast send theirs, no rank waits and
 * no Bcast is published, and nothing but their time limit wakes them. */
static void test_until_done(int n, MPI_Request *requests) {
  for (int done = 0; !done;) CHECK_RC(MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE));
}

static void after_polling(int last) {
  (void)last;
  long mine = rank, go = -1;
  if (rank == 0) {
    for (int left = size - 1; left > 0;) {
      int flag = 0;
      MPI_Status status;
      CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &status));
      if (!flag) continue;
      long got = -1;
      CHECK_RC(MPI_Recv(&got, 1, MPI_LONG, status.MPI_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(got == status.MPI_SOURCE, "polled report %ld from rank %d", got, status.MPI_SOURCE);
      --left;
    }
    MPI_Request *sends = (MPI_Request *)mt_alloc((size_t)size * sizeof(MPI_Request));
    for (int r = 1; r < size; ++r) CHECK_RC(MPI_Isend(&mine, 1, MPI_LONG, r, 10, MPI_COMM_WORLD, &sends[r - 1]));
    test_until_done(size - 1, sends);
    free(sends);
  } else {
    MPI_Request requests[2];
    CHECK_RC(MPI_Isend(&mine, 1, MPI_LONG, 0, 9, MPI_COMM_WORLD, &requests[0]));
    CHECK_RC(MPI_Irecv(&go, 1, MPI_LONG, 0, 10, MPI_COMM_WORLD, &requests[1]));
    test_until_done(2, requests);
    CHECK(go == 0, "go-ahead %ld", go);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int poll = argc > 1 && strcmp(argv[1], "poll") == 0;
  CHECK(argc == 1 || poll, "usage: bcast_turns [poll]");
  buffer = (unsigned char *)mt_alloc(ENTRY);
  void (*const endings[])(int) = {after_barrier,  after_point_to_point, after_allreduce,
                                  after_jump,     after_backwards,      after_ibcast};
  const int count = (int)(sizeof endings / sizeof endings[0]);
  /* Every rank past its start-up, which on 2 CPUs takes a 64-rank job a
   * few hundred milliseconds: a round of turns meanwhile outlasts a far
   * sleep's time limit, and would count as sleeps nobody woke. */
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  int first = 0;
  for (int repeat = 0; repeat < REPEATS; ++repeat) {
    for (int e = 0; e < count; ++e) {
      /* Ends at a different root each time; long enough to wrap the ring. */
      const int last = run_of_turns(first, 3 * size + 7 + repeat);
      if (poll) {
        after_polling(last);
      } else {
        endings[e](last);
      }
      first = (last + 2 + e) % size;
    }
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("bcast_turns ok: %d ranks, %ld broadcasts%s\n", size, calls, poll ? ", polling" : "");
  free(buffer);
  MPI_Finalize();
  return 0;
}
