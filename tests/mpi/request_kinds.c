/*
 * request_kinds: requests that are not a plain send or receive (issue 29):
 * generalized requests with their callbacks, statuses a program fills in
 * (MPI_Status_set_elements, _set_cancelled), and MPI_Isendrecv /
 * MPI_Isendrecv_replace around a ring, with contiguous and strided data.
 *
 *   request_kinds   (any number of ranks)
 */
#include "mpitest.h"

static int rank, size;

typedef struct {
  int queried, freed, cancelled_with;
} Calls;

static int query(void* extra, MPI_Status* status) {
  Calls* c = extra;
  c->queried++;
  MPI_Status_set_elements(status, MPI_INT, 7);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = 3;
  status->MPI_TAG = 11;
  return MPI_SUCCESS;
}
static int release(void* extra) {
  ((Calls*)extra)->freed++;
  return MPI_SUCCESS;
}
static int cancel(void* extra, int complete) {
  ((Calls*)extra)->cancelled_with = complete;
  return MPI_SUCCESS;
}

static void generalized(void) {
  Calls c = {0, 0, -1};
  MPI_Request req;
  CHECK_RC(MPI_Grequest_start(query, release, cancel, &c, &req));
  int flag = 1;
  MPI_Status st;
  CHECK_RC(MPI_Test(&req, &flag, &st));
  CHECK(flag == 0 && c.queried == 0, "a generalized request completed before MPI_Grequest_complete");
  CHECK_RC(MPI_Cancel(&req));
  CHECK(c.cancelled_with == 0, "the cancel callback was told complete=%d", c.cancelled_with);
  CHECK_RC(MPI_Grequest_complete(req));
  CHECK_RC(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && c.queried == 1 && c.freed == 1, "after MPI_Wait: queried %d, freed %d", c.queried,
        c.freed);
  int count = 0, cancelled = 1;
  CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_RC(MPI_Test_cancelled(&st, &cancelled));
  CHECK(count == 7 && cancelled == 0 && st.MPI_SOURCE == 3 && st.MPI_TAG == 11,
        "the query callback's status: count %d, cancelled %d, source %d, tag %d", count, cancelled, st.MPI_SOURCE,
        st.MPI_TAG);
  /* Freed before completion: the free callback runs once it completes. */
  Calls d = {0, 0, -1};
  CHECK_RC(MPI_Grequest_start(query, release, cancel, &d, &req));
  MPI_Request kept = req;
  CHECK_RC(MPI_Request_free(&req));
  CHECK(d.freed == 0, "the free callback ran before completion");
  CHECK_RC(MPI_Grequest_complete(kept));
  MPI_Request other;
  Calls e = {0, 0, -1};
  CHECK_RC(MPI_Grequest_start(query, release, cancel, &e, &other));
  CHECK_RC(MPI_Grequest_complete(other));
  int index = -1;
  CHECK_RC(MPI_Waitany(1, &other, &index, MPI_STATUS_IGNORE)); /* progresses the freed one too */
  CHECK(index == 0 && e.queried == 1 && e.freed == 1 && d.freed == 1, "Waitany: index %d, queried %d, freed %d/%d",
        index, e.queried, e.freed, d.freed);
  /* Statuses a program fills in, for a derived type. */
  MPI_Datatype pair;
  CHECK_RC(MPI_Type_contiguous(2, MPI_SHORT, &pair));
  CHECK_RC(MPI_Type_commit(&pair));
  CHECK_RC(MPI_Status_set_elements(&st, pair, 5)); /* two whole pairs and one short */
  int elements = 0;
  CHECK_RC(MPI_Get_elements(&st, pair, &elements));
  CHECK_RC(MPI_Get_count(&st, pair, &count));
  CHECK(elements == 5 && count == MPI_UNDEFINED, "set_elements(5): elements %d, count %d", elements, count);
  MPI_Count big = 0;
  CHECK_RC(MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)3 << 31));
  CHECK_RC(MPI_Get_elements_x(&st, MPI_DOUBLE, &big));
  CHECK(big == (MPI_Count)3 << 31, "set_elements_x: %lld", (long long)big);
  CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE, &elements));
  CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &count));
  CHECK(elements == MPI_UNDEFINED && count == MPI_UNDEFINED, "more elements than an int holds: %d, %d", elements,
        count);
  CHECK_RC(MPI_Status_set_cancelled(&st, 1));
  CHECK_RC(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled == 1, "MPI_Status_set_cancelled(1) then MPI_Test_cancelled gave %d", cancelled);
  CHECK_RC(MPI_Type_free(&pair));
}

static void sendrecv_ring(void) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { N = 3000 };
  int* out = malloc(2 * N * sizeof(int));
  int* in = malloc(2 * N * sizeof(int));
  for (int i = 0; i < 2 * N; i++) {
    out[i] = rank * 100000 + i;
    in[i] = -1;
  }
  MPI_Request req[2];
  MPI_Status st[2];
  /* Contiguous, then every other int of both buffers. */
  CHECK_RC(MPI_Isendrecv(out, N, MPI_INT, right, 1, in, N, MPI_INT, left, 1, MPI_COMM_WORLD, &req[0]));
  MPI_Datatype every_other;
  CHECK_RC(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
  CHECK_RC(MPI_Type_commit(&every_other));
  int* in2 = malloc(2 * N * sizeof(int));
  for (int i = 0; i < 2 * N; i++) in2[i] = -1;
  CHECK_RC(MPI_Isendrecv(out, 1, every_other, left, 2, in2, 1, every_other, right, 2, MPI_COMM_WORLD, &req[1]));
  CHECK_RC(MPI_Waitall(2, req, st));
  for (int i = 0; i < N; i++) CHECK(in[i] == left * 100000 + i, "Isendrecv: int %d is %d", i, in[i]);
  for (int i = 0; i < 2 * N; i++) {
    const int want = i % 2 == 0 ? right * 100000 + i : -1;
    CHECK(in2[i] == want, "Isendrecv of a vector type: int %d is %d, expected %d", i, in2[i], want);
  }
  int count = 0;
  CHECK_RC(MPI_Get_count(&st[0], MPI_INT, &count));
  CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1 && count == N, "Isendrecv status: source %d tag %d count %d",
        st[0].MPI_SOURCE, st[0].MPI_TAG, count);
  /* Replace: each rank's block moves one step right, in place. */
  for (int i = 0; i < N; i++) out[i] = rank * 7 + i;
  CHECK_RC(MPI_Isendrecv_replace(out, N, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, &req[0]));
  CHECK_RC(MPI_Wait(&req[0], &st[0]));
  for (int i = 0; i < N; i++) CHECK(out[i] == left * 7 + i, "Isendrecv_replace: int %d is %d", i, out[i]);
  /* The status of MPI_REQUEST_NULL is empty, MPI_ERROR included. */
  int done = 0;
  mt_scribble_status(&st[0]);
  CHECK_RC(MPI_Request_get_status(MPI_REQUEST_NULL, &done, &st[0]));
  CHECK(done == 1, "MPI_Request_get_status(MPI_REQUEST_NULL): flag %d", done);
  mt_empty_status(&st[0], "MPI_Request_get_status(MPI_REQUEST_NULL)");
  /* A call that returns one status leaves its MPI_ERROR alone. */
  st[0].MPI_ERROR = MPI_ERR_DIMS;
  CHECK_RC(MPI_Recv(in, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st[0]));
  CHECK(st[0].MPI_ERROR == MPI_ERR_DIMS, "MPI_Recv from MPI_PROC_NULL set MPI_ERROR to %d", st[0].MPI_ERROR);
  MPI_Message message;
  st[0].MPI_ERROR = MPI_ERR_TOPOLOGY;
  CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &message, &st[0]));
  CHECK(st[0].MPI_ERROR == MPI_ERR_TOPOLOGY && message == MPI_MESSAGE_NO_PROC, "MPI_Mprobe from MPI_PROC_NULL: %d",
        st[0].MPI_ERROR);
  CHECK_RC(MPI_Mrecv(in, 1, MPI_INT, &message, &st[0]));
  CHECK(st[0].MPI_ERROR == MPI_ERR_TOPOLOGY, "MPI_Mrecv of MPI_MESSAGE_NO_PROC set MPI_ERROR to %d", st[0].MPI_ERROR);
  /* MPI_PROC_NULL on either side. */
  CHECK_RC(MPI_Isendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 4, in, 1, MPI_INT, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &req[0]));
  CHECK_RC(MPI_Wait(&req[0], &st[0]));
  CHECK(st[0].MPI_SOURCE == MPI_PROC_NULL, "receive from MPI_PROC_NULL: source %d", st[0].MPI_SOURCE);
  CHECK_RC(MPI_Type_free(&every_other));
  free(out);
  free(in);
  free(in2);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  generalized();
  sendrecv_ring();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("request_kinds ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
