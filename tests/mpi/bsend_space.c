/*
 * bsend_space: MPI_Buffer_attach space accounting for buffered sends.
 *
 * The messages are larger than any eager limit (1 MiB at most), so each
 * stays in the attached buffer until its receive has taken it.
 *
 *   round 1  rank 0 attaches exactly K * (SIZE + MPI_BSEND_OVERHEAD) bytes; K
 *            Bsends succeed while rank 1 has received nothing, the next
 *            Bsend, Ibsend, 0-byte Bsend and Bsend_init+Start fail with
 *            MPI_ERR_BUFFER; MPI_Buffer_detach blocks until rank 1 has
 *            received them all (rank 2 watches: told that rank 0 is about to
 *            detach, it must not see rank 0's "detached" message before it
 *            lets rank 1 receive), returns the
 *            same buffer and size, and the buffer is then rank 0's again
 *            (scribbling over it does not change what rank 1 gets)
 *   round 2  two sizes, Ibsend and Bsend_init, exactly filling the buffer;
 *            once rank 1 has received them the space is free again without
 *            a detach, and the same sends succeed a second time
 *
 *   bsend_space [TESTS]   (3 ranks; TESTS probes by rank 2, default 2000)
 */
#include "mpitest.h"

#define K 3
#define SIZE ((1 << 21) + 3)
#define SIZE2 ((1 << 20) + 7)
#define TAG_GO 900001
#define TAG_DETACHED 900002
#define TAG_RECEIVED 900003
#define TAG_DETACHING 900004

static int g_rank;

static uint64_t seed_of(int round, int i) { return mt_seed(0xb5, (uint64_t)round, (uint64_t)i, 0); }

static void receive_checked(int tag, int bytes, uint64_t seed, const char *what) {
  char *buf = mt_alloc((size_t)bytes);
  MPI_Status st;
  CHECK_RC(MPI_Recv(buf, bytes, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
  mt_status(&st, 0, tag, bytes, what);
  mt_verify(buf, (size_t)bytes, seed, what);
  free(buf);
}

static void round1(int tests) {
  if (g_rank == 0) {
    const int attach_bytes = K * (SIZE + MPI_BSEND_OVERHEAD);
    char *attached = mt_alloc((size_t)attach_bytes);
    char *msg = mt_alloc(SIZE);
    MPI_Request req;
    CHECK_RC(MPI_Buffer_attach(attached, attach_bytes));
    for (int i = 0; i < K; ++i) {
      mt_fill(msg, SIZE, seed_of(1, i));
      CHECK_RC(MPI_Bsend(msg, SIZE, MPI_BYTE, 1, i, MPI_COMM_WORLD));
    }
    /* The buffer is full until rank 1 receives, which it has not. */
    CHECK_CLASS(MPI_Bsend(msg, SIZE, MPI_BYTE, 1, K, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ibsend(msg, 1, MPI_BYTE, 1, K, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Bsend(NULL, 0, MPI_BYTE, 1, K, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Bsend_init(msg, 1, MPI_BYTE, 1, K, MPI_COMM_WORLD, &req));
    CHECK_CLASS(MPI_Start(&req), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Request_free(&req));
    /* A buffered send to MPI_PROC_NULL needs no space. */
    CHECK_RC(MPI_Bsend(msg, SIZE, MPI_BYTE, MPI_PROC_NULL, K, MPI_COMM_WORLD));

    void *detached = NULL;
    int detached_bytes = -1;
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_DETACHING, MPI_COMM_WORLD));
    CHECK_RC(MPI_Buffer_detach(&detached, &detached_bytes));
    CHECK(detached == attached && detached_bytes == attach_bytes, "MPI_Buffer_detach gave %p/%d, attached %p/%d",
          detached, detached_bytes, (void *)attached, attach_bytes);
    memset(attached, 0xEE, (size_t)attach_bytes); /* ours again */
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_DETACHED, MPI_COMM_WORLD));
    CHECK_CLASS(MPI_Buffer_detach(&detached, &detached_bytes), MPI_ERR_BUFFER);
    free(msg);
    free(attached);
  } else if (g_rank == 1) {
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 2, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < K; ++i) receive_checked(i, SIZE, seed_of(1, i), "round 1 buffered message");
  } else {
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DETACHING, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = 0; i < tests; ++i) {
      int flag = -1;
      CHECK_RC(MPI_Iprobe(0, TAG_DETACHED, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      CHECK(flag == 0, "MPI_Buffer_detach returned (seen at probe %d) before the messages were received", i);
    }
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_DETACHED, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
}

static void round2(void) {
  if (g_rank == 0) {
    const int attach_bytes = 2 * (SIZE + MPI_BSEND_OVERHEAD) + (SIZE2 + MPI_BSEND_OVERHEAD);
    char *attached = mt_alloc((size_t)attach_bytes);
    char *big = mt_alloc(SIZE), *small = mt_alloc(SIZE2);
    MPI_Request persistent, req;
    CHECK_RC(MPI_Buffer_attach(attached, attach_bytes));
    CHECK_RC(MPI_Bsend_init(small, SIZE2, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &persistent));
    for (int pass = 0; pass < 2; ++pass) {
      mt_fill(big, SIZE, seed_of(2 + pass, 0));
      CHECK_RC(MPI_Ibsend(big, SIZE, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req));
      /* The data is in the attached buffer: the request is complete and the
         user's buffer free. */
      CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
      mt_fill(big, SIZE, seed_of(2 + pass, 2));
      mt_fill(small, SIZE2, seed_of(2 + pass, 1));
      CHECK_RC(MPI_Start(&persistent));
      CHECK_RC(MPI_Wait(&persistent, MPI_STATUS_IGNORE));
      CHECK_RC(MPI_Bsend(big, SIZE, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
      CHECK_CLASS(MPI_Bsend(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD), MPI_ERR_BUFFER);
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_RECEIVED, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CHECK_RC(MPI_Request_free(&persistent));
    void *detached = NULL;
    int detached_bytes = -1;
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 2, TAG_DETACHING, MPI_COMM_WORLD));
    CHECK_RC(MPI_Buffer_detach(&detached, &detached_bytes));
    CHECK(detached == attached && detached_bytes == attach_bytes, "round 2: MPI_Buffer_detach gave %p/%d", detached,
          detached_bytes);
    free(big);
    free(small);
    free(attached);
  } else if (g_rank == 1) {
    for (int pass = 0; pass < 2; ++pass) {
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      receive_checked(0, SIZE, seed_of(2 + pass, 0), "round 2 Ibsend message");
      receive_checked(1, SIZE2, seed_of(2 + pass, 1), "round 2 Bsend_init message");
      receive_checked(2, SIZE, seed_of(2 + pass, 2), "round 2 Bsend message");
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_RECEIVED, MPI_COMM_WORLD));
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 3, "run with 3 ranks, not %d", nranks);
  const int tests = argc > 1 ? (int)mt_arg(argc, argv, 1, "TESTS") : 2000;
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  round1(tests);
  mt_barrier();
  round2();
  if (g_rank == 0) printf("bsend_space ok\n");
  MPI_Finalize();
  return 0;
}
