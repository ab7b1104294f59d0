/* The demo job of the README: every rank says who and where it is, then
   passes its greeting to the next rank around a ring. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, size, len;
  char host[MPI_MAX_PROCESSOR_NAME];
  char library[MPI_MAX_LIBRARY_VERSION_STRING];
  char greeting[64], received[64];

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  MPI_Get_library_version(library, &len);

  snprintf(greeting, sizeof greeting, "greetings from rank %d", rank);
  MPI_Sendrecv(greeting, (int)sizeof greeting, MPI_CHAR, (rank + 1) % size, 0, received, (int)sizeof received,
               MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("Hello from rank %d of %d on %s (%s); got \"%s\"\n", rank, size, host, library, received);
  MPI_Finalize();
  return 0;
}
