/*
 * Token-ring kernel: a token goes round all ranks ROUNDS times; prints the
 * time per hop (median of 5 timed laps of ROUNDS/5 rounds, after a warm-up
 * round). With more ranks than CPUs this measures how fast a waiting rank
 * is woken. Plain MPI.
 *   token_ring [ROUNDS]
 * Output: token_ring N ranks: median US us per hop (min US, max US)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define LAPS 5

static int compare(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void one_round(int rank, int size, int *token) {
  if (rank == 0) {
    ++*token;
    MPI_Send(token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
    MPI_Recv(token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ++*token;
    MPI_Send(token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, token = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 100;
  const int per_lap = rounds / LAPS > 0 ? rounds / LAPS : 1;
  one_round(rank, size, &token); /* warm-up: every rank has started */
  double lap[LAPS];
  for (int l = 0; l < LAPS; ++l) {
    const double t0 = MPI_Wtime();
    for (int r = 0; r < per_lap; ++r) one_round(rank, size, &token);
    lap[l] = (MPI_Wtime() - t0) / per_lap / size * 1e6;
  }
  if (rank == 0) {
    if (token != (1 + LAPS * per_lap) * size) {
      fprintf(stderr, "token_ring: token is %d, expected %d\n", token, (1 + LAPS * per_lap) * size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    qsort(lap, LAPS, sizeof lap[0], compare);
    printf("token_ring %d ranks: median %.2f us per hop (min %.2f, max %.2f)\n", size, lap[LAPS / 2], lap[0],
           lap[LAPS - 1]);
  }
  MPI_Finalize();
  return 0;
}
