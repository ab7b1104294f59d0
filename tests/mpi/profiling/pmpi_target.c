/*
 * pmpi_target: an ordinary MPI program with calls a profiling library can
 * count exactly (2 ranks or more; ranks 0 and 1 talk). Ranks 0 and 1 each
 * make 10 MPI_Send of 100 ints and 10 MPI_Recv, one MPI_Isend/MPI_Irecv
 * pair waited with MPI_Wait, one MPI_Sendrecv and one MPI_Sendrecv_replace
 * of 8 doubles; every rank makes 3 MPI_Allreduce of 4 ints, 2 MPI_Bcast of
 * 50 bytes, 1 MPI_Barrier and 1 MPI_Comm_dup. The library itself calls
 * other MPI functions inside these (MPI_Sendrecv_replace, the communicator
 * calls): a tool must see only the program's calls.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ints[100] = {0};
  double doubles[8] = {0}, other[8] = {0};
  if (rank < 2) {
    const int peer = 1 - rank;
    for (int i = 0; i < 10; i++) {
      if (rank == 0) {
        MPI_Send(ints, 100, MPI_INT, peer, i, MPI_COMM_WORLD);
        MPI_Recv(ints, 100, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(ints, 100, MPI_INT, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(ints, 100, MPI_INT, peer, i, MPI_COMM_WORLD);
      }
    }
    MPI_Request reqs[2];
    MPI_Irecv(other, 8, MPI_DOUBLE, peer, 50, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(doubles, 8, MPI_DOUBLE, peer, 50, MPI_COMM_WORLD, &reqs[1]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Sendrecv(doubles, 8, MPI_DOUBLE, peer, 60, other, 8, MPI_DOUBLE, peer, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv_replace(doubles, 8, MPI_DOUBLE, peer, 70, peer, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int in[4] = {1, 2, 3, 4}, out[4];
  for (int i = 0; i < 3; i++) MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char text[50] = "profiled";
  MPI_Bcast(text, 50, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(text, 50, MPI_CHAR, size - 1, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_free(&dup);
  if (rank == 0) printf("pmpi_target ok: %d ranks, allreduce %d\n", size, out[0]);
  MPI_Finalize();
  return 0;
}
