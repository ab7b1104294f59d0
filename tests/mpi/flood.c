/*
 * flood: many small unexpected messages to one rank whose unexpected pool is
 * small (the test list sets unexpected_pool=64KiB). The senders must be
 * throttled, never failed: every message arrives, in order, and nobody
 * aborts (the failure of seed 004 §5).
 *
 *   flood blocking N     (2 ranks) rank 1 sends N 8-byte messages with MPI_Send
 *   flood nonblocking N  (2 ranks) rank 1 starts all N with MPI_Isend, then waits
 *   flood two N          (3 ranks) ranks 1 and 2 each send N with MPI_Send
 *
 * Rank 0 first keeps progressing without receiving (PROBES calls of
 * MPI_Iprobe for a tag nobody sends), so the flood fills its pool and the
 * rings behind it; then it receives everything with MPI_ANY_TAG (and
 * MPI_ANY_SOURCE with two senders) and checks each sender's sequence numbers
 * and tags.
 *
 *   flood MODE N [PROBES]   (PROBES default 20000)
 */
#include "mpitest.h"

#define TAG_NEVER 900001
#define TAGS 1000

static int g_rank, g_size;

static uint64_t payload(int sender, long seq) { return ((uint64_t)sender << 56) | (uint64_t)seq; }

static void sender(const char *mode, long n) {
  if (strcmp(mode, "nonblocking") == 0) {
    MPI_Request *reqs = mt_alloc(sizeof(MPI_Request) * (size_t)n);
    uint64_t *data = mt_alloc(sizeof(uint64_t) * (size_t)n);
    for (long seq = 0; seq < n; ++seq) {
      data[seq] = payload(g_rank, seq);
      CHECK_RC(MPI_Isend(&data[seq], 1, MPI_UINT64_T, 0, (int)(seq % TAGS), MPI_COMM_WORLD, &reqs[seq]));
    }
    CHECK_RC(MPI_Waitall((int)n, reqs, MPI_STATUSES_IGNORE));
    free(reqs);
    free(data);
  } else {
    for (long seq = 0; seq < n; ++seq) {
      const uint64_t data = payload(g_rank, seq);
      CHECK_RC(MPI_Send(&data, 1, MPI_UINT64_T, 0, (int)(seq % TAGS), MPI_COMM_WORLD));
    }
  }
}

static void receiver(long n, long probes) {
  for (long i = 0; i < probes; ++i) {
    int flag = -1;
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, TAG_NEVER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0, "MPI_Iprobe found a message with a tag nobody sends");
  }
  long *next = mt_alloc(sizeof(long) * (size_t)g_size);
  memset(next, 0, sizeof(long) * (size_t)g_size);
  const int senders = g_size - 1;
  for (long i = 0; i < n * senders; ++i) {
    uint64_t data = 0;
    MPI_Status st;
    const int source = senders == 1 ? 1 : MPI_ANY_SOURCE;
    CHECK_RC(MPI_Recv(&data, 1, MPI_UINT64_T, source, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    const int from = st.MPI_SOURCE;
    CHECK(from >= 1 && from < g_size, "message %ld: status source %d", i, from);
    CHECK(next[from] < n, "message %ld: more than %ld messages from rank %d", i, n, from);
    CHECK(data == payload(from, next[from]),
          "message %ld: expected message %ld of rank %d, got message %llu of rank %llu", i, next[from], from,
          (unsigned long long)(data & 0xFFFFFFFFFFFFFFull), (unsigned long long)(data >> 56));
    CHECK(st.MPI_TAG == (int)(next[from] % TAGS), "message %ld of rank %d: tag %d, expected %ld", next[from], from,
          st.MPI_TAG, next[from] % TAGS);
    ++next[from];
  }
  for (int r = 1; r < g_size; ++r) CHECK(next[r] == n, "rank %d: %ld of %ld messages arrived", r, next[r], n);
  free(next);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  CHECK(argc > 2, "usage: flood blocking|nonblocking|two N [PROBES]");
  const char *mode = argv[1];
  const long n = mt_arg(argc, argv, 2, "N");
  const long probes = argc > 3 ? mt_arg(argc, argv, 3, "PROBES") : 20000;
  const int want_size = strcmp(mode, "two") == 0 ? 3 : 2;
  CHECK(strcmp(mode, "blocking") == 0 || strcmp(mode, "nonblocking") == 0 || strcmp(mode, "two") == 0,
        "unknown mode %s", mode);
  CHECK(g_size == want_size, "mode %s runs with %d ranks, not %d", mode, want_size, g_size);
  CHECK(n > 0 && n <= 100000000, "N %ld out of range", n);

  if (g_rank == 0) {
    const double start = MPI_Wtime();
    receiver(n, probes);
    printf("flood ok: %s, %ld messages from each of %d senders in %.2f s\n", mode, n, g_size - 1,
           MPI_Wtime() - start);
  } else {
    sender(mode, n);
  }
  MPI_Finalize();
  return 0;
}
