/*
 * errors: every error class the point-to-point API raises, with
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD, and what the fatal handler does.
 *
 *   errors return          (2 ranks) every class, returned; prints "errors ok"
 *   errors fatal-truncate  (2 ranks) rank 0 receives 100 bytes into 40 with
 *                          the default handler: the job must end with code 15
 *   errors fatal-rank      (2 ranks) rank 0 sends to rank 99: code 6
 *   errors fatal-root      (2 ranks) MPI_Bcast with root 5: code 8 (MPI_ERR_ROOT)
 *   errors fatal-type      (2 ranks) MPI_Allreduce of an uncommitted type: code 3
 *   errors before-init     MPI_Send before MPI_Init: code 16 (MPI_ERR_OTHER)
 */
#include "mpitest.h"

#define TAG_GO 900001
static int g_rank;

static void check_class_texts(void) {
  char seen[MPI_ERR_LASTCODE + 1][MPI_MAX_ERROR_STRING];
  for (int code = MPI_SUCCESS; code <= MPI_ERR_LASTCODE; ++code) {
    int cls = -1, len = -1;
    CHECK_RC(MPI_Error_class(code, &cls));
    CHECK(cls == code, "MPI_Error_class(%d) is %d", code, cls);
    memset(seen[code], 0, MPI_MAX_ERROR_STRING);
    CHECK_RC(MPI_Error_string(code, seen[code], &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(seen[code]),
          "MPI_Error_string(%d): length %d for '%s'", code, len, seen[code]);
    for (int other = MPI_SUCCESS; other < code; ++other) {
      CHECK(strcmp(seen[other], seen[code]) != 0, "classes %d and %d have the same text '%s'", other, code,
            seen[code]);
    }
  }
  int cls = -1, len = -1;
  char text[MPI_MAX_ERROR_STRING];
  CHECK_CLASS(MPI_Error_class(MPI_ERR_LASTCODE + 1000, &cls), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Error_string(-7, text, &len), MPI_ERR_ARG);
}

/* Argument errors every call checks: rank, tag, count, datatype,
   communicator, buffer. Nothing is sent by any of these calls. */
static void check_arguments(void) {
  int data[4] = {1, 2, 3, 4};
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  int flag = 0;
  MPI_Message msg = MPI_MESSAGE_NULL;

  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, 99, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Ssend(data, 1, MPI_INT, 2, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Isend(data, 1, MPI_INT, 1, 0, MPI_COMM_SELF, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Recv(data, 1, MPI_INT, 99, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Irecv(data, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Probe(5, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Iprobe(5, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Improbe(5, 0, MPI_COMM_WORLD, &flag, &msg, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send_init(data, 1, MPI_INT, 42, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Sendrecv(data, 1, MPI_INT, 9, 0, data, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);

  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, 1, -5, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Irsend(data, 1, MPI_INT, 1, -2, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Recv(data, 1, MPI_INT, 1, -3, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Iprobe(1, -9, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);

  CHECK_CLASS(MPI_Send(data, -1, MPI_INT, 1, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Irecv(data, -4, MPI_INT, 1, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bsend(data, -1, MPI_INT, 1, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Waitall(-1, &req, MPI_STATUSES_IGNORE), MPI_ERR_COUNT);

  CHECK_CLASS(MPI_Send(data, 1, MPI_DATATYPE_NULL, 1, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Send(data, 1, (MPI_Datatype)9999, 1, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Recv(data, 1, (MPI_Datatype)-3, 1, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
  int size = -1;
  CHECK_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);
  MPI_Status fake;
  memset(&fake, 0, sizeof fake);
  CHECK_CLASS(MPI_Get_count(&fake, (MPI_Datatype)777, &size), MPI_ERR_TYPE);

  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, 1, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Send(data, 1, MPI_INT, 1, 0, (MPI_Comm)77), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Irecv(data, 1, MPI_INT, 1, 0, MPI_COMM_NULL, &req), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Probe(1, 0, (MPI_Comm)-4, &st), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
  int rank = -1;
  CHECK_CLASS(MPI_Comm_rank((MPI_Comm)12345, &rank), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &rank), MPI_ERR_COMM);

  CHECK_CLASS(MPI_Send(NULL, 1, MPI_INT, 1, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Recv(NULL, 3, MPI_INT, 1, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Isend(NULL, 2, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);

  /* MPI_Allgather's contiguous fast path leaves bad arguments to the
     general path, which names them (every rank fails alike, before any
     data moves). */
  int gathered[8];
  CHECK_CLASS(MPI_Allgather(data, 1, MPI_INT, gathered, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allgather(data, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgather(data, 2, MPI_INT, gathered, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);

  CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)42), MPI_ERR_ARG);
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler));
  CHECK(handler == MPI_ERRORS_RETURN, "MPI_COMM_WORLD's handler is %d after a bad set", handler);
}

/* Bad requests and message handles. */
static void check_requests(void) {
  int data = 0;
  MPI_Request bogus = (MPI_Request)12345;
  MPI_Request null = MPI_REQUEST_NULL;
  MPI_Status st;
  int flag = 0, index = 0;
  CHECK_CLASS(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Test(&bogus, &flag, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Wait(NULL, &st), MPI_ERR_REQUEST);
  MPI_Request mixed[3] = {MPI_REQUEST_NULL, (MPI_Request)-8, MPI_REQUEST_NULL};
  CHECK_CLASS(MPI_Waitall(3, mixed, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Waitany(3, mixed, &index, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Testall(3, mixed, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_get_status(bogus, &flag, &st), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Cancel(&bogus), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_free(&null), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Request_free(&bogus), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Start(&bogus), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Start(&null), MPI_ERR_REQUEST);

  /* MPI_Start of a request that is not persistent, and of one already active. */
  MPI_Request plain, persistent;
  CHECK_RC(MPI_Isend(&data, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &plain));
  CHECK_CLASS(MPI_Start(&plain), MPI_ERR_REQUEST);
  CHECK_RC(MPI_Wait(&plain, MPI_STATUS_IGNORE));
  CHECK_RC(MPI_Recv_init(&data, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &persistent));
  CHECK_RC(MPI_Start(&persistent));
  CHECK_CLASS(MPI_Start(&persistent), MPI_ERR_REQUEST);
  CHECK_RC(MPI_Cancel(&persistent));
  CHECK_RC(MPI_Wait(&persistent, &st));
  CHECK_RC(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "the cancelled persistent receive does not say so");
  CHECK_RC(MPI_Request_free(&persistent));

  MPI_Message msg = MPI_MESSAGE_NULL;
  CHECK_CLASS(MPI_Mrecv(&data, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST);
  msg = (MPI_Message)4242;
  CHECK_CLASS(MPI_Mrecv(&data, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST);
  MPI_Request req;
  CHECK_CLASS(MPI_Imrecv(&data, 1, MPI_INT, &msg, &req), MPI_ERR_REQUEST);
}

/* Buffered sends without room. */
static void check_bsend_buffer(void) {
  char data[100];
  memset(data, 1, sizeof data);
  MPI_Request req;
  void *detached = NULL;
  int bytes = 0;
  CHECK_CLASS(MPI_Bsend(data, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ibsend(data, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Buffer_detach(&detached, &bytes), MPI_ERR_BUFFER);

  /* One byte short of what 100 bytes need. */
  static char small[100 + MPI_BSEND_OVERHEAD - 1];
  CHECK_RC(MPI_Buffer_attach(small, (int)sizeof small));
  CHECK_CLASS(MPI_Buffer_attach(small, (int)sizeof small), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Bsend(data, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ibsend(data, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req), MPI_ERR_BUFFER);
  CHECK_RC(MPI_Bsend_init(data, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &req));
  CHECK_CLASS(MPI_Start(&req), MPI_ERR_BUFFER);
  CHECK_RC(MPI_Request_free(&req));
  CHECK_RC(MPI_Buffer_detach(&detached, &bytes));
  CHECK(detached == (void *)small && bytes == (int)sizeof small, "detach gave %p/%d", detached, bytes);
  CHECK_CLASS(MPI_Buffer_attach(small, -1), MPI_ERR_ARG);
}

/* Truncation on every completion path, across protocols. Rank 1 sends
   sizes[i] bytes for each receive; rank 0 offers half of it. */
static const int kSizes[] = {50, 1000, 100000}; /* short, eager, rendezvous (default limits) */
#define NSIZES 3
enum { ON_RECV, ON_WAIT, ON_WAITALL, ON_WAITSOME, ON_TEST, ON_SENDRECV, ON_MRECV, NPATHS };
static const char *const kPath[NPATHS] = {"MPI_Recv", "MPI_Wait", "MPI_Waitall", "MPI_Waitsome",
                                          "MPI_Test", "MPI_Sendrecv", "MPI_Mrecv"};

static uint64_t seed_of(int path, int s) { return mt_seed(0x7e, (uint64_t)path, (uint64_t)s, 1); }

static void truncation_receiver(void) {
  for (int path = 0; path < NPATHS; ++path) {
    for (int s = 0; s < NSIZES; ++s) {
      const int sent = kSizes[s], room = sent / 2, tag = path * 10 + s;
      char *buf = mt_alloc((size_t)sent);
      char what[100];
      snprintf(what, sizeof what, "truncation on %s, %d bytes into %d", kPath[path], sent, room);
      memset(buf, MT_GUARD, (size_t)sent);
      MPI_Status st, sts[3];
      MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
      int small[2] = {0, 0};
      mt_scribble_status(&st);
      /* Rank 1 sends only once told, so in some cases the receive is posted first. */
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD));
      switch (path) {
        case ON_RECV:
          CHECK_CLASS(MPI_Recv(buf, room, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
          break;
        case ON_WAIT:
          CHECK_RC(MPI_Irecv(buf, room, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &reqs[0]));
          CHECK_CLASS(MPI_Wait(&reqs[0], &st), MPI_ERR_TRUNCATE);
          CHECK(reqs[0] == MPI_REQUEST_NULL, "%s: the failed request was not freed", what);
          break;
        case ON_TEST: {
          int flag = 0, rc = MPI_SUCCESS;
          CHECK_RC(MPI_Irecv(buf, room, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]));
          while (rc == MPI_SUCCESS && !flag) rc = MPI_Test(&reqs[0], &flag, &st);
          CHECK(rc == MPI_ERR_TRUNCATE, "%s: MPI_Test returned %d", what, rc);
          break;
        }
        case ON_WAITALL:
        case ON_WAITSOME: {
          /* Two good receives around the truncated one. */
          CHECK_RC(MPI_Irecv(&small[0], 1, MPI_INT, 1, 1000 + tag, MPI_COMM_WORLD, &reqs[0]));
          CHECK_RC(MPI_Irecv(buf, room, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &reqs[1]));
          CHECK_RC(MPI_Irecv(&small[1], 1, MPI_INT, 1, 2000 + tag, MPI_COMM_WORLD, &reqs[2]));
          for (int i = 0; i < 3; ++i) mt_scribble_status(&sts[i]);
          if (path == ON_WAITALL) {
            CHECK_CLASS(MPI_Waitall(3, reqs, sts), MPI_ERR_IN_STATUS);
            CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[2].MPI_ERROR == MPI_SUCCESS,
                  "%s: good receives have MPI_ERROR %d and %d", what, sts[0].MPI_ERROR, sts[2].MPI_ERROR);
            CHECK(sts[1].MPI_ERROR == MPI_ERR_TRUNCATE, "%s: status MPI_ERROR %d", what, sts[1].MPI_ERROR);
            st = sts[1];
          } else {
            int done = 0, truncated = 0;
            while (done < 3) {
              int outcount = 0, indices[3];
              const int rc = MPI_Waitsome(3, reqs, &outcount, indices, sts);
              CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS, "%s: MPI_Waitsome returned %d", what, rc);
              CHECK(outcount >= 1 && outcount <= 3, "%s: outcount %d", what, outcount);
              for (int k = 0; k < outcount; ++k) {
                const int want = indices[k] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
                CHECK(rc == MPI_ERR_IN_STATUS ? sts[k].MPI_ERROR == want : want == MPI_SUCCESS,
                      "%s: request %d completed with MPI_ERROR %d (call returned %d)", what, indices[k],
                      sts[k].MPI_ERROR, rc);
                if (indices[k] == 1) {
                  st = sts[k];
                  truncated = 1;
                }
              }
              done += outcount;
            }
            CHECK(truncated, "%s: the truncated receive never completed", what);
          }
          CHECK(small[0] == 1000 + tag && small[1] == 2000 + tag, "%s: good receives got %d %d", what, small[0],
                small[1]);
          for (int i = 0; i < 3; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL, "%s: request %d not freed", what, i);
          break;
        }
        case ON_SENDRECV:
          CHECK_CLASS(MPI_Sendrecv(NULL, 0, MPI_BYTE, 1, 5000 + tag, buf, room, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st),
                      MPI_ERR_TRUNCATE);
          break;
        case ON_MRECV: {
          MPI_Message msg;
          CHECK_RC(MPI_Mprobe(1, tag, MPI_COMM_WORLD, &msg, &st));
          mt_status(&st, 1, tag, sent, "MPI_Mprobe before a truncating MPI_Mrecv");
          CHECK_CLASS(MPI_Mrecv(buf, room, MPI_BYTE, &msg, &st), MPI_ERR_TRUNCATE);
          CHECK(msg == MPI_MESSAGE_NULL, "%s: message handle not reset", what);
          break;
        }
      }
      CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == tag, "%s: status source %d tag %d", what, st.MPI_SOURCE, st.MPI_TAG);
      /* What fits has arrived; nothing beyond the buffer was written. */
      mt_verify(buf, (size_t)room, seed_of(path, s), what);
      mt_untouched(buf + room, (size_t)(sent - room), what);
      free(buf);
    }
  }
}

static void truncation_sender(void) {
  for (int path = 0; path < NPATHS; ++path) {
    for (int s = 0; s < NSIZES; ++s) {
      const int sent = kSizes[s], tag = path * 10 + s;
      char *buf = mt_alloc((size_t)sent);
      mt_fill(buf, (size_t)sent, seed_of(path, s));
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (path == ON_WAITALL || path == ON_WAITSOME) {
        const int a = 1000 + tag, b = 2000 + tag;
        CHECK_RC(MPI_Send(&b, 1, MPI_INT, 0, b, MPI_COMM_WORLD));
        CHECK_RC(MPI_Send(&a, 1, MPI_INT, 0, a, MPI_COMM_WORLD));
      }
      if (path == ON_SENDRECV) CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, 5000 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      /* A synchronous send completes normally: truncation is the receiver's error. */
      if (s % 2 == 0) {
        CHECK_RC(MPI_Ssend(buf, sent, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
      } else {
        CHECK_RC(MPI_Send(buf, sent, MPI_BYTE, 0, tag, MPI_COMM_WORLD));
      }
      free(buf);
    }
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "return";
  if (strcmp(mode, "before-init") == 0) {
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    printf("errors: MPI_Send before MPI_Init returned\n");
    return 1;
  }
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);

  if (strcmp(mode, "fatal-truncate") == 0) {
    char buf[100];
    memset(buf, 3, sizeof buf);
    if (g_rank == 0) {
      MPI_Recv(buf, 40, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      printf("errors: the truncated MPI_Recv returned under MPI_ERRORS_ARE_FATAL\n");
    } else {
      MPI_Send(buf, 100, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
  } else if (strcmp(mode, "fatal-rank") == 0) {
    if (g_rank == 0) {
      MPI_Send(&g_rank, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
      printf("errors: MPI_Send to rank 99 returned under MPI_ERRORS_ARE_FATAL\n");
    }
  } else if (strcmp(mode, "fatal-root") == 0) {
    MPI_Bcast(&g_rank, 1, MPI_INT, 5, MPI_COMM_WORLD);
    printf("errors: MPI_Bcast with root 5 returned under MPI_ERRORS_ARE_FATAL\n");
  } else if (strcmp(mode, "fatal-type") == 0) {
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    int in[2] = {1, 2}, out[2];
    MPI_Allreduce(in, out, 1, pair, MPI_SUM, MPI_COMM_WORLD);
    printf("errors: MPI_Allreduce of an uncommitted type returned under MPI_ERRORS_ARE_FATAL\n");
  } else if (strcmp(mode, "return") == 0) {
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    CHECK_RC(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler));
    CHECK(handler == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD starts with handler %d", handler);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    if (g_rank == 0) {
      check_class_texts();
      check_arguments();
      check_requests();
      check_bsend_buffer();
      truncation_receiver();
    } else {
      truncation_sender();
    }
    mt_sync(1 - g_rank);
    if (g_rank == 0) printf("errors ok\n");
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  MPI_Finalize();
  return 0;
}
