/*
 * cancel_probe: MPI_Cancel, the probes and matched probes, and MPI_PROC_NULL.
 *
 *   cancel    an unmatched Irecv (specific and wildcard) cancels: Test_cancelled
 *             is true, the buffer is untouched, and a later message is not
 *             taken by it; a persistent receive cancels and starts again; an
 *             Irecv already matched (short, eager, rendezvous) does not
 *             cancel and receives its message; a send no receive has
 *             matched (short, eager, rendezvous; standard, synchronous,
 *             buffered, persistent) cancels and never arrives, one already
 *             received does not cancel
 *   probe     Probe / Iprobe report source, tag and count without receiving,
 *             Iprobe says no before the message is sent and after it is taken
 *   mprobe    Mprobe / Improbe + Mrecv / Imrecv take exactly the probed
 *             message, even when a wildcard receive is posted after the probe
 *   proc_null sends, receives, probes and matched probes with MPI_PROC_NULL
 *
 * (2 ranks)
 */
#include "mpitest.h"

#define TAG_GO 900001
#define TAG_AFTER 900002
#define TAG_NEVER 900003

static const int kSizes[] = {8, 1000, 100000}; /* short, eager, rendezvous at the default limits */
#define NSIZES 3
#define SEND_MODES 5 /* Isend, Issend, Send_init, Ibsend, Bsend_init */

static int g_rank;

static uint64_t seed_of(int part, int i) { return mt_seed(0xca, (uint64_t)part, (uint64_t)i, 0); }

static void send_pattern(int dest, int tag, int bytes, uint64_t seed) {
  char *buf = mt_alloc((size_t)bytes);
  mt_fill(buf, (size_t)bytes, seed);
  CHECK_RC(MPI_Send(buf, bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD));
  free(buf);
}

static void recv_pattern(int source, int tag, int bytes, uint64_t seed, const char *what) {
  char *buf = mt_alloc((size_t)bytes);
  MPI_Status st;
  CHECK_RC(MPI_Recv(buf, bytes, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st));
  mt_status(&st, source, tag, bytes, what);
  mt_verify(buf, (size_t)bytes, seed, what);
  free(buf);
}

static void go(int peer) { CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD)); }
static void wait_go(int peer) {
  CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void cancel_part(void) {
  if (g_rank == 0) {
    char buf[64];
    MPI_Request req;
    MPI_Status st;
    int flag = -1;

    /* Unmatched receives, by source and by wildcards. */
    for (int wild = 0; wild < 2; ++wild) {
      memset(buf, MT_GUARD, sizeof buf);
      CHECK_RC(MPI_Irecv(buf, (int)sizeof buf, MPI_BYTE, wild ? MPI_ANY_SOURCE : 1, wild ? MPI_ANY_TAG : 7,
                         MPI_COMM_WORLD, &req));
      CHECK_RC(MPI_Cancel(&req));
      CHECK(req != MPI_REQUEST_NULL, "MPI_Cancel freed the request");
      mt_scribble_status(&st);
      CHECK_RC(MPI_Wait(&req, &st));
      CHECK_RC(MPI_Test_cancelled(&st, &flag));
      CHECK(flag == 1, "an unmatched Irecv (wildcards %d) was not cancelled", wild);
      mt_untouched(buf, sizeof buf, "buffer of a cancelled receive");
    }
    /* The message sent after the cancel goes to a new receive. */
    go(1);
    recv_pattern(1, 7, 32, seed_of(1, 0), "message sent after a cancelled receive");

    /* A persistent receive: cancelled, then started again. */
    CHECK_RC(MPI_Recv_init(buf, (int)sizeof buf, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Start(&req));
    CHECK_RC(MPI_Cancel(&req));
    CHECK_RC(MPI_Wait(&req, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1 && req != MPI_REQUEST_NULL, "persistent receive: cancelled %d, handle %d", flag, req);
    CHECK_RC(MPI_Start(&req));
    go(1);
    CHECK_RC(MPI_Wait(&req, &st));
    CHECK_RC(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "the restarted persistent receive says it was cancelled");
    mt_status(&st, 1, 8, 40, "restarted persistent receive");
    mt_verify(buf, 40, seed_of(1, 1), "restarted persistent receive");
    CHECK_RC(MPI_Request_free(&req));

    /* Matched receives: the message arrived (it was sent before TAG_AFTER,
       which we have received) so the cancel must fail. */
    for (int s = 0; s < NSIZES; ++s) {
      char *big = mt_alloc((size_t)kSizes[s]);
      CHECK_RC(MPI_Irecv(big, kSizes[s], MPI_BYTE, 1, 9, MPI_COMM_WORLD, &req));
      go(1);
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_AFTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_RC(MPI_Cancel(&req));
      mt_scribble_status(&st);
      CHECK_RC(MPI_Wait(&req, &st));
      CHECK_RC(MPI_Test_cancelled(&st, &flag));
      CHECK(flag == 0, "a matched Irecv of %d bytes was cancelled", kSizes[s]);
      mt_status(&st, 1, 9, kSizes[s], "matched Irecv after MPI_Cancel");
      mt_verify(big, (size_t)kSizes[s], seed_of(2, s), "matched Irecv after MPI_Cancel");
      free(big);
    }

    /* Sends no receive has matched (rank 1 waits for TAG_AFTER meanwhile):
       each is cancelled, whatever its protocol and mode, and never
       arrives. Then a send rank 1 has received: its cancel fails and the
       request completes as sent. */
    const int attached = 2 * (kSizes[NSIZES - 1] + MPI_BSEND_OVERHEAD);
    char *bsend_buffer = mt_alloc((size_t)attached);
    CHECK_RC(MPI_Buffer_attach(bsend_buffer, attached));
    for (int s = 0; s < NSIZES; ++s) {
      char *data = mt_alloc((size_t)kSizes[s]);
      mt_fill(data, (size_t)kSizes[s], seed_of(3, s));
      for (int mode = 0; mode < SEND_MODES; ++mode) {
        const int tag = 10 + SEND_MODES * s + mode;
        if (mode == 0) CHECK_RC(MPI_Isend(data, kSizes[s], MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
        if (mode == 1) CHECK_RC(MPI_Issend(data, kSizes[s], MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
        if (mode == 2) CHECK_RC(MPI_Send_init(data, kSizes[s], MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
        if (mode == 3) CHECK_RC(MPI_Ibsend(data, kSizes[s], MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
        if (mode == 4) CHECK_RC(MPI_Bsend_init(data, kSizes[s], MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req));
        if (mode == 2 || mode == 4) CHECK_RC(MPI_Start(&req));
        CHECK_RC(MPI_Cancel(&req));
        mt_scribble_status(&st);
        CHECK_RC(MPI_Wait(&req, &st));
        CHECK_RC(MPI_Test_cancelled(&st, &flag));
        CHECK(flag == 1, "an unmatched send of %d bytes (mode %d) was not cancelled", kSizes[s], mode);
        if (mode == 2 || mode == 4) CHECK_RC(MPI_Request_free(&req));
      }
      free(data);
    }
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_AFTER, MPI_COMM_WORLD));
    char out[48];
    mt_fill(out, sizeof out, seed_of(4, 0));
    for (int buffered = 0; buffered < 2; ++buffered) {
      if (buffered) {
        CHECK_RC(MPI_Ibsend(out, (int)sizeof out, MPI_BYTE, 1, 40, MPI_COMM_WORLD, &req));
      } else {
        CHECK_RC(MPI_Isend(out, (int)sizeof out, MPI_BYTE, 1, 40, MPI_COMM_WORLD, &req));
      }
      wait_go(1); /* rank 1 has received it */
      CHECK_RC(MPI_Cancel(&req));
      CHECK_RC(MPI_Wait(&req, &st));
      CHECK_RC(MPI_Test_cancelled(&st, &flag));
      CHECK(flag == 0, "a send its receiver had matched was cancelled (buffered %d)", buffered);
    }
    void *detached = NULL;
    int detached_size = 0;
    CHECK_RC(MPI_Buffer_detach(&detached, &detached_size));
    CHECK(detached == bsend_buffer && detached_size == attached, "MPI_Buffer_detach gave another buffer");
    free(bsend_buffer);
  } else {
    wait_go(0);
    send_pattern(0, 7, 32, seed_of(1, 0));
    wait_go(0);
    send_pattern(0, 8, 40, seed_of(1, 1));
    for (int s = 0; s < NSIZES; ++s) {
      wait_go(0);
      send_pattern(0, 9, kSizes[s], seed_of(2, s));
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_AFTER, MPI_COMM_WORLD));
    }
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_AFTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int tag = 10; tag < 10 + SEND_MODES * NSIZES; ++tag) {
      int flag = -1;
      CHECK_RC(MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      CHECK(flag == 0, "a send rank 0 cancelled arrived (tag %d)", tag);
    }
    for (int buffered = 0; buffered < 2; ++buffered) {
      recv_pattern(0, 40, 48, seed_of(4, 0), "the send rank 0 cancels after it arrived");
      go(0);
    }
  }
}

static void probe_part(void) {
  for (int s = 0; s < NSIZES; ++s) {
    const int bytes = kSizes[s], tag = 20 + s;
    if (g_rank == 0) {
      MPI_Status st;
      int flag = -1, count = -1;
      CHECK_RC(MPI_Iprobe(1, tag, MPI_COMM_WORLD, &flag, &st));
      CHECK(flag == 0, "MPI_Iprobe found a message that has not been sent");
      go(1);
      mt_scribble_status(&st);
      CHECK_RC(MPI_Probe(1, tag, MPI_COMM_WORLD, &st));
      mt_status(&st, 1, tag, bytes, "MPI_Probe");
      CHECK_RC(MPI_Get_elements(&st, MPI_BYTE, &count));
      CHECK(count == bytes, "MPI_Get_elements after MPI_Probe: %d", count);
      /* Probing does not receive: the same message is there again. */
      mt_scribble_status(&st);
      CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      mt_status(&st, 1, tag, bytes, "MPI_Probe with wildcards");
      mt_scribble_status(&st);
      CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st));
      CHECK(flag == 1, "MPI_Iprobe does not see the probed message");
      mt_status(&st, 1, tag, bytes, "MPI_Iprobe");
      CHECK_RC(MPI_Iprobe(1, tag + 1, MPI_COMM_WORLD, &flag, &st));
      CHECK(flag == 0, "MPI_Iprobe for another tag found a message");
      CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_SELF, &flag, &st));
      CHECK(flag == 0, "MPI_Iprobe on MPI_COMM_SELF found a message sent on MPI_COMM_WORLD");
      recv_pattern(1, tag, bytes, seed_of(4, s), "message received after probes");
      CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st));
      CHECK(flag == 0, "MPI_Iprobe still finds the message after it was received");
    } else {
      wait_go(0);
      send_pattern(0, tag, bytes, seed_of(4, s));
    }
    mt_sync(1 - g_rank);
  }
}

/* Rank 1 sends A (tag 1), B (tag 2), C (tag 1); rank 0 claims A with a matched
   probe, posts a wildcard receive (which must get B, not A), receives A from
   its handle, then claims C with Improbe and receives it with Imrecv. */
static void mprobe_part(void) {
  for (int s = 0; s < NSIZES; ++s) {
    const int bytes = kSizes[s];
    if (g_rank == 0) {
      MPI_Message msg = MPI_MESSAGE_NULL, msg2 = MPI_MESSAGE_NULL;
      MPI_Status st;
      MPI_Request req, wild;
      int flag = -1;
      char *a = mt_alloc((size_t)bytes), *b = mt_alloc(64), *c = mt_alloc(64);
      CHECK_RC(MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
      CHECK(flag == 0 && msg == MPI_MESSAGE_NULL, "MPI_Improbe found a message before any was sent");
      go(1);
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_AFTER, MPI_COMM_WORLD, MPI_STATUS_IGNORE)); /* A, B, C arrived */
      mt_scribble_status(&st);
      CHECK_RC(MPI_Mprobe(1, 1, MPI_COMM_WORLD, &msg, &st));
      CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "MPI_Mprobe gave message handle %d", msg);
      mt_status(&st, 1, 1, bytes, "MPI_Mprobe of A");
      /* A is no longer matchable: a plain probe for tag 1 sees C. */
      CHECK_RC(MPI_Probe(1, 1, MPI_COMM_WORLD, &st));
      mt_status(&st, 1, 1, 64, "MPI_Probe after A was claimed (sees C)");
      CHECK_RC(MPI_Irecv(b, 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wild));
      CHECK_RC(MPI_Wait(&wild, &st));
      mt_status(&st, 1, 2, 64, "wildcard receive posted after MPI_Mprobe (B)");
      mt_verify(b, 64, seed_of(5, 10 * s + 2), "B");
      mt_scribble_status(&st);
      CHECK_RC(MPI_Mrecv(a, bytes, MPI_BYTE, &msg, &st));
      CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv left the message handle at %d", msg);
      mt_status(&st, 1, 1, bytes, "MPI_Mrecv of A");
      mt_verify(a, (size_t)bytes, seed_of(5, 10 * s + 1), "A");

      flag = 0;
      while (!flag) CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &msg2, &st));
      mt_status(&st, 1, 1, 64, "MPI_Improbe of C");
      CHECK_RC(MPI_Imrecv(c, 64, MPI_BYTE, &msg2, &req));
      CHECK(msg2 == MPI_MESSAGE_NULL, "MPI_Imrecv left the message handle at %d", msg2);
      CHECK_RC(MPI_Wait(&req, &st));
      mt_status(&st, 1, 1, 64, "MPI_Imrecv of C");
      mt_verify(c, 64, seed_of(5, 10 * s + 3), "C");
      for (int t = 1; t <= 2; ++t) {
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag == 0, "a message with tag %d is left after A, B and C were received", t);
      }
      free(a);
      free(b);
      free(c);
    } else {
      /* Nonblocking: rank 0 receives A only after TAG_AFTER. */
      char *a = mt_alloc((size_t)bytes), b[64], c[64];
      MPI_Request reqs[3];
      mt_fill(a, (size_t)bytes, seed_of(5, 10 * s + 1));
      mt_fill(b, 64, seed_of(5, 10 * s + 2));
      mt_fill(c, 64, seed_of(5, 10 * s + 3));
      wait_go(0);
      CHECK_RC(MPI_Isend(a, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[0]));
      CHECK_RC(MPI_Isend(b, 64, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &reqs[1]));
      CHECK_RC(MPI_Isend(c, 64, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[2]));
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_AFTER, MPI_COMM_WORLD));
      CHECK_RC(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
      free(a);
    }
    mt_sync(1 - g_rank);
  }
}

static void proc_null_status(const MPI_Status *st, const char *what) {
  int count = -1;
  CHECK_RC(MPI_Get_count(st, MPI_INT, &count));
  CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
        "%s: status source %d (MPI_PROC_NULL is %d), tag %d (MPI_ANY_TAG is %d), count %d", what, st->MPI_SOURCE,
        MPI_PROC_NULL, st->MPI_TAG, MPI_ANY_TAG, count);
}

static void proc_null_part(void) {
  int data[4] = {1, 2, 3, 4};
  int in[4];
  MPI_Status st;
  MPI_Request req, reqs[4];
  int flag = -1;
  MPI_Message msg = MPI_MESSAGE_NULL;

  /* Sends in every mode and form complete at once. (No buffer is attached:
     a buffered send to MPI_PROC_NULL needs none.) */
  CHECK_RC(MPI_Send(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_RC(MPI_Ssend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_RC(MPI_Bsend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_RC(MPI_Rsend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  CHECK_RC(MPI_Isend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Issend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Ibsend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[2]));
  CHECK_RC(MPI_Irsend(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[3]));
  CHECK_RC(MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag == 1, "sends to MPI_PROC_NULL are not complete at once");
  CHECK_RC(MPI_Send_init(data, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
  CHECK_RC(MPI_Start(&req));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_RC(MPI_Request_free(&req));

  /* Receives: status source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, buffer untouched. */
  memset(in, MT_GUARD, sizeof in);
  mt_scribble_status(&st);
  CHECK_RC(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
  proc_null_status(&st, "MPI_Recv from MPI_PROC_NULL");
  mt_scribble_status(&st);
  CHECK_RC(MPI_Irecv(in, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &req));
  CHECK_RC(MPI_Wait(&req, &st));
  proc_null_status(&st, "MPI_Irecv from MPI_PROC_NULL");
  CHECK_RC(MPI_Recv_init(in, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req));
  for (int round = 0; round < 2; ++round) {
    mt_scribble_status(&st);
    CHECK_RC(MPI_Start(&req));
    CHECK_RC(MPI_Test(&req, &flag, &st));
    CHECK(flag == 1, "a persistent receive from MPI_PROC_NULL is not complete at once");
    proc_null_status(&st, "persistent receive from MPI_PROC_NULL");
  }
  CHECK_RC(MPI_Request_free(&req));
  mt_scribble_status(&st);
  CHECK_RC(MPI_Sendrecv(data, 4, MPI_INT, MPI_PROC_NULL, 0, in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  proc_null_status(&st, "MPI_Sendrecv with MPI_PROC_NULL");
  mt_untouched(in, sizeof in, "receive buffer of MPI_PROC_NULL receives");

  /* Probes succeed at once with the same status (MPI 3.1 §3.11). */
  mt_scribble_status(&st);
  CHECK_RC(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  proc_null_status(&st, "MPI_Probe of MPI_PROC_NULL");
  mt_scribble_status(&st);
  flag = -1;
  CHECK_RC(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag == 1, "MPI_Iprobe of MPI_PROC_NULL: flag %d", flag);
  proc_null_status(&st, "MPI_Iprobe of MPI_PROC_NULL");

  mt_scribble_status(&st);
  CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe of MPI_PROC_NULL gave message %d, not MPI_MESSAGE_NO_PROC", msg);
  proc_null_status(&st, "MPI_Mprobe of MPI_PROC_NULL");
  mt_scribble_status(&st);
  CHECK_RC(MPI_Mrecv(in, 4, MPI_INT, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv of MPI_MESSAGE_NO_PROC left the handle at %d", msg);
  proc_null_status(&st, "MPI_Mrecv of MPI_MESSAGE_NO_PROC");

  flag = -1;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
  CHECK(flag == 1 && msg == MPI_MESSAGE_NO_PROC, "MPI_Improbe of MPI_PROC_NULL: flag %d message %d", flag, msg);
  proc_null_status(&st, "MPI_Improbe of MPI_PROC_NULL");
  CHECK_RC(MPI_Imrecv(in, 4, MPI_INT, &msg, &req));
  CHECK(msg == MPI_MESSAGE_NULL, "MPI_Imrecv of MPI_MESSAGE_NO_PROC left the handle at %d", msg);
  mt_scribble_status(&st);
  CHECK_RC(MPI_Wait(&req, &st));
  proc_null_status(&st, "MPI_Imrecv of MPI_MESSAGE_NO_PROC");
  mt_untouched(in, sizeof in, "receive buffer of MPI_PROC_NULL matched receives");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  const char *only = argc > 1 ? argv[1] : "all";
  int ran = 0;
  if (strcmp(only, "all") == 0 || strcmp(only, "cancel") == 0) {
    cancel_part();
    mt_sync(1 - g_rank);
    ++ran;
  }
  if (strcmp(only, "all") == 0 || strcmp(only, "probe") == 0) {
    probe_part();
    ++ran;
  }
  if (strcmp(only, "all") == 0 || strcmp(only, "mprobe") == 0) {
    mprobe_part();
    ++ran;
  }
  if (strcmp(only, "all") == 0 || strcmp(only, "proc_null") == 0) {
    proc_null_part();
    ++ran;
  }
  CHECK(ran > 0, "unknown part %s (all, cancel, probe, mprobe, proc_null)", only);
  if (g_rank == 0) printf("cancel_probe ok: %s\n", only);
  MPI_Finalize();
  return 0;
}
