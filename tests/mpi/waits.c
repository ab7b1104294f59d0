/*
 * waits: the Wait and Test families and MPI_Request_get_status over arrays
 * that mix null handles, inactive persistent requests, requests that are
 * already complete and requests still pending (MPI 3.1 §3.7.3, §3.7.5):
 *
 *   - no active request: Waitany/Testany give index MPI_UNDEFINED (Testany
 *     with flag true), Waitsome/Testsome outcount MPI_UNDEFINED, statuses empty
 *   - only the completed requests are reported, and freed (null handle);
 *     persistent requests become inactive and keep their handle
 *   - Request_get_status reports without freeing
 *   - Request_free of an active send still delivers it
 *
 * Rank 1 serves rank 0: told a tag, it sends rank 0 one int with that tag,
 * so rank 0 decides exactly when each pending receive can complete. (2 ranks)
 */
#include "mpitest.h"

#define TAG_CMD 900001
#define CMD_STOP (-1)
#define CMD_TAKE_BIG (-2) /* receive BIG bytes with tag TAG_BIG from rank 0 */
#define TAG_BIG 17
#define BIG 100000

static void release(int tag) { CHECK_RC(MPI_Send(&tag, 1, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD)); }

static void helper(void) {
  for (;;) {
    int cmd;
    CHECK_RC(MPI_Recv(&cmd, 1, MPI_INT, 0, TAG_CMD, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (cmd == CMD_STOP) return;
    if (cmd == CMD_TAKE_BIG) {
      char *buf = mt_alloc(BIG);
      MPI_Status st;
      CHECK_RC(MPI_Recv(buf, BIG, MPI_BYTE, 0, TAG_BIG, MPI_COMM_WORLD, &st));
      mt_status(&st, 0, TAG_BIG, BIG, "send freed while active");
      mt_verify(buf, BIG, mt_seed(0x3a, 1, 0, 0), "send freed while active");
      free(buf);
      continue;
    }
    CHECK_RC(MPI_Send(&cmd, 1, MPI_INT, 0, cmd, MPI_COMM_WORLD));
  }
}

static void from_rank1(const MPI_Status *st, int tag, const char *what) { mt_status(st, 1, tag, (int)sizeof(int), what); }

static void proc_null_done(const MPI_Status *st, const char *what) {
  CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG, "%s: source %d tag %d", what, st->MPI_SOURCE,
        st->MPI_TAG);
}

static void root(void) {
  int v[8] = {0};
  MPI_Request inactive, reqs[8];
  MPI_Status st, sts[8];
  int index = 0, flag = 0, outcount = 0, indices[8];
  CHECK_RC(MPI_Recv_init(&v[7], 1, MPI_INT, 1, 77, MPI_COMM_WORLD, &inactive));

  /* 1. Nothing active. */
  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = inactive;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Waitany(2, reqs, &index, &st));
  CHECK(index == MPI_UNDEFINED, "Waitany without an active request: index %d", index);
  mt_empty_status(&st, "Waitany without an active request");
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == inactive, "Waitany changed inactive handles");
  CHECK_RC(MPI_Waitany(0, NULL, &index, &st));
  CHECK(index == MPI_UNDEFINED, "Waitany of no request: index %d", index);
  mt_scribble_status(&st);
  flag = -1;
  CHECK_RC(MPI_Testany(2, reqs, &index, &flag, &st));
  CHECK(flag == 1 && index == MPI_UNDEFINED, "Testany without an active request: flag %d index %d", flag, index);
  mt_empty_status(&st, "Testany without an active request");
  CHECK_RC(MPI_Waitsome(2, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED, "Waitsome without an active request: outcount %d", outcount);
  CHECK_RC(MPI_Testsome(2, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED, "Testsome without an active request: outcount %d", outcount);
  for (int i = 0; i < 2; ++i) mt_scribble_status(&sts[i]);
  CHECK_RC(MPI_Waitall(2, reqs, sts));
  mt_empty_status(&sts[0], "Waitall of a null request");
  mt_empty_status(&sts[1], "Waitall of an inactive request");
  CHECK(reqs[1] == inactive, "Waitall freed an inactive persistent request");
  CHECK_RC(MPI_Testall(0, NULL, &flag, NULL));
  CHECK(flag == 1, "Testall of no request: flag %d", flag);

  /* 2. Pending and complete: Testany says not yet, Waitany takes the one
     that is complete (a receive from MPI_PROC_NULL), then the pending one. */
  reqs[2] = MPI_REQUEST_NULL;
  CHECK_RC(MPI_Irecv(&v[0], 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &reqs[2]));
  flag = -1;
  CHECK_RC(MPI_Testany(3, reqs, &index, &flag, &st));
  CHECK(flag == 0 && index == MPI_UNDEFINED, "Testany with one pending request: flag %d index %d", flag, index);
  CHECK_RC(MPI_Irecv(&v[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[3]));
  CHECK_RC(MPI_Waitany(4, reqs, &index, &st));
  CHECK(index == 3 && reqs[3] == MPI_REQUEST_NULL, "Waitany: index %d (expected 3, the complete request)", index);
  proc_null_done(&st, "Waitany of a receive from MPI_PROC_NULL");
  release(10);
  CHECK_RC(MPI_Waitany(4, reqs, &index, &st));
  CHECK(index == 2 && reqs[2] == MPI_REQUEST_NULL && v[0] == 10, "Waitany: index %d value %d", index, v[0]);
  from_rank1(&st, 10, "Waitany");
  CHECK(reqs[1] == inactive, "Waitany freed an inactive persistent request");

  /* 3. Testsome / Waitsome report exactly what completed. */
  CHECK_RC(MPI_Irecv(&v[0], 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &reqs[0]));
  CHECK_RC(MPI_Irecv(&v[1], 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &reqs[1]));
  reqs[2] = MPI_REQUEST_NULL;
  reqs[3] = inactive;
  CHECK_RC(MPI_Testsome(4, reqs, &outcount, indices, sts));
  CHECK(outcount == 0, "Testsome with nothing complete: outcount %d", outcount);
  release(12);
  CHECK_RC(MPI_Waitsome(4, reqs, &outcount, indices, sts));
  CHECK(outcount == 1 && indices[0] == 1, "Waitsome: outcount %d, first index %d (expected 1 and 1)", outcount,
        indices[0]);
  from_rank1(&sts[0], 12, "Waitsome");
  CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[0] != MPI_REQUEST_NULL && reqs[3] == inactive,
        "Waitsome freed the wrong requests");
  release(11);
  outcount = 0;
  while (outcount == 0) CHECK_RC(MPI_Testsome(4, reqs, &outcount, indices, sts));
  CHECK(outcount == 1 && indices[0] == 0 && reqs[0] == MPI_REQUEST_NULL, "Testsome: outcount %d index %d", outcount,
        indices[0]);
  from_rank1(&sts[0], 11, "Testsome");
  CHECK(v[0] == 11 && v[1] == 12, "Testsome/Waitsome values %d %d", v[0], v[1]);

  /* 4. Testall is all or nothing. */
  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = inactive;
  CHECK_RC(MPI_Irecv(&v[2], 1, MPI_INT, 1, 13, MPI_COMM_WORLD, &reqs[2]));
  const MPI_Request pending = reqs[2];
  CHECK_RC(MPI_Testall(3, reqs, &flag, sts));
  CHECK(flag == 0 && reqs[2] == pending && reqs[1] == inactive, "Testall with a pending request: flag %d", flag);
  release(13);
  flag = 0;
  while (!flag) {
    for (int i = 0; i < 3; ++i) mt_scribble_status(&sts[i]);
    CHECK_RC(MPI_Testall(3, reqs, &flag, sts));
  }
  mt_empty_status(&sts[0], "Testall, null request");
  mt_empty_status(&sts[1], "Testall, inactive request");
  from_rank1(&sts[2], 13, "Testall");
  CHECK(reqs[2] == MPI_REQUEST_NULL && reqs[1] == inactive && v[2] == 13, "Testall: handles or value wrong");

  /* 5. Request_get_status looks without freeing. */
  MPI_Request r;
  CHECK_RC(MPI_Irecv(&v[3], 1, MPI_INT, 1, 14, MPI_COMM_WORLD, &r));
  CHECK_RC(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 0, "Request_get_status of a pending receive: flag %d", flag);
  release(14);
  flag = 0;
  while (!flag) CHECK_RC(MPI_Request_get_status(r, &flag, &st));
  from_rank1(&st, 14, "Request_get_status");
  CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
  mt_scribble_status(&st);
  CHECK_RC(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1, "Request_get_status asked again: flag %d", flag);
  from_rank1(&st, 14, "Request_get_status asked again");
  mt_scribble_status(&st);
  CHECK_RC(MPI_Wait(&r, &st));
  from_rank1(&st, 14, "Wait after Request_get_status");
  CHECK(r == MPI_REQUEST_NULL && v[3] == 14, "Wait after Request_get_status: handle %d value %d", r, v[3]);
  mt_scribble_status(&st);
  CHECK_RC(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
  CHECK(flag == 1, "Request_get_status of MPI_REQUEST_NULL: flag %d", flag);
  mt_empty_status(&st, "Request_get_status of MPI_REQUEST_NULL");
  mt_scribble_status(&st);
  CHECK_RC(MPI_Request_get_status(inactive, &flag, &st));
  CHECK(flag == 1, "Request_get_status of an inactive request: flag %d", flag);
  mt_empty_status(&st, "Request_get_status of an inactive request");
  CHECK_RC(MPI_Irecv(&v[4], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  CHECK_RC(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1, "Request_get_status of a receive from MPI_PROC_NULL: flag %d", flag);
  proc_null_done(&st, "Request_get_status of a receive from MPI_PROC_NULL");
  CHECK_RC(MPI_Wait(&r, &st));
  proc_null_done(&st, "Wait of a receive from MPI_PROC_NULL");

  /* 6. Wait and Test of null and inactive requests return at once. */
  r = MPI_REQUEST_NULL;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Wait(&r, &st));
  mt_empty_status(&st, "Wait of MPI_REQUEST_NULL");
  r = inactive;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Wait(&r, &st));
  mt_empty_status(&st, "Wait of an inactive request");
  CHECK(r == inactive, "Wait freed an inactive persistent request");
  r = MPI_REQUEST_NULL;
  flag = -1;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Test(&r, &flag, &st));
  CHECK(flag == 1, "Test of MPI_REQUEST_NULL: flag %d", flag);
  mt_empty_status(&st, "Test of MPI_REQUEST_NULL");

  /* 7. Waitall over a started persistent receive, a rendezvous send and
     receive to oneself, a null and an inactive request. */
  char *out = mt_alloc(BIG), *in = mt_alloc(BIG);
  mt_fill(out, BIG, mt_seed(0x3a, 0, 0, 0));
  MPI_Request persistent;
  CHECK_RC(MPI_Recv_init(&v[5], 1, MPI_INT, 1, 15, MPI_COMM_WORLD, &persistent));
  CHECK_RC(MPI_Start(&persistent));
  reqs[0] = persistent;
  reqs[1] = MPI_REQUEST_NULL;
  CHECK_RC(MPI_Isend(out, BIG, MPI_BYTE, 0, 16, MPI_COMM_WORLD, &reqs[2]));
  reqs[3] = inactive;
  CHECK_RC(MPI_Irecv(in, BIG, MPI_BYTE, 0, 16, MPI_COMM_WORLD, &reqs[4]));
  release(15);
  for (int i = 0; i < 5; ++i) mt_scribble_status(&sts[i]);
  CHECK_RC(MPI_Waitall(5, reqs, sts));
  from_rank1(&sts[0], 15, "Waitall, persistent receive");
  mt_empty_status(&sts[1], "Waitall, null request");
  mt_empty_status(&sts[3], "Waitall, inactive request");
  mt_status(&sts[4], 0, 16, BIG, "Waitall, receive from itself");
  mt_verify(in, BIG, mt_seed(0x3a, 0, 0, 0), "Waitall, receive from itself");
  CHECK(reqs[0] == persistent && reqs[1] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL && reqs[3] == inactive &&
            reqs[4] == MPI_REQUEST_NULL && v[5] == 15,
        "Waitall left handles %d %d %d %d %d", reqs[0], reqs[1], reqs[2], reqs[3], reqs[4]);

  /* 8. A send freed while active is still delivered. */
  mt_fill(out, BIG, mt_seed(0x3a, 1, 0, 0));
  CHECK_RC(MPI_Isend(out, BIG, MPI_BYTE, 1, TAG_BIG, MPI_COMM_WORLD, &r));
  CHECK_RC(MPI_Request_free(&r));
  CHECK(r == MPI_REQUEST_NULL, "Request_free left the handle set");
  release(CMD_TAKE_BIG);
  release(CMD_STOP);
  mt_sync(1); /* rank 1 has checked the message; only now may `out` go */
  free(out);
  free(in);
  CHECK_RC(MPI_Request_free(&persistent));
  CHECK_RC(MPI_Request_free(&inactive));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  if (rank == 0) {
    root();
    printf("waits ok\n");
  } else {
    helper();
    mt_sync(0);
  }
  MPI_Finalize();
  return 0;
}
