/*
 * Derived datatypes: each constructor's size, extent, true extent and packed
 * layout against hand-computed values; round trips through MPI_Pack and
 * MPI_Unpack, external32, point-to-point (blocking, immediate, persistent,
 * buffered, probe + Get_count/Get_elements) and collectives; MPI_BOTTOM with
 * absolute addresses; errors for uncommitted and freed types.
 *   datatypes        (2 or more ranks)
 *   datatypes check  (run with --set datatype_check=1): receives whose type
 *                    signature differs from the sender's fail with MPI_ERR_TYPE
 */
#include <stddef.h>

#include "mpitest.h"

static int rank, size;

static void expect_shape(MPI_Datatype t, int want_size, MPI_Aint want_lb, MPI_Aint want_extent, MPI_Aint want_true_lb,
                         MPI_Aint want_true_extent, const char *what) {
  int sz = -1;
  MPI_Aint lb = -1, extent = -1, tlb = -1, textent = -1;
  CHECK_RC(MPI_Type_size(t, &sz));
  CHECK_RC(MPI_Type_get_extent(t, &lb, &extent));
  CHECK_RC(MPI_Type_get_true_extent(t, &tlb, &textent));
  CHECK(sz == want_size && lb == want_lb && extent == want_extent && tlb == want_true_lb && textent == want_true_extent,
        "%s: size %d lb %ld extent %ld true lb %ld true extent %ld; expected %d %ld %ld %ld %ld", what, sz, (long)lb,
        (long)extent, (long)tlb, (long)textent, want_size, (long)want_lb, (long)want_extent, (long)want_true_lb,
        (long)want_true_extent);
}

/* Packs `count` elements of `t` from an int array holding 0, 1, 2, ... and
   checks the packed ints are `want`. */
static void expect_packed_ints(MPI_Datatype t, int count, const int *want, int nwant, const char *what) {
  int src[256], out[256];
  for (int i = 0; i < 256; ++i) src[i] = i;
  int position = 0, packed_size = 0;
  CHECK_RC(MPI_Pack_size(count, t, MPI_COMM_WORLD, &packed_size));
  CHECK(packed_size == nwant * (int)sizeof(int), "%s: Pack_size %d, expected %d", what, packed_size, nwant * (int)sizeof(int));
  CHECK_RC(MPI_Pack(src, count, t, out, (int)sizeof out, &position, MPI_COMM_WORLD));
  CHECK(position == nwant * (int)sizeof(int), "%s: packed %d bytes", what, position);
  for (int i = 0; i < nwant; ++i) CHECK(out[i] == want[i], "%s: packed int %d is %d, expected %d", what, i, out[i], want[i]);
  /* And back: unpacking restores exactly the packed places, nothing else. */
  int back[256];
  for (int i = 0; i < 256; ++i) back[i] = -1;
  position = 0;
  CHECK_RC(MPI_Unpack(out, (int)sizeof out, &position, back, count, t, MPI_COMM_WORLD));
  int touched = 0, distinct = 0;
  for (int i = 0; i < nwant; ++i) {
    int seen = 0;
    for (int j = 0; j < i; ++j) seen |= want[j] == want[i];
    distinct += !seen; /* overlapping layouts write some places twice */
  }
  for (int i = 0; i < 256; ++i) {
    if (back[i] != -1) {
      CHECK(back[i] == i, "%s: unpack wrote %d at int %d", what, back[i], i);
      ++touched;
    }
  }
  CHECK(touched == distinct, "%s: unpack wrote %d ints, expected %d", what, touched, distinct);
}

static void test_constructors(void) {
  const int I = (int)sizeof(int);
  MPI_Datatype t;
  /* contiguous(3, int) */
  CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &t));
  CHECK_RC(MPI_Type_commit(&t));
  expect_shape(t, 3 * I, 0, 3 * I, 0, 3 * I, "contiguous");
  { const int w[] = {0, 1, 2, 3, 4, 5}; expect_packed_ints(t, 2, w, 6, "contiguous x2"); }
  MPI_Type_free(&t);
  CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle");
  /* vector(3 blocks of 2, stride 4) */
  CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
  CHECK_RC(MPI_Type_commit(&t));
  expect_shape(t, 6 * I, 0, 10 * I, 0, 10 * I, "vector");
  { const int w[] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}; expect_packed_ints(t, 2, w, 12, "vector x2"); }
  MPI_Type_free(&t);
  /* hvector(2 blocks of 1, stride 3 ints in bytes) */
  CHECK_RC(MPI_Type_create_hvector(2, 1, 3 * I, MPI_INT, &t));
  CHECK_RC(MPI_Type_commit(&t));
  expect_shape(t, 2 * I, 0, 4 * I, 0, 4 * I, "hvector");
  { const int w[] = {0, 3}; expect_packed_ints(t, 1, w, 2, "hvector"); }
  MPI_Type_free(&t);
  /* indexed: blocks (2 at 5), (1 at 0), (3 at 10) — typemap order, not address order */
  {
    const int lens[] = {2, 1, 3}, displs[] = {5, 0, 10};
    CHECK_RC(MPI_Type_indexed(3, lens, displs, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 6 * I, 0, 13 * I, 0, 13 * I, "indexed");
    const int w[] = {5, 6, 0, 10, 11, 12};
    expect_packed_ints(t, 1, w, 6, "indexed");
    MPI_Type_free(&t);
  }
  /* hindexed and indexed_block, hindexed_block */
  {
    const int lens[] = {1, 2};
    const MPI_Aint displs[] = {2 * I, 6 * I};
    CHECK_RC(MPI_Type_create_hindexed(2, lens, displs, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 3 * I, 2 * I, 6 * I, 2 * I, 6 * I, "hindexed");
    const int w[] = {2, 6, 7};
    expect_packed_ints(t, 1, w, 3, "hindexed");
    MPI_Type_free(&t);
    const int bd[] = {7, 1, 4};
    CHECK_RC(MPI_Type_create_indexed_block(3, 2, bd, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 6 * I, I, 8 * I, I, 8 * I, "indexed_block");
    const int wb[] = {7, 8, 1, 2, 4, 5};
    expect_packed_ints(t, 1, wb, 6, "indexed_block");
    MPI_Type_free(&t);
    const MPI_Aint hb[] = {3 * I, 0};
    CHECK_RC(MPI_Type_create_hindexed_block(2, 1, hb, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    const int whb[] = {3, 0};
    expect_packed_ints(t, 1, whb, 2, "hindexed_block");
    MPI_Type_free(&t);
  }
  /* resized: the vector's extent stretched so consecutive elements interleave */
  {
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    CHECK_RC(MPI_Type_create_resized(v, 0, I, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 2 * I, 0, I, 0, 3 * I, "resized");
    const int w[] = {0, 2, 1, 3, 2, 4};
    expect_packed_ints(t, 3, w, 6, "resized x3");
    MPI_Type_free(&t);
    MPI_Type_free(&v);
  }
  /* subarray: rows 1-2, columns 2-4 of a 4x5 int array, C order */
  {
    const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
    CHECK_RC(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 6 * I, 0, 20 * I, 7 * I, 8 * I, "subarray C");
    const int w[] = {7, 8, 9, 12, 13, 14};
    expect_packed_ints(t, 1, w, 6, "subarray C");
    MPI_Type_free(&t);
    CHECK_RC(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    CHECK_RC(MPI_Type_commit(&t));
    /* Fortran order: dimension 0 varies fastest; element (i, j) at i + 4 j. */
    const int wf[] = {9, 10, 13, 14, 17, 18};
    expect_packed_ints(t, 1, wf, 6, "subarray Fortran");
    MPI_Type_free(&t);
  }
  /* struct { char c; double d; int i[2]; } with padding to alignment */
  {
    struct S { char c; double d; int i[2]; };
    const int lens[] = {1, 1, 2};
    const MPI_Aint displs[] = {offsetof(struct S, c), offsetof(struct S, d), offsetof(struct S, i)};
    const MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    CHECK_RC(MPI_Type_create_struct(3, lens, displs, types, &t));
    CHECK_RC(MPI_Type_commit(&t));
    expect_shape(t, 1 + 8 + 2 * I, 0, (MPI_Aint)sizeof(struct S), 0, (MPI_Aint)offsetof(struct S, i) + 2 * I, "struct");
    struct S in[2] = {{'a', 1.5, {1, 2}}, {'b', -2.5, {3, 4}}}, out[2];
    memset(out, 0, sizeof out);
    char packed[64];
    int position = 0;
    CHECK_RC(MPI_Pack(in, 2, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
    CHECK(position == 2 * (1 + 8 + 2 * I), "struct packed %d bytes", position);
    position = 0;
    CHECK_RC(MPI_Unpack(packed, sizeof packed, &position, out, 2, t, MPI_COMM_WORLD));
    CHECK(out[1].c == 'b' && out[1].d == -2.5 && out[1].i[1] == 4 && out[0].i[0] == 1, "struct round trip");
    MPI_Type_free(&t);
  }
  /* dup keeps the layout; names */
  {
    MPI_Datatype v, d;
    CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_INT, &v));
    CHECK_RC(MPI_Type_dup(v, &d));
    CHECK_RC(MPI_Type_commit(&d));
    expect_shape(d, 2 * I, 0, 4 * I, 0, 4 * I, "dup");
    CHECK_RC(MPI_Type_set_name(d, "pairs"));
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_RC(MPI_Type_get_name(d, name, &len));
    CHECK(strcmp(name, "pairs") == 0, "type name '%s'", name);
    CHECK_RC(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE") == 0, "predefined name '%s'", name);
    MPI_Type_free(&v);
    MPI_Type_free(&d);
  }
  /* The _x queries, MPI_Reduce_local */
  {
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &v));
    CHECK_RC(MPI_Type_commit(&v));
    MPI_Count sz = 0, lb = -1, ext = 0, tlb = -1, text = 0;
    CHECK_RC(MPI_Type_size_x(v, &sz));
    CHECK_RC(MPI_Type_get_extent_x(v, &lb, &ext));
    CHECK_RC(MPI_Type_get_true_extent_x(v, &tlb, &text));
    CHECK(sz == 6 * I && lb == 0 && ext == 10 * I && tlb == 0 && text == 10 * I, "_x queries");
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.mpf_bytes = 5 * I; /* as if 5 ints had arrived */
    MPI_Count elements = 0;
    CHECK_RC(MPI_Get_elements_x(&st, v, &elements));
    CHECK(elements == 5, "Get_elements_x %lld", (long long)elements);
    MPI_Type_free(&v);
    int a[3] = {1, 5, 3}, b[3] = {4, 2, 6};
    CHECK_RC(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 4 && b[1] == 5 && b[2] == 6, "Reduce_local max: %d %d %d", b[0], b[1], b[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Reduce_local(a, b, 3, MPI_BYTE, MPI_SUM), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
  /* An empty type */
  CHECK_RC(MPI_Type_contiguous(0, MPI_INT, &t));
  CHECK_RC(MPI_Type_commit(&t));
  expect_shape(t, 0, 0, 0, 0, 0, "empty");
  MPI_Type_free(&t);
}

static void test_external32(void) {
  const int values[2] = {0x01020304, -2};
  unsigned char out[8];
  MPI_Aint position = 0, need = 0;
  CHECK_RC(MPI_Pack_external_size("external32", 2, MPI_INT, &need));
  CHECK(need == 8, "external32 size %ld", (long)need);
  CHECK_RC(MPI_Pack_external("external32", values, 2, MPI_INT, out, sizeof out, &position));
  CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4 && out[4] == 0xff && out[7] == 0xfe,
        "external32 is not big-endian: %02x %02x %02x %02x", out[0], out[1], out[2], out[3]);
  int back[2] = {0, 0};
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", out, sizeof out, &position, back, 2, MPI_INT));
  CHECK(back[0] == values[0] && back[1] == values[1], "external32 round trip");
  double d = 1.0, dback = 0;
  unsigned char dout[8];
  position = 0;
  CHECK_RC(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, dout, sizeof dout, &position));
  CHECK(dout[0] == 0x3f && dout[1] == 0xf0 && dout[7] == 0, "external32 double 1.0 starts %02x %02x", dout[0], dout[1]);
  position = 0;
  CHECK_RC(MPI_Unpack_external("external32", dout, sizeof dout, &position, &dback, 1, MPI_DOUBLE));
  CHECK(dback == 1.0, "external32 double round trip");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  position = 0;
  CHECK_CLASS(MPI_Pack_external("native", values, 1, MPI_INT, out, sizeof out, &position), MPI_ERR_ARG);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A column of a row-major matrix sent as a vector and received as contiguous
   ints, and the other way round; every form of send. */
static void test_point_to_point(void) {
  enum { N = 300 }; /* 300 x 300 ints: a column crosses the eager limit */
  const int peer = rank ^ 1;
  if (peer >= size) return;
  int *matrix = (int *)mt_alloc(N * N * sizeof(int)), column[N];
  MPI_Datatype col;
  CHECK_RC(MPI_Type_vector(N, 1, N, MPI_INT, &col));
  CHECK_RC(MPI_Type_commit(&col));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < N * N; ++i) matrix[i] = rank % 2 == 0 ? i : -1;
    for (int i = 0; i < N; ++i) column[i] = rank % 2 == 0 ? -1 : 1000000 + i;
    if (rank % 2 == 0) {
      MPI_Request req;
      MPI_Status st;
      switch (round) {
        case 0: CHECK_RC(MPI_Send(matrix + 7, 1, col, peer, 1, MPI_COMM_WORLD)); break;
        case 1: CHECK_RC(MPI_Isend(matrix + 7, 1, col, peer, 1, MPI_COMM_WORLD, &req)); CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE)); break;
        case 2:
          CHECK_RC(MPI_Send_init(matrix + 7, 1, col, peer, 1, MPI_COMM_WORLD, &req));
          CHECK_RC(MPI_Start(&req));
          CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
          CHECK_RC(MPI_Request_free(&req));
          break;
        default: {
          int bsize = 0;
          MPI_Pack_size(1, col, MPI_COMM_WORLD, &bsize);
          void *buffer = mt_alloc((size_t)bsize + MPI_BSEND_OVERHEAD);
          CHECK_RC(MPI_Buffer_attach(buffer, bsize + MPI_BSEND_OVERHEAD));
          CHECK_RC(MPI_Bsend(matrix + 7, 1, col, peer, 1, MPI_COMM_WORLD));
          void *detached;
          int dsize;
          CHECK_RC(MPI_Buffer_detach(&detached, &dsize));
          free(buffer);
        }
      }
      /* The column comes back into column 3 of the matrix. */
      CHECK_RC(MPI_Recv(matrix + 3, 1, col, peer, 2, MPI_COMM_WORLD, &st));
      int count = -1, elements = -1;
      CHECK_RC(MPI_Get_count(&st, col, &count));
      CHECK_RC(MPI_Get_elements(&st, col, &elements));
      CHECK(count == 1 && elements == N, "column status: count %d elements %d", count, elements);
      for (int r = 0; r < N; ++r) {
        CHECK(matrix[r * N + 3] == 1000000 + r, "round %d: matrix[%d][3] is %d", round, r, matrix[r * N + 3]);
        CHECK(matrix[r * N + 4] == r * N + 4, "round %d: receive wrote matrix[%d][4]", round, r);
      }
    } else {
      MPI_Status st;
      CHECK_RC(MPI_Probe(peer, 1, MPI_COMM_WORLD, &st));
      int count = -1, elements = -1;
      CHECK_RC(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == N, "probed count %d", count);
      CHECK_RC(MPI_Get_count(&st, col, &count));
      CHECK(count == 1, "probed count in columns %d", count);
      CHECK_RC(MPI_Recv(column, N, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
      CHECK_RC(MPI_Get_elements(&st, MPI_INT, &elements));
      CHECK(elements == N, "elements %d", elements);
      for (int r = 0; r < N; ++r) CHECK(column[r] == r * N + 7, "round %d: column[%d] is %d", round, r, column[r]);
      for (int r = 0; r < N; ++r) column[r] = 1000000 + r;
      if (round % 2 == 0) {
        CHECK_RC(MPI_Send(column, N, MPI_INT, peer, 2, MPI_COMM_WORLD));
      } else {
        CHECK_RC(MPI_Ssend(column, N, MPI_INT, peer, 2, MPI_COMM_WORLD));
      }
    }
  }
  /* A partial element: half a column's ints arrive; Get_count is
     MPI_UNDEFINED and Get_elements counts the ints. */
  if (rank % 2 == 1) {
    CHECK_RC(MPI_Send(column, N / 2, MPI_INT, peer, 3, MPI_COMM_WORLD));
  } else {
    MPI_Status st;
    CHECK_RC(MPI_Recv(matrix, 1, col, peer, 3, MPI_COMM_WORLD, &st));
    int count = 0, elements = 0;
    MPI_Get_count(&st, col, &count);
    MPI_Get_elements(&st, col, &elements);
    CHECK(count == MPI_UNDEFINED && elements == N / 2, "partial: count %d elements %d", count, elements);
  }
  MPI_Type_free(&col);
  free(matrix);
}

/* MPI_BOTTOM: a struct type of absolute addresses. */
static void test_bottom(void) {
  int a = rank, b[2] = {rank * 10, rank * 10 + 1};
  MPI_Aint addr[2];
  MPI_Get_address(&a, &addr[0]);
  MPI_Get_address(b, &addr[1]);
  const int lens[] = {1, 2};
  const MPI_Datatype types[] = {MPI_INT, MPI_INT};
  MPI_Datatype t;
  CHECK_RC(MPI_Type_create_struct(2, lens, addr, types, &t));
  CHECK_RC(MPI_Type_commit(&t));
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int got[3];
  CHECK_RC(MPI_Sendrecv(MPI_BOTTOM, 1, t, next, 4, got, 3, MPI_INT, prev, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got[0] == prev && got[1] == prev * 10 && got[2] == prev * 10 + 1, "MPI_BOTTOM struct: %d %d %d", got[0], got[1], got[2]);
  MPI_Type_free(&t);
}

static void test_collectives(void) {
  /* Bcast of a strided column; allreduce on a vector of doubles; gather
     with a resized type interleaving the ranks' values. */
  enum { N = 50 };
  double m[N * 4];
  MPI_Datatype col, every_other, one;
  CHECK_RC(MPI_Type_vector(N, 1, 4, MPI_DOUBLE, &col));
  CHECK_RC(MPI_Type_commit(&col));
  for (int i = 0; i < N * 4; ++i) m[i] = rank == 1 % size ? i : -1;
  CHECK_RC(MPI_Bcast(m + 2, 1, col, 1 % size, MPI_COMM_WORLD));
  for (int r = 0; r < N; ++r) {
    CHECK(m[r * 4 + 2] == r * 4 + 2, "bcast column element %d is %g", r, m[r * 4 + 2]);
    if (rank != 1 % size) CHECK(m[r * 4 + 1] == -1, "bcast wrote outside the column");
  }
  for (int i = 0; i < N * 4; ++i) m[i] = rank + i;
  double sums[N];
  CHECK_RC(MPI_Allreduce(m, sums, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  double colsum[N * 4];
  for (int i = 0; i < N * 4; ++i) colsum[i] = -7;
  CHECK_RC(MPI_Allreduce(m, colsum, 1, col, MPI_SUM, MPI_COMM_WORLD));
  for (int r = 0; r < N; ++r) {
    const double want = size * (r * 4.0) + size * (size - 1) / 2.0;
    CHECK(colsum[r * 4] == want, "allreduce on a column: element %d is %g, expected %g", r, colsum[r * 4], want);
    CHECK(colsum[r * 4 + 1] == -7, "allreduce on a column wrote outside it");
  }
  /* Gather into every other int: a resized int of extent 2 ints. */
  CHECK_RC(MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every_other));
  CHECK_RC(MPI_Type_commit(&every_other));
  int *all = (int *)mt_alloc(2 * (size_t)size * sizeof(int));
  for (int i = 0; i < 2 * size; ++i) all[i] = -1;
  int mine = 100 + rank;
  CHECK_RC(MPI_Gather(&mine, 1, MPI_INT, all, 1, every_other, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    for (int r = 0; r < size; ++r) CHECK(all[2 * r] == 100 + r && all[2 * r + 1] == -1, "gather into every other int: rank %d", r);
  }
  /* Alltoallw: to each peer one int typed as a contiguous pair of shorts. */
  CHECK_RC(MPI_Type_contiguous(2, MPI_SHORT, &one));
  CHECK_RC(MPI_Type_commit(&one));
  int *counts = (int *)mt_alloc((size_t)size * sizeof(int)), *displs = (int *)mt_alloc((size_t)size * sizeof(int));
  MPI_Datatype *stypes = (MPI_Datatype *)mt_alloc((size_t)size * sizeof(MPI_Datatype));
  MPI_Datatype *rtypes = (MPI_Datatype *)mt_alloc((size_t)size * sizeof(MPI_Datatype));
  int *sendv = (int *)mt_alloc((size_t)size * sizeof(int)), *recvv = (int *)mt_alloc((size_t)size * sizeof(int));
  for (int p = 0; p < size; ++p) {
    counts[p] = 1;
    displs[p] = p * (int)sizeof(int);
    stypes[p] = one;
    rtypes[p] = MPI_INT;
    sendv[p] = rank * 100 + p;
    recvv[p] = -1;
  }
  CHECK_RC(MPI_Alltoallw(sendv, counts, displs, stypes, recvv, counts, displs, rtypes, MPI_COMM_WORLD));
  for (int p = 0; p < size; ++p) CHECK(recvv[p] == p * 100 + rank, "alltoallw from %d: %d", p, recvv[p]);
  free(counts); free(displs); free(stypes); free(rtypes); free(sendv); free(recvv); free(all);
  MPI_Type_free(&one);
  MPI_Type_free(&every_other);
  MPI_Type_free(&col);
}

static void test_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t;
  CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t));
  int x[2] = {0, 0};
  CHECK_CLASS(MPI_Send(x, 1, t, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
  CHECK_CLASS(MPI_Bcast(x, 1, t, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_vector(1, 1, 1, 4242, &t), MPI_ERR_TYPE);
  MPI_Datatype predefined = MPI_INT;
  CHECK_CLASS(MPI_Type_free(&predefined), MPI_ERR_TYPE);
  const int sizes[] = {4}, subsizes[] = {5}, starts[] = {0};
  CHECK_CLASS(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Under datatype_check=1: int data received as float is MPI_ERR_TYPE in
   every protocol, and so is a struct received as another struct; ints
   received as a contiguous type of ints, or as bytes, are fine. */
static void test_signature_check(void) {
  const int peer = rank ^ 1;
  if (peer >= size) return;
  enum { BIG = 100000 };
  int *data = (int *)mt_alloc(BIG * sizeof(int));
  for (int i = 0; i < BIG; ++i) data[i] = i;
  const int sizes[] = {1, 1000, BIG};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int k = 0; k < 3; ++k) {
    if (rank % 2 == 0) {
      CHECK_RC(MPI_Send(data, sizes[k], MPI_INT, peer, 10 + k, MPI_COMM_WORLD));
      CHECK_RC(MPI_Send(data, sizes[k], MPI_INT, peer, 20 + k, MPI_COMM_WORLD));
      CHECK_RC(MPI_Send(data, sizes[k], MPI_INT, peer, 30 + k, MPI_COMM_WORLD));
    } else {
      float *f = (float *)mt_alloc(BIG * sizeof(float));
      MPI_Status st;
      CHECK_CLASS(MPI_Recv(f, sizes[k], MPI_FLOAT, peer, 10 + k, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
      MPI_Datatype four;
      MPI_Type_contiguous(1, MPI_INT, &four);
      MPI_Type_commit(&four);
      CHECK_RC(MPI_Recv(f, sizes[k], four, peer, 20 + k, MPI_COMM_WORLD, &st));
      MPI_Type_free(&four);
      CHECK_RC(MPI_Recv(f, sizes[k] * (int)sizeof(int), MPI_BYTE, peer, 30 + k, MPI_COMM_WORLD, &st));
      free(f);
    }
  }
  /* Two structs of the same size but other layouts. */
  MPI_Datatype a, b;
  const int lens[] = {1, 1};
  const MPI_Aint displs[] = {0, 8};
  const MPI_Datatype ta[] = {MPI_DOUBLE, MPI_INT}, tb[] = {MPI_INT, MPI_DOUBLE};
  const MPI_Aint displs_b[] = {0, 4};
  MPI_Type_create_struct(2, lens, displs, ta, &a);
  MPI_Type_create_struct(2, lens, displs_b, tb, &b);
  MPI_Type_commit(&a);
  MPI_Type_commit(&b);
  char buf[64];
  memset(buf, 0, sizeof buf);
  if (rank % 2 == 0) {
    CHECK_RC(MPI_Send(buf, 1, a, peer, 40, MPI_COMM_WORLD));
    CHECK_RC(MPI_Send(buf, 1, a, peer, 41, MPI_COMM_WORLD));
  } else {
    CHECK_CLASS(MPI_Recv(buf, 1, b, peer, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    CHECK_RC(MPI_Recv(buf, 1, a, peer, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  MPI_Type_free(&a);
  MPI_Type_free(&b);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  free(data);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "check") == 0) {
    test_signature_check();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("datatypes ok: signature check, %d ranks\n", size);
    MPI_Finalize();
    return 0;
  }
  test_constructors();
  test_external32();
  test_point_to_point();
  test_bottom();
  test_collectives();
  test_errors();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("datatypes ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
