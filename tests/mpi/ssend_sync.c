/*
 * ssend_sync: a synchronous send does not complete before its receive is
 * posted (MPI 3.1 §3.4), whatever protocol carries it.
 *
 * For each size (short, eager and rendezvous under every variant's limits):
 *   Issend        rank 0 tests its Issend to rank 1 many times and must see
 *                 "not complete" every time; only then does it tell rank 1
 *                 (a message rank 1 waits for before posting its receive)
 *   Ssend_init    the same with a persistent synchronous send, started twice
 *   Ssend         rank 0 blocks in MPI_Ssend, then tells rank 2 "done"; rank
 *                 2 probes many times and must not see "done" before it has
 *                 told rank 1 to post the receive
 *   to itself     an Issend to oneself stays incomplete until the receive
 *
 *   ssend_sync [TESTS]   (3 ranks; TESTS polls per check, default 2000)
 */
#include "mpitest.h"

#define TAG_SIGNAL 900001
#define TAG_DONE 900002
#define TAG_GO 900003

static const int kSizes[] = {0, 8, 64, 89, 4096, 16385, 100000, 1 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static int g_rank, g_tests;

static uint64_t seed_of(int part, int s, int round) { return mt_seed(0x55, (uint64_t)part, (uint64_t)s, (uint64_t)round); }

/* Polls a synchronous send request g_tests times; it must stay incomplete. */
static void must_stay_pending(MPI_Request *req, const char *what) {
  MPI_Status st;
  for (int i = 0; i < g_tests; ++i) {
    int flag = -1;
    if (i % 2 == 0) {
      CHECK_RC(MPI_Test(req, &flag, &st));
    } else {
      CHECK_RC(MPI_Request_get_status(*req, &flag, &st));
    }
    CHECK(flag == 0, "%s completed (poll %d) before the receiver posted its receive", what, i);
  }
}

static void receive_and_check(int source, int tag, int bytes, uint64_t seed, const char *what) {
  char *buf = mt_alloc((size_t)bytes);
  MPI_Status st;
  CHECK_RC(MPI_Recv(buf, bytes, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st));
  mt_status(&st, source, tag, bytes, what);
  mt_verify(buf, (size_t)bytes, seed, what);
  free(buf);
}

static void issend_part(int s) {
  const int bytes = kSizes[s], tag = s;
  char what[100];
  snprintf(what, sizeof what, "MPI_Issend of %d bytes", bytes);
  if (g_rank == 0) {
    char *buf = mt_alloc((size_t)bytes);
    MPI_Request req;
    mt_fill(buf, (size_t)bytes, seed_of(1, s, 0));
    CHECK_RC(MPI_Issend(buf, bytes, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
    must_stay_pending(&req, what);
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SIGNAL, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    free(buf);
  } else if (g_rank == 1) {
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SIGNAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    receive_and_check(0, tag, bytes, seed_of(1, s, 0), what);
  }
}

static void ssend_init_part(int s) {
  const int bytes = kSizes[s], tag = 100 + s;
  char what[100];
  snprintf(what, sizeof what, "MPI_Ssend_init/MPI_Start of %d bytes", bytes);
  char *buf = mt_alloc((size_t)bytes);
  MPI_Request req = MPI_REQUEST_NULL;
  if (g_rank == 0) CHECK_RC(MPI_Ssend_init(buf, bytes, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
  for (int round = 0; round < 2; ++round) {
    if (g_rank == 0) {
      mt_fill(buf, (size_t)bytes, seed_of(2, s, round));
      CHECK_RC(MPI_Start(&req));
      must_stay_pending(&req, what);
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SIGNAL, MPI_COMM_WORLD));
      CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (g_rank == 1) {
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SIGNAL, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      receive_and_check(0, tag, bytes, seed_of(2, s, round), what);
    }
  }
  if (g_rank == 0) CHECK_RC(MPI_Request_free(&req));
  free(buf);
}

static void ssend_part(int s) {
  const int bytes = kSizes[s], tag = 200 + s;
  char what[100];
  snprintf(what, sizeof what, "MPI_Ssend of %d bytes", bytes);
  if (g_rank == 0) {
    char *buf = mt_alloc((size_t)bytes);
    mt_fill(buf, (size_t)bytes, seed_of(3, s, 0));
    CHECK_RC(MPI_Ssend(buf, bytes, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_DONE, MPI_COMM_WORLD));
    free(buf);
  } else if (g_rank == 1) {
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 2, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    receive_and_check(0, tag, bytes, seed_of(3, s, 0), what);
  } else {
    for (int i = 0; i < g_tests; ++i) {
      int flag = -1;
      CHECK_RC(MPI_Iprobe(0, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      CHECK(flag == 0, "%s returned (seen at probe %d) before rank 1 posted its receive", what, i);
    }
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
}

static void self_part(int s) {
  const int bytes = kSizes[s], tag = 300 + s;
  char what[100];
  snprintf(what, sizeof what, "MPI_Issend of %d bytes to itself", bytes);
  char *buf = mt_alloc((size_t)bytes);
  MPI_Request req;
  mt_fill(buf, (size_t)bytes, seed_of(4, s, g_rank));
  CHECK_RC(MPI_Issend(buf, bytes, MPI_BYTE, g_rank, tag, MPI_COMM_WORLD, &req));
  must_stay_pending(&req, what);
  receive_and_check(g_rank, tag, bytes, seed_of(4, s, g_rank), what);
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 3, "run with 3 ranks, not %d", nranks);
  g_tests = argc > 1 ? (int)mt_arg(argc, argv, 1, "TESTS") : 2000;
  for (int s = 0; s < NSIZES; ++s) {
    issend_part(s);
    ssend_init_part(s);
    ssend_part(s);
    self_part(s);
    mt_barrier();
  }
  if (g_rank == 0) printf("ssend_sync ok: %d sizes, %d polls per check\n", NSIZES, g_tests);
  MPI_Finalize();
  return 0;
}
