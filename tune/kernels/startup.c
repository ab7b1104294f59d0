/*
 * Start-up kernel: the empty MPI program. Timing a whole job of it
 * (launch, MPI_Init, MPI_Finalize, teardown) measures what a user waits for
 * before and after any real work. Plain MPI, so the same source builds
 * against any MPI implementation for side-by-side runs.
 */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
