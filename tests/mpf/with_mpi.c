/* MPF and MPI in one program (man 3 mpf): either may start first and either
 * may end first; process ids are MPI_COMM_WORLD ranks; a process waiting in
 * mpf_receive still serves MPI, and the other way round.
 *
 *   with_mpi mpi-first | mpf-first
 *   with_mpi mpi-again    MPI_Init after MPI_Finalize, while MPF keeps the
 *                         runtime up: a fatal error that says MPI was finalized
 */
#include <mpi.h>

#include "mpftest.h"

static void check_mpi_state(int initialized, int finalized) {
  int flag = -1;
  MPI_Initialized(&flag);
  CHECK(flag == initialized, "MPI_Initialized says %d, expected %d", flag, initialized);
  MPI_Finalized(&flag);
  CHECK(flag == finalized, "MPI_Finalized says %d, expected %d", flag, finalized);
}

int main(int argc, char** argv) {
  const int mpi_first = argc > 1 && strcmp(argv[1], "mpi-first") == 0;
  if (argc > 1 && strcmp(argv[1], "mpi-again") == 0) {
    CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
    MPI_Init(&argc, &argv); /* fatal: MPI starts once per process */
    CHECK(0, "MPI_Init after MPI_Finalize returned");
  }
  int rank = -1, size = 0;
  check_mpi_state(0, 0);
  if (mpi_first) {
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
    check_mpi_state(0, 0); /* MPF's start is not MPI's */
    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
  }
  check_mpi_state(1, 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(mpf_rank() == rank && mpf_size() == size, "MPF says %d of %d, MPI %d of %d", mpf_rank(), mpf_size(), rank,
        size);

  /* Everyone joins "mix" as a BROADCAST receiver; MPI_Barrier orders the
   * joins before rank 0's sends. */
  mpf_lnvc_t s = -1, r;
  CHECK_RC(mpf_open_receive("mix", MPF_BROADCAST, &r), MPF_SUCCESS);
  if (rank == 0) CHECK_RC(mpf_open_send("mix", &s), MPF_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Rank 0 waits for an MPI message from the last rank before sending: the
   * others wait in mpf_receive meanwhile, and the last rank's MPI send must
   * complete without rank 0 being in MPI for long. */
  if (rank == 0) {
    int token = 0;
    if (size > 1) MPI_Recv(&token, 1, MPI_INT, size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(size == 1 || token == 42, "MPI token %d", token);
    for (int i = 0; i < 10; ++i) CHECK_RC(mpf_send(s, &i, sizeof i), MPF_SUCCESS);
  } else if (rank == size - 1) {
    int token = 42;
    MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
  for (int i = 0; i < 10; ++i) {
    int got = -1;
    size_t bytes = sizeof got;
    CHECK_RC(mpf_receive(r, &got, &bytes), MPF_SUCCESS);
    CHECK(got == i, "message %d came as %d", i, got);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);

  /* The API started first ends first; the other still works after. */
  if (mpi_first) {
    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
    check_mpi_state(1, 1);
    ft_barrier("after.mpi");
    CHECK_RC(mpf_finalize(), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_finalize(), MPF_SUCCESS);
    CHECK_RC(mpf_rank(), MPF_ERR_NOT_INITIALIZED);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "MPI_Allreduce after mpf_finalize gave %d", sum);
    CHECK(MPI_Finalize() == MPI_SUCCESS, "MPI_Finalize");
  }
  if (rank == 0) printf("with_mpi %s ok\n", mpi_first ? "mpi-first" : "mpf-first");
  return 0;
}
