/*
 * lifetimes: MPI lets a program free an operation, a datatype or a
 * communicator while operations that use it are still pending; they must
 * complete as if it were still there (issue 29, bugs 2 and 3). Each freed
 * handle is followed by new ones of the same kind, so that a library that
 * reuses the freed entry too early shows it.
 *
 *   lifetimes   (any number of ranks from 2)
 */
#include "mpitest.h"

static int rank, size;

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; i++) ((int*)inout)[i] += ((const int*)in)[i];
}
/* For a type of two ints: *len counts pairs. */
static void add_int_pairs(void* in, void* inout, int* len, MPI_Datatype* type) {
  int size_of_type = 0;
  MPI_Type_size(*type, &size_of_type);
  if (size_of_type != 2 * (int)sizeof(int)) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < 2 * *len; i++) ((int*)inout)[i] += ((const int*)in)[i];
}
static void max_ints(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int i = 0; i < *len; i++) {
    if (((const int*)in)[i] > ((int*)inout)[i]) ((int*)inout)[i] = ((const int*)in)[i];
  }
}

/* Bug 2: user operations created, used by a nonblocking reduction and freed
 * in a loop, all waited for at the end. */
static void ops_freed(void) {
  enum { kLoops = 4 };
  int in = rank + 1, sums[kLoops], maxes[kLoops];
  MPI_Request req[2 * kLoops];
  for (int i = 0; i < kLoops; i++) {
    MPI_Op sum, max;
    CHECK_RC(MPI_Op_create(add_ints, 1, &sum));
    CHECK_RC(MPI_Op_create(max_ints, 1, &max));
    CHECK_RC(MPI_Ireduce(&in, &sums[i], 1, MPI_INT, sum, 0, MPI_COMM_WORLD, &req[2 * i]));
    CHECK_RC(MPI_Iallreduce(&in, &maxes[i], 1, MPI_INT, max, MPI_COMM_WORLD, &req[2 * i + 1]));
    CHECK_RC(MPI_Op_free(&sum));
    CHECK_RC(MPI_Op_free(&max));
    CHECK(sum == MPI_OP_NULL && max == MPI_OP_NULL, "MPI_Op_free did not set the handle to MPI_OP_NULL");
  }
  CHECK_RC(MPI_Waitall(2 * kLoops, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < kLoops; i++) {
    if (rank == 0) CHECK(sums[i] == size * (size + 1) / 2, "Ireduce %d with a freed operation gave %d", i, sums[i]);
    CHECK(maxes[i] == size, "Iallreduce %d with a freed operation gave %d", i, maxes[i]);
  }
  /* A freed operation is invalid for new calls. */
  MPI_Op dead;
  CHECK_RC(MPI_Op_create(add_ints, 1, &dead));
  const MPI_Op copy = dead;
  CHECK_RC(MPI_Op_free(&dead));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int out = 0;
  CHECK_CLASS(MPI_Allreduce(&in, &out, 1, MPI_INT, copy, MPI_COMM_WORLD), MPI_ERR_OP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Datatypes freed while a receive, a nonblocking collective and a
 * nonblocking reduction with a user operation use them. */
static void types_freed(void) {
  enum { kN = 6 };
  const int peer = rank ^ 1;
  int got[2 * kN], sent[2 * kN];
  MPI_Datatype every_other, replaced;
  MPI_Request req[3];
  int nreq = 0;
  for (int i = 0; i < 2 * kN; i++) {
    got[i] = -1;
    sent[i] = rank * 100 + i;
  }
  CHECK_RC(MPI_Type_vector(kN, 1, 2, MPI_INT, &every_other));
  CHECK_RC(MPI_Type_commit(&every_other));
  if (peer < size) CHECK_RC(MPI_Irecv(got, 1, every_other, peer, 5, MPI_COMM_WORLD, &req[nreq++]));
  int bcast[2 * kN];
  for (int i = 0; i < 2 * kN; i++) bcast[i] = rank == 0 ? 7000 + i : -1;
  CHECK_RC(MPI_Ibcast(bcast, 1, every_other, 0, MPI_COMM_WORLD, &req[nreq++]));
  int sum_in[2 * kN], sum_out[2 * kN];
  for (int i = 0; i < 2 * kN; i++) sum_in[i] = sum_out[i] = i;
  MPI_Op sum;
  CHECK_RC(MPI_Op_create(add_int_pairs, 1, &sum));
  MPI_Datatype pair;
  CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_RC(MPI_Type_commit(&pair));
  CHECK_RC(MPI_Iallreduce(sum_in, sum_out, kN, pair, sum, MPI_COMM_WORLD, &req[nreq++]));
  CHECK_RC(MPI_Type_free(&every_other));
  CHECK_RC(MPI_Type_free(&pair));
  CHECK_RC(MPI_Op_free(&sum));
  /* New types that may take the freed entries, with other layouts. */
  CHECK_RC(MPI_Type_contiguous(2 * kN, MPI_INT, &replaced));
  CHECK_RC(MPI_Type_commit(&replaced));
  MPI_Datatype other;
  CHECK_RC(MPI_Type_vector(2, 3, 5, MPI_SHORT, &other));
  CHECK_RC(MPI_Type_commit(&other));
  if (peer < size) {
    CHECK_RC(MPI_Send(sent, kN, MPI_INT, peer, 5, MPI_COMM_WORLD));
  }
  CHECK_RC(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  if (peer < size) {
    for (int i = 0; i < 2 * kN; i++) {
      const int want = i % 2 == 0 ? peer * 100 + i / 2 : -1;
      CHECK(got[i] == want, "receive into a freed vector type: element %d is %d, expected %d", i, got[i], want);
    }
  }
  for (int i = 0; i < 2 * kN; i++) {
    const int want = i % 2 == 0 || rank == 0 ? 7000 + i : -1;
    CHECK(bcast[i] == want, "Ibcast of a freed vector type: element %d is %d, expected %d", i, bcast[i], want);
    CHECK(sum_out[i] == size * i, "Iallreduce of a freed type with a freed operation: element %d is %d", i,
          sum_out[i]);
  }
  CHECK_RC(MPI_Type_free(&replaced));
  CHECK_RC(MPI_Type_free(&other));
}

/* Bug 3: a communicator freed while a receive and a nonblocking collective
 * on it are pending: rank 0 frees it and waits; rank 1 sends only after
 * that. Meanwhile every rank makes and frees new duplicates, which must not
 * take the freed one's context while rank 0's receive is pending: a message
 * on the new duplicate must not match it. */
static void comms_freed(void) {
  MPI_Comm dup, again;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int value = -1, total = -1;
  const int one = 1;
  MPI_Request recv = MPI_REQUEST_NULL, sum;
  if (rank == 0) CHECK_RC(MPI_Irecv(&value, 1, MPI_INT, 1, 9, dup, &recv));
  CHECK_RC(MPI_Iallreduce(&one, &total, 1, MPI_INT, MPI_SUM, dup, &sum));
  MPI_Comm keep = dup;
  if (rank != 1) CHECK_RC(MPI_Comm_free(&dup));
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &again));
  if (rank == 1) {
    const int stray = -7;
    CHECK_RC(MPI_Send(&stray, 1, MPI_INT, 0, 9, again));
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    /* Blocked here when rank 1's message arrives, with the handle freed. */
    CHECK_RC(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    CHECK(value == 42, "the receive on the freed communicator got %d, expected 42", value);
    int stray = 0;
    CHECK_RC(MPI_Recv(&stray, 1, MPI_INT, 1, 9, again, MPI_STATUS_IGNORE));
    CHECK(stray == -7, "the message on the new duplicate carried %d", stray);
  } else if (rank == 1) {
    const int real = 42;
    CHECK_RC(MPI_Send(&real, 1, MPI_INT, 0, 9, keep));
    CHECK_RC(MPI_Comm_free(&dup));
  }
  MPI_Status st;
  CHECK_RC(MPI_Wait(&sum, &st));
  CHECK(total == size, "MPI_Iallreduce on the freed communicator gave %d", total);
  CHECK_RC(MPI_Comm_free(&again));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "lifetimes needs at least 2 ranks");
  ops_freed();
  types_freed();
  comms_freed();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("lifetimes ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
