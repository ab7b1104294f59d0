/*
 * direct_recv: a blocking MPI_Recv from one rank takes a short or eager
 * message straight from that rank's ring when it is the next packet there (the
 * engine's try_recv_now), and goes the usual way otherwise. Both ways must
 * give MPI's answer. Rank 1 sends, rank 0 receives; rank 0 first sleeps
 * outside MPI where a case needs the packets to wait in the ring:
 *
 *   arrived    messages of every size around the short and eager limits, in
 *              the ring, received in order by source and tag, then by
 *              source and MPI_ANY_TAG
 *   other_tag  the ring's first packet has another tag: the receive for the
 *              second one gets the second, the first stays for its receive
 *   posted     a wildcard MPI_Irecv posted earlier gets the first message,
 *              the blocking receive the second
 *   probed     messages that MPI_Probe moved to the unexpected queue come
 *              before later ones, in order
 *   late       the message comes long after the receive began waiting
 *   ssend      synchronous sends, waiting in the ring for their receive
 *   self       rank 0 to itself
 *   pingpong   both directions, sizes cycling, every byte checked
 *
 *   direct_recv SHORT_LIMIT EAGER_LIMIT   (2 ranks)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>

#include "mpitest.h"

#define TAG_GO 900001
#define MAX_BYTES 8192
#define PINGPONGS 2000

#define NSIZES 6
static int g_rank, g_eager_limit;
static int g_sizes[NSIZES];

static void sleep_ms(long ms) { nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL); }

static uint64_t seed_of(int kase, int seq, int bytes) {
  return mt_seed((uint64_t)kase, (uint64_t)seq, (uint64_t)bytes, 0xd1ec);
}

static void send_message(int to, int kase, int seq, int bytes, int tag) {
  static unsigned char buf[MAX_BYTES];
  mt_fill(buf, (size_t)bytes, seed_of(kase, seq, bytes));
  CHECK_RC(MPI_Send(buf, bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD));
}

/* Receives message `seq` of case `kase` from `from` with the receive's tag
   `want_tag` (or MPI_ANY_TAG) and checks it was sent with `tag`. */
static void recv_message(int from, int kase, int seq, int bytes, int want_tag, int tag, const char *what) {
  static unsigned char buf[MAX_BYTES + 64];
  MPI_Status st;
  mt_scribble_status(&st);
  memset(buf, MT_GUARD, sizeof buf);
  CHECK_RC(MPI_Recv(buf, MAX_BYTES, MPI_BYTE, from, want_tag, MPI_COMM_WORLD, &st));
  mt_status(&st, from, tag, bytes, what);
  mt_verify(buf, (size_t)bytes, seed_of(kase, seq, bytes), what);
  mt_untouched(buf + bytes, sizeof buf - (size_t)bytes, what);
}

static void go(void) {
  if (g_rank == 0) {
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
  } else {
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
}

static void case_arrived(void) {
  for (int by_tag = 1; by_tag >= 0; --by_tag) {
    const int kase = 1 + by_tag;
    go();
    if (g_rank == 1) {
      for (int i = 0; i < NSIZES; ++i) send_message(0, kase, i, g_sizes[i], 10 + i);
    } else {
      sleep_ms(20);
      for (int i = 0; i < NSIZES; ++i) {
        recv_message(1, kase, i, g_sizes[i], by_tag ? 10 + i : MPI_ANY_TAG, 10 + i,
                     by_tag ? "arrived, by tag" : "arrived, any tag");
      }
    }
  }
}

static void case_other_tag(void) {
  for (int i = 0; i < NSIZES; ++i) {
    go();
    const int first = g_sizes[i], second = g_sizes[NSIZES - 1 - i];
    if (g_rank == 1) {
      /* Nonblocking: a rendezvous first message is received second. */
      static unsigned char bufs[2][MAX_BYTES];
      MPI_Request reqs[2];
      mt_fill(bufs[0], (size_t)first, seed_of(3, 2 * i, first));
      mt_fill(bufs[1], (size_t)second, seed_of(3, 2 * i + 1, second));
      CHECK_RC(MPI_Isend(bufs[0], first, MPI_BYTE, 0, 31, MPI_COMM_WORLD, &reqs[0]));
      CHECK_RC(MPI_Isend(bufs[1], second, MPI_BYTE, 0, 32, MPI_COMM_WORLD, &reqs[1]));
      CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    } else {
      sleep_ms(5);
      recv_message(1, 3, 2 * i + 1, second, 32, 32, "other_tag: the second message, by its tag");
      recv_message(1, 3, 2 * i, first, 31, 31, "other_tag: the first message, after the second");
    }
  }
}

static void case_posted(void) {
  for (int i = 0; i < NSIZES; ++i) {
    if (g_rank == 1) {
      go();
      send_message(0, 4, 2 * i, g_sizes[i], 40);
      send_message(0, 4, 2 * i + 1, g_sizes[i], 40);
    } else {
      static unsigned char early[MAX_BYTES];
      MPI_Request req;
      MPI_Status st;
      CHECK_RC(MPI_Irecv(early, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
      go();
      sleep_ms(5);
      recv_message(1, 4, 2 * i + 1, g_sizes[i], 40, 40, "posted: the blocking receive gets the second message");
      CHECK_RC(MPI_Wait(&req, &st));
      mt_status(&st, 1, 40, g_sizes[i], "posted: the earlier wildcard receive");
      mt_verify(early, (size_t)g_sizes[i], seed_of(4, 2 * i, g_sizes[i]), "posted: the earlier wildcard receive");
    }
  }
}

static void case_probed(void) {
  go();
  if (g_rank == 1) {
    for (int i = 0; i < NSIZES; ++i) send_message(0, 5, i, g_sizes[i], 50);
  } else {
    MPI_Status st;
    CHECK_RC(MPI_Probe(1, 50, MPI_COMM_WORLD, &st)); /* moves what has arrived to the unexpected queue */
    mt_status(&st, 1, 50, g_sizes[0], "probed: the probe");
    for (int i = 0; i < NSIZES; ++i) recv_message(1, 5, i, g_sizes[i], 50, 50, "probed: in the order sent");
  }
}

static void case_late(void) {
  go();
  if (g_rank == 1) {
    sleep_ms(50);
    send_message(0, 6, 0, g_sizes[1], 60);
  } else {
    recv_message(1, 6, 0, g_sizes[1], 60, 60, "late");
  }
}

static void case_ssend(void) {
  for (int i = 0; i < NSIZES; ++i) {
    go();
    if (g_rank == 1) {
      static unsigned char buf[MAX_BYTES];
      mt_fill(buf, (size_t)g_sizes[i], seed_of(7, i, g_sizes[i]));
      CHECK_RC(MPI_Ssend(buf, g_sizes[i], MPI_BYTE, 0, 70, MPI_COMM_WORLD));
    } else {
      sleep_ms(5);
      recv_message(1, 7, i, g_sizes[i], 70, 70, "ssend");
    }
  }
}

static void case_self(void) {
  if (g_rank != 0) return;
  for (int i = 0; i < NSIZES; ++i) {
    if (g_sizes[i] > g_eager_limit) continue; /* a rendezvous to oneself would wait for its own receive */
    send_message(0, 8, i, g_sizes[i], 80);
    recv_message(0, 8, i, g_sizes[i], 80, 80, "self");
  }
}

static void case_pingpong(void) {
  const int peer = 1 - g_rank;
  for (int n = 0; n < PINGPONGS; ++n) {
    const int bytes = g_sizes[n % NSIZES];
    if (g_rank == 0) {
      send_message(peer, 9, n, bytes, 90);
      recv_message(peer, 9, n, bytes, 90, 90, "pingpong: the reply");
    } else {
      recv_message(peer, 9, n, bytes, 90, 90, "pingpong: the message");
      send_message(peer, 9, n, bytes, 90);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "run with 2 ranks, not %d", size);
  const int short_limit = (int)mt_arg(argc, argv, 1, "short limit");
  const int eager_limit = (int)mt_arg(argc, argv, 2, "eager limit");
  CHECK(eager_limit + 1 <= MAX_BYTES, "eager limit %d: this test sends at most %d bytes", eager_limit, MAX_BYTES);
  const int sizes[NSIZES] = {0, 1, short_limit > 0 ? short_limit - 1 : 0, short_limit, short_limit + 1,
                             eager_limit + 1};
  memcpy(g_sizes, sizes, sizeof sizes);
  g_eager_limit = eager_limit;

  case_arrived();
  case_other_tag();
  case_posted();
  case_probed();
  case_late();
  case_ssend();
  case_self();
  case_pingpong();

  mt_barrier();
  if (g_rank == 0) printf("direct_recv ok: short limit %d, eager limit %d\n", short_limit, eager_limit);
  MPI_Finalize();
  return 0;
}
