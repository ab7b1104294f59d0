/*
 * send_modes: the matrix of point-to-point sends between two ranks, in both
 * directions:
 *
 *   mode  standard, synchronous, buffered, ready
 *   size  0, 1, S, S+1, E-1, E, E+1 and 1 MiB, where S and E are the job's
 *         short_limit and eager_limit: both sides of every protocol boundary
 *         (short / eager / rendezvous)
 *   form  blocking (the receive is posted first, as ready mode needs);
 *         nonblocking (I-forms; the message arrives before its receive is
 *         posted, except in ready mode; completed by Wait or a Test loop);
 *         persistent (Send_init family and Recv_init, started 3 times)
 *
 *   send_modes SHORT_LIMIT EAGER_LIMIT
 *
 * Then both ranks exchange every size at once with MPI_Sendrecv and
 * MPI_Sendrecv_replace.
 *
 * Every byte of every message follows a pattern of its size, iteration,
 * sender and case; the bytes after a receive buffer's message must stay
 * untouched; every receive's status (source, tag, count) is checked.
 */
#include "mpitest.h"

enum { STANDARD, SYNCHRONOUS, BUFFERED, READY, NMODES };
enum { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };

#define TAG_READY 900001   /* receiver -> sender: the receive is posted */
#define TAG_NOTIFY 900002  /* sender -> receiver: the message has been sent */
#define GUARD_BYTES 64
#define PERSISTENT_ROUNDS 3

typedef int (*BlockingSend)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*RequestSend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static const BlockingSend kBlocking[NMODES] = {MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend};
static const RequestSend kImmediate[NMODES] = {MPI_Isend, MPI_Issend, MPI_Ibsend, MPI_Irsend};
static const RequestSend kPersistent[NMODES] = {MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init};
static const char *const kModeName[NMODES] = {"standard", "synchronous", "buffered", "ready"};
static const char *const kFormName[NFORMS] = {"blocking", "nonblocking", "persistent"};

static int g_rank;

/* Waits for a send request with MPI_Wait, or with a loop of MPI_Test. */
static void complete_send(MPI_Request *req, int use_test) {
  if (!use_test) {
    CHECK_RC(MPI_Wait(req, MPI_STATUS_IGNORE));
    return;
  }
  int flag = 0;
  while (!flag) CHECK_RC(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
}

static void sender(int peer, int mode, int form, int size, int tag, int case_no) {
  char *buf = mt_alloc((size_t)size);
  MPI_Request req = MPI_REQUEST_NULL;
  if (form == BLOCKING) {
    mt_fill(buf, (size_t)size, mt_seed((uint64_t)size, 0, (uint64_t)g_rank, (uint64_t)case_no));
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(kBlocking[mode](buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
  } else if (form == NONBLOCKING) {
    mt_fill(buf, (size_t)size, mt_seed((uint64_t)size, 0, (uint64_t)g_rank, (uint64_t)case_no));
    if (mode == READY) CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_RC(kImmediate[mode](buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    CHECK(req != MPI_REQUEST_NULL, "%s returned MPI_REQUEST_NULL", kModeName[mode]);
    /* The receiver posts its receive only after this: the message is unexpected. */
    if (mode != READY) CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_NOTIFY, MPI_COMM_WORLD));
    complete_send(&req, case_no % 2);
    CHECK(req == MPI_REQUEST_NULL, "completed %s send request not set to MPI_REQUEST_NULL", kModeName[mode]);
  } else {
    CHECK_RC(kPersistent[mode](buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    for (int round = 0; round < PERSISTENT_ROUNDS; ++round) {
      mt_fill(buf, (size_t)size, mt_seed((uint64_t)size, (uint64_t)round, (uint64_t)g_rank, (uint64_t)case_no));
      if (mode == READY) {
        CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      }
      CHECK_RC(MPI_Start(&req));
      complete_send(&req, round % 2);
      CHECK(req != MPI_REQUEST_NULL, "persistent %s send request freed by its completion", kModeName[mode]);
    }
    CHECK_RC(MPI_Request_free(&req));
    CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle set");
  }
  free(buf);
}

static void check_message(const char *buf, const MPI_Status *st, int peer, int size, int tag, int round,
                          int case_no, const char *what) {
  char label[200];
  snprintf(label, sizeof label, "%s, %d bytes from rank %d, round %d", what, size, peer, round);
  mt_status(st, peer, tag, size, label);
  mt_verify(buf, (size_t)size, mt_seed((uint64_t)size, (uint64_t)round, (uint64_t)peer, (uint64_t)case_no), label);
  mt_untouched(buf + size, GUARD_BYTES, label);
}

static void receiver(int peer, int mode, int form, int size, int tag, int case_no, const char *what) {
  char *buf = mt_alloc((size_t)size + GUARD_BYTES);
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  memset(buf, MT_GUARD, (size_t)size + GUARD_BYTES);
  mt_scribble_status(&st);
  if (form == BLOCKING) {
    CHECK_RC(MPI_Irecv(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD));
    CHECK_RC(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL, "%s: completed receive not set to MPI_REQUEST_NULL", what);
    check_message(buf, &st, peer, size, tag, 0, case_no, what);
  } else if (form == NONBLOCKING) {
    if (mode == READY) {
      CHECK_RC(MPI_Irecv(buf, size + GUARD_BYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD));
      CHECK_RC(MPI_Wait(&req, &st));
    } else {
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_NOTIFY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      /* A buffer larger than the message: the count says how much came. */
      CHECK_RC(MPI_Recv(buf, size + GUARD_BYTES, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    }
    check_message(buf, &st, peer, size, tag, 0, case_no, what);
    int ints = -1;
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &ints));
    CHECK(ints == (size % (int)sizeof(int) == 0 ? size / (int)sizeof(int) : MPI_UNDEFINED),
          "%s: MPI_Get_count(MPI_INT) of %d bytes is %d", what, size, ints);
  } else {
    CHECK_RC(MPI_Recv_init(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req));
    for (int round = 0; round < PERSISTENT_ROUNDS; ++round) {
      memset(buf, MT_GUARD, (size_t)size + GUARD_BYTES);
      mt_scribble_status(&st);
      CHECK_RC(MPI_Startall(1, &req));
      if (mode == READY) CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_READY, MPI_COMM_WORLD));
      CHECK_RC(MPI_Wait(&req, &st));
      CHECK(req != MPI_REQUEST_NULL, "%s: persistent receive freed by its completion", what);
      check_message(buf, &st, peer, size, tag, round, case_no, what);
    }
    CHECK_RC(MPI_Request_free(&req));
  }
  free(buf);
}

/* Both ranks exchange at once with MPI_Sendrecv, then MPI_Sendrecv_replace. */
static void exchange(int peer, int size, int case_no) {
  char *out = mt_alloc((size_t)size), *in = mt_alloc((size_t)size + GUARD_BYTES);
  MPI_Status st;
  char what[100];
  for (int replace = 0; replace < 2; ++replace) {
    const int tag = 1 + case_no;
    snprintf(what, sizeof what, "%s of %d bytes", replace ? "MPI_Sendrecv_replace" : "MPI_Sendrecv", size);
    mt_fill(out, (size_t)size, mt_seed((uint64_t)size, (uint64_t)replace, (uint64_t)g_rank, (uint64_t)case_no));
    memset(in, MT_GUARD, (size_t)size + GUARD_BYTES);
    mt_scribble_status(&st);
    if (replace) {
      memcpy(in, out, (size_t)size);
      CHECK_RC(MPI_Sendrecv_replace(in, size, MPI_BYTE, peer, tag, peer, tag, MPI_COMM_WORLD, &st));
    } else {
      CHECK_RC(MPI_Sendrecv(out, size, MPI_BYTE, peer, tag, in, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st));
    }
    mt_status(&st, peer, tag, size, what);
    mt_verify(in, (size_t)size, mt_seed((uint64_t)size, (uint64_t)replace, (uint64_t)peer, (uint64_t)case_no), what);
    mt_untouched(in + size, GUARD_BYTES, what);
  }
  free(out);
  free(in);
}

static int compare_ints(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks == 2, "run with 2 ranks, not %d", nranks);
  const int short_limit = (int)mt_arg(argc, argv, 1, "SHORT_LIMIT");
  const int eager_limit = (int)mt_arg(argc, argv, 2, "EAGER_LIMIT");

  int candidates[] = {0, 1, short_limit, short_limit + 1, eager_limit - 1, eager_limit, eager_limit + 1, 1 << 20};
  const int ncandidates = (int)(sizeof candidates / sizeof candidates[0]);
  qsort(candidates, (size_t)ncandidates, sizeof candidates[0], compare_ints);
  int sizes[sizeof candidates / sizeof candidates[0]];
  int nsizes = 0;
  for (int i = 0; i < ncandidates; ++i) {
    if (candidates[i] >= 0 && (nsizes == 0 || sizes[nsizes - 1] != candidates[i])) sizes[nsizes++] = candidates[i];
  }
  const int largest = sizes[nsizes - 1];

  /* Room for every buffered message one case can have in flight. */
  const int attach_bytes = (PERSISTENT_ROUNDS + 1) * (largest + MPI_BSEND_OVERHEAD);
  char *attached = mt_alloc((size_t)attach_bytes);
  CHECK_RC(MPI_Buffer_attach(attached, attach_bytes));

  const int peer = 1 - g_rank;
  int case_no = 0;
  for (int from = 0; from < 2; ++from) {
    for (int mode = 0; mode < NMODES; ++mode) {
      for (int form = 0; form < NFORMS; ++form) {
        for (int s = 0; s < nsizes; ++s, ++case_no) {
          const int tag = 1 + case_no;
          char what[160];
          snprintf(what, sizeof what, "case %d: %s %s send of %d bytes, rank %d to %d", case_no, kFormName[form],
                   kModeName[mode], sizes[s], from, 1 - from);
          if (g_rank == from) {
            sender(peer, mode, form, sizes[s], tag, case_no);
          } else {
            receiver(peer, mode, form, sizes[s], tag, case_no, what);
          }
          mt_sync(peer);
        }
      }
    }
  }

  for (int s = 0; s < nsizes; ++s, ++case_no) exchange(peer, sizes[s], case_no);

  void *detached = NULL;
  int detached_bytes = -1;
  CHECK_RC(MPI_Buffer_detach(&detached, &detached_bytes));
  CHECK(detached == attached && detached_bytes == attach_bytes, "MPI_Buffer_detach gave %p/%d, attached %p/%d",
        detached, detached_bytes, (void *)attached, attach_bytes);
  free(attached);

  if (g_rank == 0) {
    printf("send_modes ok: %d cases, sizes", case_no);
    for (int s = 0; s < nsizes; ++s) printf(" %d", sizes[s]);
    printf("\n");
  }
  MPI_Finalize();
  return 0;
}
