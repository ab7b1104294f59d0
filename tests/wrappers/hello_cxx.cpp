// Compiled by mpicxx in the wrappers test: mpi.h must compile as C++.
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::printf("c++ rank %d of %d\n", rank, size);
  MPI_Finalize();
  return 0;
}
