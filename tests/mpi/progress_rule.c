/*
 * progress_rule: MPI's progress rule under resource pressure. "If a pair of
 * matching send and receive have been initiated on two processes, then at
 * least one of these two operations will complete, independently of other
 * actions in the system" (MPI 3.1 §3.5). Each case is a correct MPI program
 * in which other traffic holds the library's resources (unexpected pool,
 * ring slots, eager buffers) while a matched pair must still complete.
 * (2 ranks each.)
 *
 *   cells        rank 1 starts a rendezvous send (tag 0), then CELLS eager
 *                sends (tag 1) that rank 0 has not received yet, so they hold
 *                rank 1's eager buffers; rank 0 receives tag 0 first. (Run it
 *                with rndv_mode=copy: the rendezvous data must not need an
 *                eager buffer that only a later receive frees.)
 *   ack          rank 1 starts N small sends (tag 1) that fill rank 0's
 *                unexpected pool and rings, then receives tag 2; rank 0
 *                MPI_Ssends tag 2, then receives the N. The synchronous
 *                send's acknowledgement must not wait behind the flood.
 *   rndv_reply   the same with a standard send of a rendezvous-sized message
 *                (its reply to the sender must not wait behind the flood)
 *   overtake     rank 1 starts N small sends (tag 1) and one more (tag 2);
 *                rank 0 receives tag 2 first, then the N: a posted receive
 *                must find its message behind unexpected ones that no longer
 *                fit in the pool
 *   mprobe_many  rank 1 starts N small sends; rank 0 claims all N with
 *                MPI_Mprobe before receiving any with MPI_Mrecv: each claim
 *                takes a message out of the unexpected pool, so the messages
 *                still in the ring behind it must come in
 *
 *   progress_rule CASE [N]   (N: messages, default 2000; for cells: eager
 *                             sends, default 64)
 */
#include "mpitest.h"

#define EAGER_BYTES 1000
#define RNDV_BYTES 100000

static int g_rank;

/* Rank 1's flood: n small messages with tag 1, started at once. */
static MPI_Request *start_flood(long n, int bytes, uint64_t **data) {
  MPI_Request *reqs = mt_alloc(sizeof(MPI_Request) * (size_t)(n + 1));
  *data = mt_alloc((size_t)(n + 1) * (size_t)(bytes > 8 ? bytes : 8));
  for (long i = 0; i < n; ++i) {
    char *p = (char *)*data + (size_t)i * (size_t)(bytes > 8 ? bytes : 8);
    mt_fill(p, (size_t)bytes, mt_seed(0xf1, (uint64_t)i, 0, 0));
    CHECK_RC(MPI_Isend(p, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[i]));
  }
  return reqs;
}

/* Rank 0 takes the flood, in order. */
static void take_flood(long n, int bytes) {
  char *buf = mt_alloc((size_t)bytes);
  for (long i = 0; i < n; ++i) {
    MPI_Status st;
    char what[64];
    snprintf(what, sizeof what, "flood message %ld", i);
    CHECK_RC(MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st));
    mt_status(&st, 1, 1, bytes, what);
    mt_verify(buf, (size_t)bytes, mt_seed(0xf1, (uint64_t)i, 0, 0), what);
  }
  free(buf);
}

static void send_pattern(int bytes, int tag, int synchronous) {
  char *buf = mt_alloc((size_t)bytes);
  mt_fill(buf, (size_t)bytes, mt_seed(0xf2, (uint64_t)tag, 0, 0));
  if (synchronous) {
    CHECK_RC(MPI_Ssend(buf, bytes, MPI_BYTE, 1 - g_rank, tag, MPI_COMM_WORLD));
  } else {
    CHECK_RC(MPI_Send(buf, bytes, MPI_BYTE, 1 - g_rank, tag, MPI_COMM_WORLD));
  }
  free(buf);
}

static void recv_pattern(int bytes, int tag, const char *what) {
  char *buf = mt_alloc((size_t)bytes);
  MPI_Status st;
  CHECK_RC(MPI_Recv(buf, bytes, MPI_BYTE, 1 - g_rank, tag, MPI_COMM_WORLD, &st));
  mt_status(&st, 1 - g_rank, tag, bytes, what);
  mt_verify(buf, (size_t)bytes, mt_seed(0xf2, (uint64_t)tag, 0, 0), what);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  CHECK(argc > 1, "usage: progress_rule cells|ack|rndv_reply|overtake|mprobe_many [N]");
  const char *which = argv[1];
  const int cells = strcmp(which, "cells") == 0;
  const long n = argc > 2 ? mt_arg(argc, argv, 2, "N") : cells ? 64 : 2000;
  const int small = cells ? EAGER_BYTES : 8;
  uint64_t *data = NULL;

  if (cells) {
    if (g_rank == 1) {
      MPI_Request big;
      char *buf = mt_alloc(RNDV_BYTES);
      mt_fill(buf, RNDV_BYTES, mt_seed(0xf2, 0, 0, 0));
      CHECK_RC(MPI_Isend(buf, RNDV_BYTES, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &big));
      MPI_Request *reqs = start_flood(n, small, &data);
      reqs[n] = big;
      CHECK_RC(MPI_Waitall((int)n + 1, reqs, MPI_STATUSES_IGNORE));
      free(reqs);
      free(buf);
    } else {
      recv_pattern(RNDV_BYTES, 0, "rendezvous message received before the eager ones");
      take_flood(n, small);
    }
  } else if (strcmp(which, "ack") == 0 || strcmp(which, "rndv_reply") == 0) {
    const int bytes = strcmp(which, "ack") == 0 ? 8 : RNDV_BYTES;
    if (g_rank == 1) {
      MPI_Request *reqs = start_flood(n, small, &data);
      recv_pattern(bytes, 2, "message sent to the flooding rank");
      CHECK_RC(MPI_Waitall((int)n, reqs, MPI_STATUSES_IGNORE));
      free(reqs);
    } else {
      send_pattern(bytes, 2, strcmp(which, "ack") == 0);
      take_flood(n, small);
    }
  } else if (strcmp(which, "overtake") == 0) {
    if (g_rank == 1) {
      MPI_Request *reqs = start_flood(n, small, &data);
      char last[8];
      mt_fill(last, sizeof last, mt_seed(0xf2, 2, 0, 0));
      CHECK_RC(MPI_Isend(last, (int)sizeof last, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[n]));
      CHECK_RC(MPI_Waitall((int)n + 1, reqs, MPI_STATUSES_IGNORE));
      free(reqs);
    } else {
      recv_pattern(8, 2, "the last message, received first");
      take_flood(n, small);
    }
  } else if (strcmp(which, "mprobe_many") == 0) {
    if (g_rank == 1) {
      MPI_Request *reqs = start_flood(n, small, &data);
      CHECK_RC(MPI_Waitall((int)n, reqs, MPI_STATUSES_IGNORE));
      free(reqs);
    } else {
      MPI_Message *msgs = mt_alloc(sizeof(MPI_Message) * (size_t)n);
      char *buf = mt_alloc((size_t)small);
      for (long i = 0; i < n; ++i) {
        MPI_Status st;
        CHECK_RC(MPI_Mprobe(1, 1, MPI_COMM_WORLD, &msgs[i], &st));
        mt_status(&st, 1, 1, small, "MPI_Mprobe of a flood message");
      }
      for (long i = 0; i < n; ++i) {
        MPI_Status st;
        char what[64];
        snprintf(what, sizeof what, "flood message %ld, claimed by MPI_Mprobe", i);
        CHECK_RC(MPI_Mrecv(buf, small, MPI_BYTE, &msgs[i], &st));
        mt_status(&st, 1, 1, small, what);
        mt_verify(buf, (size_t)small, mt_seed(0xf1, (uint64_t)i, 0, 0), what);
      }
      free(buf);
      free(msgs);
    }
  } else {
    CHECK(0, "unknown case %s", which);
  }
  free(data);
  if (g_rank == 0) printf("progress_rule ok: %s\n", which);
  MPI_Finalize();
  return 0;
}
