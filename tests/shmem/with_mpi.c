/* MPI and OpenSHMEM in one program, started in either order (argv[1]:
 * mpi-first or shmem-first): PE numbers are MPI_COMM_WORLD ranks, both
 * APIs move data and synchronise together, and both finalize. */
#include <mpi.h>
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemtest.h"

int main(int argc, char** argv) {
  const int mpi_first = argc > 1 && strcmp(argv[1], "mpi-first") == 0;
  if (mpi_first) {
    MPI_Init(&argc, &argv);
    shmem_init();
  } else {
    shmem_init();
    MPI_Init(&argc, &argv);
  }
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(rank == shmem_my_pe(), "MPI rank %d is PE %d", rank, shmem_my_pe());
  CHECK(size == shmem_n_pes(), "MPI size %d, SHMEM %d PEs", size, shmem_n_pes());

  /* A put, then MPI's barrier: MPI's synchronisation orders SHMEM's
   * completed (quieted) puts too. */
  long* box = shmem_malloc(sizeof(long));
  *box = -1;
  shmem_barrier_all();
  shmem_long_p(box, rank, (rank + 1) % size);
  shmem_quiet();
  MPI_Barrier(MPI_COMM_WORLD);
  const int left = (rank + size - 1) % size;
  CHECK(*box == left, "the put from PE %d holds %ld", left, *box);

  /* The same sum both ways. */
  long mine = rank + 1, by_mpi = 0;
  long* in = shmem_malloc(sizeof(long));
  long* out = shmem_malloc(sizeof(long));
  *in = mine;
  MPI_Allreduce(&mine, &by_mpi, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  shmem_long_sum_reduce(SHMEM_TEAM_WORLD, out, in, 1);
  CHECK(*out == by_mpi && by_mpi == (long)size * (size + 1) / 2, "SHMEM sum %ld, MPI sum %ld", *out, by_mpi);

  /* Messages between the APIs' collectives. */
  if (size > 1) {
    int token = rank;
    if (rank == 0) MPI_Send(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Recv(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(token == 0, "rank 1 received %d", token);
    }
  }
  shmem_free(out);
  shmem_free(in);
  shmem_free(box);
  if (mpi_first) {
    shmem_finalize();
    MPI_Finalize();
  } else {
    MPI_Finalize();
    shmem_finalize();
  }
  if (rank == 0) printf("with_mpi %s ok\n", mpi_first ? "mpi-first" : "shmem-first");
  return 0;
}
