/*
 * token_ring: a token passed around every rank, ROUNDS times; each hop
 * checks the token's value and increments it. Meant for many more ranks than
 * CPUs (32 and 64 ranks on 2 cores): it finishes only if a rank that waits
 * is woken when its token arrives.
 *
 *   token_ring [ROUNDS]   (2 or more ranks; ROUNDS default 50)
 */
#include "mpitest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "run with 2 or more ranks");
  const long rounds = argc > 1 ? mt_arg(argc, argv, 1, "ROUNDS") : 50;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const double start = MPI_Wtime();
  long token = 0;
  for (long round = 0; round < rounds; ++round) {
    MPI_Status st;
    if (rank == 0) {
      token = round * size + 1; /* every hop, this one included, adds one */
      CHECK_RC(MPI_Send(&token, 1, MPI_LONG, right, (int)round, MPI_COMM_WORLD));
      CHECK_RC(MPI_Recv(&token, 1, MPI_LONG, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(token == (round + 1) * size, "round %ld: the token came back as %ld, expected %ld", round, token,
            (round + 1) * size);
    } else {
      CHECK_RC(MPI_Recv(&token, 1, MPI_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(token == round * size + rank, "round %ld: got token %ld, expected %ld", round, token,
            round * size + rank);
      ++token;
      CHECK_RC(MPI_Send(&token, 1, MPI_LONG, right, (int)round, MPI_COMM_WORLD));
    }
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == (int)round, "round %ld: token from rank %d tag %d", round,
          st.MPI_SOURCE, st.MPI_TAG);
  }
  if (rank == 0) {
    const double seconds = MPI_Wtime() - start;
    printf("token_ring ok: %d ranks, %ld rounds, %.3f s (%.1f us per hop)\n", size, rounds, seconds,
           seconds * 1e6 / ((double)rounds * size));
  }
  MPI_Finalize();
  return 0;
}
