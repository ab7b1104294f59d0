/*
 * bigmsg: large messages both ways at once, every byte checked (run under
 * each rndv_mode: split, get, put, and copy, the path without Cross Memory
 * Attach).
 *
 *   round 1  both ranks post MPI_Irecv and MPI_Isend, then MPI_Waitall
 *   round 2  both ranks MPI_Isend first and post the receive only after the
 *            other side's request-to-send has surely arrived (it is in the
 *            ring before a synchronising message), so it is unexpected
 *
 *   round 3  (with `coll`) MPI_Bcast of MIB from each rank and
 *            MPI_Allreduce of MIB (MPI_INT, MPI_SUM): large collectives
 *            read their peers' buffers with Cross Memory Attach
 *
 *   bigmsg [MIB [no-cma|cma [coll]]]   (2 ranks; MIB default 64)
 *
 * With no-cma, each rank first makes the kernel refuse Cross Memory Attach
 * between the two (it becomes non-dumpable and gives up CAP_SYS_PTRACE, so
 * process_vm_readv/writev on it fail with EPERM): the library must notice,
 * say so once, and move the data through its two-copy path.
 */
#define _GNU_SOURCE /* syscall() */
#include "mpitest.h"
#include "../common/refuse_cma.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  const long mib = argc > 1 ? mt_arg(argc, argv, 1, "MIB") : 64;
  CHECK(mib > 0 && mib < 2048, "MIB %ld out of range", mib);
  const int no_cma = argc > 2 && strcmp(argv[2], "no-cma") == 0;
  CHECK(argc <= 2 || no_cma || strcmp(argv[2], "cma") == 0, "unknown option %s", argv[2]);
  const int coll = argc > 3 && strcmp(argv[3], "coll") == 0;
  CHECK(argc <= 3 || coll, "unknown option %s", argv[3]);
  if (no_cma) refuse_cma();
  mt_barrier(); /* both ranks refuse before either sends */
  const int bytes = (int)(mib << 20);
  const int peer = 1 - rank;
  char *out = mt_alloc((size_t)bytes), *in = mt_alloc((size_t)bytes + 64);
  const double start = MPI_Wtime();

  for (int round = 1; round <= 2; ++round) {
    char what[80];
    snprintf(what, sizeof what, "round %d: %ld MiB from rank %d", round, mib, peer);
    MPI_Request reqs[2];
    MPI_Status sts[2];
    mt_fill(out, (size_t)bytes, mt_seed((uint64_t)bytes, (uint64_t)round, (uint64_t)rank, 0xb1));
    memset(in, MT_GUARD, (size_t)bytes + 64);
    if (round == 1) {
      CHECK_RC(MPI_Irecv(in, bytes + 64, MPI_BYTE, peer, round, MPI_COMM_WORLD, &reqs[0]));
      CHECK_RC(MPI_Isend(out, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, &reqs[1]));
      CHECK_RC(MPI_Waitall(2, reqs, sts));
    } else {
      CHECK_RC(MPI_Isend(out, bytes, MPI_BYTE, peer, round, MPI_COMM_WORLD, &reqs[1]));
      mt_sync(peer);
      CHECK_RC(MPI_Recv(in, bytes + 64, MPI_BYTE, peer, round, MPI_COMM_WORLD, &sts[0]));
      CHECK_RC(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
    }
    mt_status(&sts[0], peer, round, bytes, what);
    mt_verify(in, (size_t)bytes, mt_seed((uint64_t)bytes, (uint64_t)round, (uint64_t)peer, 0xb1), what);
    mt_untouched(in + bytes, 64, what);
    mt_sync(peer);
  }
  if (coll) {
    for (int root = 0; root < 2; ++root) {
      char what[80];
      snprintf(what, sizeof what, "MPI_Bcast of %ld MiB from rank %d", mib, root);
      const uint64_t seed = mt_seed((uint64_t)bytes, 3, (uint64_t)root, 0xbc);
      if (rank == root) mt_fill(in, (size_t)bytes, seed);
      CHECK_RC(MPI_Bcast(in, bytes, MPI_BYTE, root, MPI_COMM_WORLD));
      mt_verify(in, (size_t)bytes, seed, what);
    }
    const int n = bytes / (int)sizeof(int);
    int *x = (int *)out, *sum = (int *)in;
    for (int i = 0; i < n; ++i) x[i] = (rank + 1) * (i % 1000);
    CHECK_RC(MPI_Allreduce(x, sum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) CHECK(sum[i] == 3 * (i % 1000), "MPI_Allreduce: element %d is %d", i, sum[i]);
  }
  if (rank == 0) {
    printf("bigmsg ok: %ld MiB each way, twice, in %.2f s%s%s\n", mib, MPI_Wtime() - start,
           coll ? ", then broadcast and reduced" : "", no_cma ? " (CMA refused)" : "");
  }
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
