/*
 * Ping-pong kernel: half the round-trip time between ranks 0 and 1, over
 * sizes 0 B .. 4 MiB, with the bandwidth it implies. Each size runs a
 * warm-up, then `REPS` timed batches; it prints the median batch and the
 * spread (min..max) so noise is visible. Plain MPI: build the same source
 * with any MPI to compare in one run.
 *   pingpong [--check]      --check fills and verifies every byte
 * Output: one line per size:
 *   pingpong SIZE bytes: median US us (min US, max US), MBPS MB/s
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 9

static int compare(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int check = argc > 1 && strcmp(argv[1], "--check") == 0;
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "pingpong: run with 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long max_bytes = 4L << 20;
  unsigned char *buf = malloc((size_t)max_bytes);
  memset(buf, 0, (size_t)max_bytes);
  for (long bytes = 0; bytes <= max_bytes; bytes = bytes == 0 ? 1 : bytes * 4) {
    const int iters = bytes >= 65536 ? 50 : 2000;
    double batch[REPS];
    for (int rep = -1; rep < REPS; ++rep) { /* rep -1 is the warm-up */
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        if (rank == 0) {
          if (check) memset(buf, (int)((i + bytes) & 0xff), (size_t)bytes);
          MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (check) {
            for (long k = 0; k < bytes; ++k) {
              if (buf[k] != (unsigned char)((i + bytes + 1) & 0xff)) {
                fprintf(stderr, "pingpong: byte %ld of %ld is wrong\n", k, bytes);
                MPI_Abort(MPI_COMM_WORLD, 1);
              }
            }
          }
        } else if (rank == 1) {
          MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (check) {
            for (long k = 0; k < bytes; ++k) buf[k]++;
          }
          MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      if (rep >= 0) batch[rep] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    }
    if (rank == 0) {
      qsort(batch, REPS, sizeof batch[0], compare);
      const double median = batch[REPS / 2];
      printf("pingpong %ld bytes: median %.3f us (min %.3f, max %.3f), %.1f MB/s\n", bytes, median, batch[0],
             batch[REPS - 1], median > 0 ? (double)bytes / median : 0.0);
      fflush(stdout);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
