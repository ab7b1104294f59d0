/*
 * split_copy: large messages that both ends copy at once (rndv_mode=split),
 * every byte checked.
 *
 *   warm-up   one 1 MiB message each way: the first large message of a pair
 *             is read by the receiver alone, and proves CMA works for it
 *   many      six 3 MiB messages in flight from rank 0 to rank 1 at once:
 *             more than a pair has split copies (4), so some are read a chunk
 *             at a time until a split copy is free, then split
 *   uneven    each size around the chunk boundaries (256 KiB, 256 KiB + 1,
 *             5 MiB - 3): the last chunk is short
 *   absent    rank 0 starts a 16 MiB send and then stays out of MPI until
 *             rank 1 says (through a file, not MPI) that its receive is
 *             complete: the receiver copies the sender's chunks too, so
 *             nothing waits for a sender that does not call MPI; then the
 *             same with six 3 MiB sends, which hold every split copy of the
 *             pair (only the sender's fin frees one) and leave two messages
 *             for the receiver to read alone, a chunk at a time
 *
 *   split_copy DIR   (2 ranks; DIR: a directory for the "received" file)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, access, unlink */
#include "mpitest.h"

#include <time.h>
#include <unistd.h>

enum { MIB = 1 << 20, MANY = 6 };

static void exchange(long bytes, int tag, uint64_t case_id) {
  const int rank = mt_rank(), peer = 1 - rank;
  unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
  CHECK(out != NULL && in != NULL, "cannot allocate %ld bytes", bytes);
  mt_fill(out, (size_t)bytes, mt_seed(case_id, (uint64_t)bytes, (uint64_t)rank, 0));
  MPI_Request r[2];
  CHECK_RC(MPI_Irecv(in, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[0]));
  CHECK_RC(MPI_Isend(out, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r[1]));
  CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  mt_verify(in, (size_t)bytes, mt_seed(case_id, (uint64_t)bytes, (uint64_t)peer, 0), "exchanged message");
  free(out);
  free(in);
}

static void many(void) {
  const int rank = mt_rank();
  const long bytes = 3L * MIB;
  unsigned char *buf = malloc((size_t)bytes * MANY);
  CHECK(buf != NULL, "cannot allocate");
  MPI_Request r[MANY];
  for (int i = 0; i < MANY; ++i) {
    unsigned char *b = buf + (long)i * bytes;
    if (rank == 0) {
      mt_fill(b, (size_t)bytes, mt_seed(2, (uint64_t)i, 0, 0));
      CHECK_RC(MPI_Isend(b, (int)bytes, MPI_BYTE, 1, 10 + i, MPI_COMM_WORLD, &r[i]));
    } else {
      CHECK_RC(MPI_Irecv(b, (int)bytes, MPI_BYTE, 0, 10 + i, MPI_COMM_WORLD, &r[i]));
    }
  }
  CHECK_RC(MPI_Waitall(MANY, r, MPI_STATUSES_IGNORE));
  if (rank == 1) {
    for (int i = 0; i < MANY; ++i) mt_verify(buf + (long)i * bytes, (size_t)bytes, mt_seed(2, (uint64_t)i, 0, 0), "message");
  }
  free(buf);
}

/* `count` messages of `bytes` from rank 0, which stays out of MPI once it
   has started its sends. */
static void absent(const char *dir, int count, long bytes, int tag) {
  const int rank = mt_rank();
  char path[4096];
  snprintf(path, sizeof path, "%s/split_copy.received", dir);
  unsigned char *buf = malloc((size_t)bytes * (size_t)count);
  MPI_Request r[MANY];
  CHECK(buf != NULL && count <= MANY, "cannot allocate");
  if (rank == 0) {
    unlink(path);
    for (int i = 0; i < count; ++i) mt_fill(buf + (long)i * bytes, (size_t)bytes, mt_seed(3, (uint64_t)i, 0, 0));
    mt_sync(1);
    for (int i = 0; i < count; ++i) {
      CHECK_RC(MPI_Isend(buf + (long)i * bytes, (int)bytes, MPI_BYTE, 1, tag + i, MPI_COMM_WORLD, &r[i]));
    }
    /* Out of MPI until the receives are complete (at most 50 s: the test's
       timeout is shorter, so a receiver waiting for us fails the test). */
    for (int i = 0; access(path, F_OK) != 0; ++i) {
      CHECK(i < 50000, "rank 1 did not complete its %d receives while rank 0 stayed out of MPI", count);
      nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    CHECK_RC(MPI_Waitall(count, r, MPI_STATUSES_IGNORE));
    unlink(path);
  } else {
    mt_sync(0);
    for (int i = 0; i < count; ++i) {
      CHECK_RC(MPI_Irecv(buf + (long)i * bytes, (int)bytes, MPI_BYTE, 0, tag + i, MPI_COMM_WORLD, &r[i]));
    }
    CHECK_RC(MPI_Waitall(count, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < count; ++i) {
      mt_verify(buf + (long)i * bytes, (size_t)bytes, mt_seed(3, (uint64_t)i, 0, 0), "message from a sender outside MPI");
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL && fclose(f) == 0, "cannot create %s", path);
  }
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 2, "usage: split_copy DIR");
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "runs with 2 ranks, not %d", size);
  exchange(MIB, 1, 1);
  many();
  const long sizes[] = {256L * 1024, 256L * 1024 + 1, 5L * MIB - 3};
  for (int i = 0; i < 3; ++i) exchange(sizes[i], 2, 4 + (uint64_t)i);
  absent(argv[1], 1, 16L * MIB, 20);
  absent(argv[1], MANY, 3L * MIB, 30);
  mt_sync(1 - mt_rank());
  if (mt_rank() == 0) printf("split_copy ok\n");
  MPI_Finalize();
  return 0;
}
