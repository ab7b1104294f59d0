/*
 * finalize: sends still in flight when their sender reaches MPI_Finalize.
 *
 *   finalize bsend          rank 0 attaches a buffer, Bsends a small and a
 *                           large message to rank 1 and calls MPI_Finalize
 *                           without detaching: "If no MPI_BUFFER_DETACH
 *                           occurs between an MPI_BSEND and MPI_FINALIZE,
 *                           the MPI_FINALIZE implicitly supplies the
 *                           MPI_BUFFER_DETACH" (MPI 3.1 §8.7, Example 8.9),
 *                           so both messages must arrive
 *   finalize request_free   rank 0 Isends a large message, frees the request,
 *                           and waits for rank 1 (a point-to-point barrier)
 *                           before MPI_Finalize (MPI 3.1 §8.7, Example 8.7)
 *
 * (2 ranks)
 */
#include "mpitest.h"

#define BIG 300000

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  CHECK(argc > 1, "usage: finalize bsend|request_free");
  const int bsend = strcmp(argv[1], "bsend") == 0;
  CHECK(bsend || strcmp(argv[1], "request_free") == 0, "unknown mode %s", argv[1]);
  static char attached[BIG + 100 + 2 * MPI_BSEND_OVERHEAD];

  if (rank == 0) {
    static char big[BIG];
    char small[100];
    mt_fill(big, BIG, mt_seed(0xf7, 1, 0, 0));
    mt_fill(small, sizeof small, mt_seed(0xf7, 2, 0, 0));
    if (bsend) {
      CHECK_RC(MPI_Buffer_attach(attached, (int)sizeof attached));
      CHECK_RC(MPI_Bsend(small, (int)sizeof small, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
      CHECK_RC(MPI_Bsend(big, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
    } else {
      MPI_Request req;
      CHECK_RC(MPI_Isend(big, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req));
      CHECK_RC(MPI_Request_free(&req));
      mt_barrier();
    }
  } else {
    char *buf = mt_alloc(BIG);
    MPI_Status st;
    if (bsend) {
      CHECK_RC(MPI_Recv(buf, 100, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st));
      mt_status(&st, 0, 2, 100, "small buffered message");
      mt_verify(buf, 100, mt_seed(0xf7, 2, 0, 0), "small buffered message");
      /* Give rank 0 time to be inside MPI_Finalize before the large message
         is matched (a correct library passes however long this takes). */
      for (int i = 0; i < 20000; ++i) {
        int flag = -1;
        CHECK_RC(MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(flag == 0, "a message with tag 3 arrived; nobody sends one");
      }
    }
    CHECK_RC(MPI_Recv(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
    mt_status(&st, 0, 1, BIG, "large message");
    mt_verify(buf, BIG, mt_seed(0xf7, 1, 0, 0), "large message");
    if (!bsend) mt_barrier();
    free(buf);
    printf("finalize ok: %s\n", argv[1]);
  }
  MPI_Finalize();
  return 0;
}
