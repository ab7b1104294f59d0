/*
 * pmpi_counter: a small profiling library of the kind MPI tools are
 * (MPI-3.1 §14.2). It defines some MPI_ functions, counts calls and bytes,
 * and passes each call on to the library through its PMPI_ twin. At
 * MPI_Finalize each rank prints one line:
 *
 *   pmpi_counter: rank R: MPI_Send 10 calls 4000 bytes, MPI_Recv ..., ...
 *
 * Used both ways a tool is: loaded with LD_PRELOAD into an unchanged
 * program, and linked into the program ahead of libmpi.
 */
#include <mpi.h>
#include <stdio.h>

enum { kSend, kRecv, kIsend, kIrecv, kWait, kSendrecv, kSendrecvReplace, kBcast, kAllreduce, kBarrier, kCommDup,
       kCalls };
static const char* const kNames[kCalls] = {"MPI_Send",     "MPI_Recv",      "MPI_Isend",  "MPI_Irecv",
                                           "MPI_Wait",     "MPI_Sendrecv",  "MPI_Sendrecv_replace",
                                           "MPI_Bcast",    "MPI_Allreduce", "MPI_Barrier", "MPI_Comm_dup"};
static long long calls[kCalls], bytes[kCalls];
static int inits;

static void count(int which, int n, MPI_Datatype type) {
  int size = 0;
  calls[which]++;
  if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
  bytes[which] += (long long)n * size;
}

int MPI_Init(int* argc, char*** argv) {
  inits++;
  return PMPI_Init(argc, argv);
}
int MPI_Send(const void* buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  count(kSend, n, type);
  return PMPI_Send(buf, n, type, dest, tag, comm);
}
int MPI_Recv(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  count(kRecv, n, type);
  return PMPI_Recv(buf, n, type, source, tag, comm, status);
}
int MPI_Isend(const void* buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  count(kIsend, n, type);
  return PMPI_Isend(buf, n, type, dest, tag, comm, req);
}
int MPI_Irecv(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  count(kIrecv, n, type);
  return PMPI_Irecv(buf, n, type, source, tag, comm, req);
}
int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  count(kWait, 0, MPI_DATATYPE_NULL);
  return PMPI_Wait(req, status);
}
int MPI_Sendrecv(const void* sbuf, int sn, MPI_Datatype stype, int dest, int stag, void* rbuf, int rn,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* status) {
  count(kSendrecv, sn, stype);
  return PMPI_Sendrecv(sbuf, sn, stype, dest, stag, rbuf, rn, rtype, source, rtag, comm, status);
}
int MPI_Sendrecv_replace(void* buf, int n, MPI_Datatype type, int dest, int stag, int source, int rtag, MPI_Comm comm,
                         MPI_Status* status) {
  count(kSendrecvReplace, n, type);
  return PMPI_Sendrecv_replace(buf, n, type, dest, stag, source, rtag, comm, status);
}
int MPI_Bcast(void* buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  count(kBcast, n, type);
  return PMPI_Bcast(buf, n, type, root, comm);
}
int MPI_Allreduce(const void* in, void* out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count(kAllreduce, n, type);
  return PMPI_Allreduce(in, out, n, type, op, comm);
}
int MPI_Barrier(MPI_Comm comm) {
  count(kBarrier, 0, MPI_DATATYPE_NULL);
  return PMPI_Barrier(comm);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* out) {
  count(kCommDup, 0, MPI_DATATYPE_NULL);
  return PMPI_Comm_dup(comm, out);
}

int MPI_Finalize(void) {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char line[1024];
  int at = snprintf(line, sizeof line, "pmpi_counter: rank %d: MPI_Init %d calls", rank, inits);
  for (int i = 0; i < kCalls && at < (int)sizeof line; i++) {
    at += snprintf(line + at, sizeof line - (size_t)at, ", %s %lld calls %lld bytes", kNames[i], calls[i], bytes[i]);
  }
  printf("%s\n", line);
  fflush(stdout);
  return PMPI_Finalize();
}
