/*
 * large_count: the MPI-4.0 large-count (_c) functions (lib/mpi/large_count*.cpp).
 * Every one is called with small counts and its results checked element by
 * element: point-to-point in a ring, statuses, each datatype constructor
 * against its int form (sizes, extents, decoding and the bytes it packs),
 * packing, a user operation of MPI_Op_create_c, and every collective in its
 * blocking, nonblocking and persistent forms against the answers the int
 * forms give. Then the error classes: negative counts, and the big cases the
 * library refuses. Then counts above INT_MAX: datatypes built with them
 * (sizes, extents, decoding; no data), and one real large message of
 * INT_MAX + 1000 bytes from rank 0 to rank 1, broadcast back and
 * XOR-reduced in place, checked at its start, middle and end.
 *
 *   large_count   (2 or more ranks; the large message uses ranks 0 and 1,
 *                  about 2 GiB each)
 */
#include <limits.h>

#include "mpitest.h"

static int rank, size, next, prev;
enum { N = 6 };

static int val(int r, int k, int i) { return r * 10000 + k * 100 + i; }

/* The sum of val(r, k, i) over ranks 0..upto-1. */
static int sum_upto(int k, int i, int upto) { return upto * (k * 100 + i) + 10000 * upto * (upto - 1) / 2; }

static void fill(int* buf, int n, int r, int k) {
  for (int i = 0; i < n; i++) buf[i] = val(r, k, i);
}

static void clear(int* buf, int n) {
  for (int i = 0; i < n; i++) buf[i] = -1;
}

static void expect_at(const char* file, int line, const int* got, int n, int r, int k, int from, const char* what) {
  for (int i = 0; i < n; i++) {
    if (got[i] != val(r, k, from + i)) {
      mt_fail(file, line, "%s: int %d is %d, expected %d", what, i, got[i], val(r, k, from + i));
    }
  }
}
#define expect(got, n, r, k, from, what) expect_at(__FILE__, __LINE__, got, n, r, k, from, what)

/* A received status: its source and tag, and n ints by MPI_Get_count_c and
   MPI_Get_elements_c. */
static void status_is(const MPI_Status* st, int source, int tag, MPI_Count n, const char* what) {
  MPI_Count count = -1, elements = -1;
  CHECK_RC(MPI_Get_count_c(st, MPI_INT, &count));
  CHECK_RC(MPI_Get_elements_c(st, MPI_INT, &elements));
  CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && count == n && elements == n,
        "%s: status source %d tag %d count %lld elements %lld, expected %d %d %lld", what, st->MPI_SOURCE,
        st->MPI_TAG, (long long)count, (long long)elements, source, tag, (long long)n);
}

/* ---- point-to-point ---------------------------------------------------- */

/* Every send mode and form, each to the next rank of a ring, received by
   MPI_Irecv_c; MPI_Bsend_c's buffer is attached with MPI_Buffer_attach_c. */
static void sends(void) {
  const MPI_Count attached_size = 4 * (N * (MPI_Count)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* attached = mt_alloc((size_t)attached_size);
  CHECK_RC(MPI_Buffer_attach_c(attached, attached_size));
  static const char* names[] = {"MPI_Send_c",      "MPI_Bsend_c",      "MPI_Ssend_c",      "MPI_Rsend_c",
                                "MPI_Isend_c",     "MPI_Ibsend_c",     "MPI_Issend_c",     "MPI_Irsend_c",
                                "MPI_Send_init_c", "MPI_Bsend_init_c", "MPI_Ssend_init_c", "MPI_Rsend_init_c"};
  for (int k = 0; k < 12; k++) {
    int out[N], in[N];
    fill(out, N, rank, k);
    clear(in, N);
    MPI_Request recv, send = MPI_REQUEST_NULL;
    MPI_Status st;
    CHECK_RC(MPI_Irecv_c(in, N, MPI_INT, prev, k, MPI_COMM_WORLD, &recv));
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD)); /* every receive is posted: the ready modes may go */
    switch (k) {
      case 0: CHECK_RC(MPI_Send_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD)); break;
      case 1: CHECK_RC(MPI_Bsend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD)); break;
      case 2: CHECK_RC(MPI_Ssend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD)); break;
      case 3: CHECK_RC(MPI_Rsend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD)); break;
      case 4: CHECK_RC(MPI_Isend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 5: CHECK_RC(MPI_Ibsend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 6: CHECK_RC(MPI_Issend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 7: CHECK_RC(MPI_Irsend_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 8: CHECK_RC(MPI_Send_init_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 9: CHECK_RC(MPI_Bsend_init_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      case 10: CHECK_RC(MPI_Ssend_init_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
      default: CHECK_RC(MPI_Rsend_init_c(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send)); break;
    }
    if (k >= 8) CHECK_RC(MPI_Start(&send));
    CHECK_RC(MPI_Wait(&send, MPI_STATUS_IGNORE));
    if (k >= 8) CHECK_RC(MPI_Request_free(&send));
    CHECK_RC(MPI_Wait(&recv, &st));
    expect(in, N, prev, k, 0, names[k]);
    status_is(&st, prev, k, N, names[k]);
  }
  void* detached = NULL;
  MPI_Count detached_size = 0;
  CHECK_RC(MPI_Buffer_detach_c(&detached, &detached_size));
  CHECK(detached == attached && detached_size == attached_size, "MPI_Buffer_detach_c gave %p, %lld", detached,
        (long long)detached_size);
  free(attached);
}

/* Every receive form, and the send-receive calls, around the ring. */
static void receives(void) {
  static const char* names[] = {"MPI_Recv_c",          "MPI_Recv_init_c",  "MPI_Mrecv_c",
                                "MPI_Imrecv_c",        "MPI_Sendrecv_c",   "MPI_Sendrecv_replace_c",
                                "MPI_Isendrecv_c",     "MPI_Isendrecv_replace_c"};
  for (int k = 20; k < 28; k++) {
    int out[N], in[N];
    fill(out, N, rank, k);
    clear(in, N);
    MPI_Request send = MPI_REQUEST_NULL, req;
    MPI_Message message;
    MPI_Status st;
    if (k < 24) CHECK_RC(MPI_Isend(out, N, MPI_INT, next, k, MPI_COMM_WORLD, &send));
    switch (k) {
      case 20: CHECK_RC(MPI_Recv_c(in, N, MPI_INT, prev, k, MPI_COMM_WORLD, &st)); break;
      case 21:
        CHECK_RC(MPI_Recv_init_c(in, N, MPI_INT, prev, k, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Start(&req));
        CHECK_RC(MPI_Wait(&req, &st));
        CHECK_RC(MPI_Request_free(&req));
        break;
      case 22:
        CHECK_RC(MPI_Mprobe(prev, k, MPI_COMM_WORLD, &message, &st));
        CHECK_RC(MPI_Mrecv_c(in, N, MPI_INT, &message, &st));
        break;
      case 23:
        CHECK_RC(MPI_Mprobe(prev, k, MPI_COMM_WORLD, &message, &st));
        CHECK_RC(MPI_Imrecv_c(in, N, MPI_INT, &message, &req));
        CHECK_RC(MPI_Wait(&req, &st));
        break;
      case 24:
        CHECK_RC(MPI_Sendrecv_c(out, N, MPI_INT, next, k, in, N, MPI_INT, prev, k, MPI_COMM_WORLD, &st));
        break;
      case 25:
        memcpy(in, out, sizeof in);
        CHECK_RC(MPI_Sendrecv_replace_c(in, N, MPI_INT, next, k, prev, k, MPI_COMM_WORLD, &st));
        break;
      case 26:
        CHECK_RC(MPI_Isendrecv_c(out, N, MPI_INT, next, k, in, N, MPI_INT, prev, k, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Wait(&req, &st));
        break;
      default:
        memcpy(in, out, sizeof in);
        CHECK_RC(MPI_Isendrecv_replace_c(in, N, MPI_INT, next, k, prev, k, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Wait(&req, &st));
        break;
    }
    CHECK_RC(MPI_Wait(&send, MPI_STATUS_IGNORE));
    expect(in, N, prev, k, 0, names[k - 20]);
    status_is(&st, prev, k, N, names[k - 20]);
  }
}

/* Statuses the program fills in, with counts an int does not hold. */
static void statuses(void) {
  MPI_Status st;
  MPI_Count count = 0;
  int small = 0;
  CHECK_RC(MPI_Status_set_elements_c(&st, MPI_INT, 5));
  CHECK_RC(MPI_Get_count_c(&st, MPI_INT, &count));
  CHECK(count == 5, "MPI_Status_set_elements_c(5) then MPI_Get_count_c: %lld", (long long)count);
  const MPI_Count big = (MPI_Count)3 << 31;
  CHECK_RC(MPI_Status_set_elements_c(&st, MPI_DOUBLE, big));
  CHECK_RC(MPI_Get_count_c(&st, MPI_DOUBLE, &count));
  CHECK(count == big, "MPI_Get_count_c of %lld doubles: %lld", (long long)big, (long long)count);
  CHECK_RC(MPI_Get_elements_c(&st, MPI_DOUBLE, &count));
  CHECK(count == big, "MPI_Get_elements_c of %lld doubles: %lld", (long long)big, (long long)count);
  CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Get_count of %lld doubles: %d", (long long)big, small);
  /* Half a double is no whole count. */
  CHECK_RC(MPI_Get_count_c(&st, MPI_C_DOUBLE_COMPLEX, &count));
  CHECK(count == big / 2, "MPI_Get_count_c in complex doubles: %lld", (long long)count);
  CHECK_RC(MPI_Status_set_elements_c(&st, MPI_DOUBLE, big + 1));
  CHECK_RC(MPI_Get_count_c(&st, MPI_C_DOUBLE_COMPLEX, &count));
  CHECK(count == MPI_UNDEFINED, "MPI_Get_count_c of an odd number of doubles in complex ones: %lld", (long long)count);
}

/* ---- datatypes ------------------------------------------------------------ */

/* A source of bytes every layout below reads from, `origin` bytes in (room
   for negative lower bounds). */
enum { SOURCE = 4096, ORIGIN = 512 };
static unsigned char source[SOURCE];

/* `made` (by a _c constructor, counts that fit an int) is `expected` (by
   the int form): the same size, bounds, decoding (no large counts) and
   layout: two elements of each pack into the same bytes. Frees both. */
static void same_type(MPI_Datatype made, MPI_Datatype expected, const char* what) {
  CHECK_RC(MPI_Type_commit(&made));
  CHECK_RC(MPI_Type_commit(&expected));
  MPI_Count size_c = 0, lb_c = 0, extent_c = 0, true_lb_c = 0, true_extent_c = 0;
  int size_i = 0;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  CHECK_RC(MPI_Type_size_c(made, &size_c));
  CHECK_RC(MPI_Type_size(expected, &size_i));
  CHECK_RC(MPI_Type_get_extent_c(made, &lb_c, &extent_c));
  CHECK_RC(MPI_Type_get_extent(expected, &lb, &extent));
  CHECK_RC(MPI_Type_get_true_extent_c(made, &true_lb_c, &true_extent_c));
  CHECK_RC(MPI_Type_get_true_extent(expected, &true_lb, &true_extent));
  CHECK(size_c == size_i && lb_c == lb && extent_c == extent && true_lb_c == true_lb && true_extent_c == true_extent,
        "%s: size %lld lb %lld extent %lld true %lld+%lld, the int form's %d %ld %ld %ld+%ld", what,
        (long long)size_c, (long long)lb_c, (long long)extent_c, (long long)true_lb_c, (long long)true_extent_c,
        size_i, (long)lb, (long)extent, (long)true_lb, (long)true_extent);
  /* Decoding: the int form's recipe, with no large counts. */
  MPI_Count ni = -1, na = -1, nc = -1, nd = -1;
  int combiner = -1, ni_i = -1, na_i = -1, nd_i = -1, combiner_i = -2;
  CHECK_RC(MPI_Type_get_envelope_c(made, &ni, &na, &nc, &nd, &combiner));
  CHECK_RC(MPI_Type_get_envelope(expected, &ni_i, &na_i, &nd_i, &combiner_i));
  CHECK(ni == ni_i && na == na_i && nc == 0 && nd == nd_i && combiner == combiner_i,
        "%s: envelope_c %lld %lld %lld %lld combiner %d, the int form's %d %d - %d combiner %d", what, (long long)ni,
        (long long)na, (long long)nc, (long long)nd, combiner, ni_i, na_i, nd_i, combiner_i);
  int ints[64], ints_i[64];
  MPI_Aint addrs[64], addrs_i[64];
  MPI_Count counts[1];
  MPI_Datatype types[8], types_i[8];
  CHECK_RC(MPI_Type_get_contents_c(made, 64, 64, 1, 8, ints, addrs, counts, types));
  CHECK_RC(MPI_Type_get_contents(expected, 64, 64, 8, ints_i, addrs_i, types_i));
  for (int i = 0; i < ni; i++) CHECK(ints[i] == ints_i[i], "%s: integer %d is %d, not %d", what, i, ints[i], ints_i[i]);
  for (int i = 0; i < na; i++) {
    CHECK(addrs[i] == addrs_i[i], "%s: address %d is %ld, not %ld", what, i, (long)addrs[i], (long)addrs_i[i]);
  }
  for (int i = 0; i < nd; i++) CHECK(types[i] == types_i[i], "%s: datatype %d differs", what, i);
  /* Layout. */
  unsigned char packed[SOURCE], packed_i[SOURCE];
  MPI_Count at = 0;
  int at_i = 0;
  CHECK_RC(MPI_Pack_c(source + ORIGIN, 2, made, packed, SOURCE, &at, MPI_COMM_WORLD));
  CHECK_RC(MPI_Pack(source + ORIGIN, 2, expected, packed_i, SOURCE, &at_i, MPI_COMM_WORLD));
  CHECK(at == at_i && at == 2 * size_c, "%s: packed %lld bytes, the int form %d", what, (long long)at, at_i);
  for (int i = 0; i < at_i; i++) CHECK(packed[i] == packed_i[i], "%s: packed byte %d differs", what, i);
  CHECK_RC(MPI_Type_free(&made));
  CHECK_RC(MPI_Type_free(&expected));
}

static void constructors(void) {
  for (int i = 0; i < SOURCE; i++) source[i] = (unsigned char)(i * 7 + 3);
  MPI_Datatype a, b;
  CHECK_RC(MPI_Type_contiguous_c(3, MPI_INT, &a));
  CHECK_RC(MPI_Type_contiguous(3, MPI_INT, &b));
  same_type(a, b, "MPI_Type_contiguous_c");
  CHECK_RC(MPI_Type_vector_c(3, 2, 4, MPI_INT, &a));
  CHECK_RC(MPI_Type_vector(3, 2, 4, MPI_INT, &b));
  same_type(a, b, "MPI_Type_vector_c");
  CHECK_RC(MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_hvector(3, 2, 20, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_hvector_c");
  const MPI_Count lengths_c[] = {2, 1, 3}, displs_c[] = {0, 3, 6}, bytes_c[] = {0, 12, 28};
  const int lengths[] = {2, 1, 3}, displs[] = {0, 3, 6};
  const MPI_Aint bytes[] = {0, 12, 28};
  CHECK_RC(MPI_Type_indexed_c(3, lengths_c, displs_c, MPI_INT, &a));
  CHECK_RC(MPI_Type_indexed(3, lengths, displs, MPI_INT, &b));
  same_type(a, b, "MPI_Type_indexed_c");
  CHECK_RC(MPI_Type_create_hindexed_c(3, lengths_c, bytes_c, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_hindexed(3, lengths, bytes, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_hindexed_c");
  CHECK_RC(MPI_Type_create_indexed_block_c(3, 2, displs_c, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_indexed_block_c");
  CHECK_RC(MPI_Type_create_hindexed_block_c(3, 2, bytes_c, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_hindexed_block(3, 2, bytes, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_hindexed_block_c");
  const MPI_Count struct_lengths_c[] = {1, 2}, struct_displs_c[] = {0, 8};
  const int struct_lengths[] = {1, 2};
  const MPI_Aint struct_displs[] = {0, 8};
  const MPI_Datatype struct_types[] = {MPI_INT, MPI_DOUBLE};
  CHECK_RC(MPI_Type_create_struct_c(2, struct_lengths_c, struct_displs_c, struct_types, &a));
  CHECK_RC(MPI_Type_create_struct(2, struct_lengths, struct_displs, struct_types, &b));
  same_type(a, b, "MPI_Type_create_struct_c");
  const MPI_Count sizes_c[] = {4, 5}, subsizes_c[] = {2, 3}, starts_c[] = {1, 1};
  const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 1};
  CHECK_RC(MPI_Type_create_subarray_c(2, sizes_c, subsizes_c, starts_c, MPI_ORDER_C, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_subarray_c");
  const MPI_Count gsizes_c[] = {10, 6};
  const int gsizes[] = {10, 6}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
  CHECK_RC(MPI_Type_create_darray_c(4, 3, 2, gsizes_c, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &a));
  CHECK_RC(MPI_Type_create_darray(4, 3, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &b));
  same_type(a, b, "MPI_Type_create_darray_c");
  CHECK_RC(MPI_Type_create_resized_c(MPI_INT, -4, 16, &a));
  CHECK_RC(MPI_Type_create_resized(MPI_INT, -4, 16, &b));
  same_type(a, b, "MPI_Type_create_resized_c");
}

/* MPI_Pack_c and the rest with small counts. */
static void packing(void) {
  int out[N], in[N];
  fill(out, N, rank, 30);
  clear(in, N);
  MPI_Count bytes = 0, at = 0;
  CHECK_RC(MPI_Pack_size_c(N, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes == N * (MPI_Count)sizeof(int), "MPI_Pack_size_c: %lld", (long long)bytes);
  unsigned char packed[4 * N + 8];
  CHECK_RC(MPI_Pack_c(out, N, MPI_INT, packed, (MPI_Count)sizeof packed, &at, MPI_COMM_WORLD));
  CHECK(at == bytes, "MPI_Pack_c: position %lld", (long long)at);
  at = 0;
  CHECK_RC(MPI_Unpack_c(packed, bytes, &at, in, N, MPI_INT, MPI_COMM_WORLD));
  CHECK(at == bytes, "MPI_Unpack_c: position %lld", (long long)at);
  expect(in, N, rank, 30, 0, "MPI_Pack_c then MPI_Unpack_c");
  CHECK_RC(MPI_Pack_external_size_c("external32", N, MPI_INT, &bytes));
  CHECK(bytes == 4 * N, "MPI_Pack_external_size_c: %lld", (long long)bytes);
  at = 0;
  CHECK_RC(MPI_Pack_external_c("external32", out, N, MPI_INT, packed, (MPI_Count)sizeof packed, &at));
  CHECK(at == 4 * N, "MPI_Pack_external_c: position %lld", (long long)at);
  for (int i = 0; i < N; i++) {
    const unsigned v = (unsigned)out[i];
    const unsigned got = (unsigned)packed[4 * i] << 24 | (unsigned)packed[4 * i + 1] << 16 |
                         (unsigned)packed[4 * i + 2] << 8 | packed[4 * i + 3];
    CHECK(got == v, "MPI_Pack_external_c: int %d is 0x%x big-endian, expected 0x%x", i, got, v);
  }
  clear(in, N);
  at = 0;
  CHECK_RC(MPI_Unpack_external_c("external32", packed, 4 * N, &at, in, N, MPI_INT));
  CHECK(at == 4 * N, "MPI_Unpack_external_c: position %lld", (long long)at);
  expect(in, N, rank, 30, 0, "MPI_Pack_external_c then MPI_Unpack_external_c");
  /* Sizes of counts above INT_MAX (nothing is packed). */
  const MPI_Count big = (MPI_Count)INT_MAX + 1;
  CHECK_RC(MPI_Pack_size_c(big, MPI_INT, MPI_COMM_WORLD, &bytes));
  CHECK(bytes == big * 4, "MPI_Pack_size_c(INT_MAX + 1 ints): %lld", (long long)bytes);
  CHECK_RC(MPI_Pack_external_size_c("external32", big, MPI_DOUBLE, &bytes));
  CHECK(bytes == big * 8, "MPI_Pack_external_size_c(INT_MAX + 1 doubles): %lld", (long long)bytes);
}

/* ---- operations -------------------------------------------------------------- */

static MPI_Count last_len = -1;

/* inout += in, on ints; remembers the length it was given. */
static void add_ints(void* in, void* inout, MPI_Count* len, MPI_Datatype* datatype) {
  const int* a = in;
  int* b = inout;
  last_len = *len;
  CHECK(*datatype == MPI_INT, "the user function got datatype %d", *datatype);
  for (MPI_Count i = 0; i < *len; i++) b[i] += a[i];
}

static void operations(void) {
  MPI_Op op;
  CHECK_RC(MPI_Op_create_c(add_ints, 1, &op));
  int in[N], inout[N];
  fill(in, N, rank, 40);
  fill(inout, N, 1, 0);
  CHECK_RC(MPI_Reduce_local_c(in, inout, N, MPI_INT, op));
  CHECK(last_len == N, "the MPI_Op_create_c function got len %lld", (long long)last_len);
  for (int i = 0; i < N; i++) {
    CHECK(inout[i] == val(rank, 40, i) + val(1, 0, i), "MPI_Reduce_local_c: int %d is %d", i, inout[i]);
  }
  CHECK_RC(MPI_Reduce_local_c(in, inout, 0, MPI_INT, MPI_SUM));
  CHECK_RC(MPI_Reduce_local_c(in, inout, N, MPI_INT, MPI_SUM));
  for (int i = 0; i < N; i++) {
    CHECK(inout[i] == 2 * val(rank, 40, i) + val(1, 0, i), "MPI_Reduce_local_c(MPI_SUM): int %d is %d", i, inout[i]);
  }
  /* The user operation in a collective. */
  fill(in, N, rank, 41);
  last_len = -1;
  CHECK_RC(MPI_Allreduce_c(in, inout, N, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < N; i++) CHECK(inout[i] == sum_upto(41, i, size), "MPI_Allreduce_c(user op): int %d", i);
  /* Some rank combined, with the whole length (which ones depends on the algorithm). */
  MPI_Count longest = 0;
  CHECK_RC(MPI_Allreduce_c(&last_len, &longest, 1, MPI_COUNT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(longest == N, "the user function in MPI_Allreduce_c got len %lld at most", (long long)longest);
  CHECK_RC(MPI_Op_free(&op));
}

/* ---- collectives --------------------------------------------------------------- */

enum Mode { BLOCKING, NONBLOCKING, PERSISTENT };
static const char* const mode_names[] = {"blocking", "nonblocking", "persistent"};

/* Completes the operation a nonblocking call started, or starts a persistent
   one, waits for it and frees it. */
static void complete(enum Mode mode, MPI_Request* req) {
  if (mode == BLOCKING) return;
  if (mode == PERSISTENT) CHECK_RC(MPI_Start(req));
  CHECK_RC(MPI_Wait(req, MPI_STATUS_IGNORE));
  if (mode == PERSISTENT) CHECK_RC(MPI_Request_free(req));
}

/* A rank's v-collective block is rank + 1 ints of N: at most N ranks. */
enum { MAXRANKS = N };

static void bcast(enum Mode mode) {
  const int root = size - 1;
  int buf[N];
  MPI_Request req;
  if (rank == root) fill(buf, N, root, 1); else clear(buf, N);
  if (mode == BLOCKING) CHECK_RC(MPI_Bcast_c(buf, N, MPI_INT, root, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Ibcast_c(buf, N, MPI_INT, root, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) CHECK_RC(MPI_Bcast_init_c(buf, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  complete(mode, &req);
  expect(buf, N, root, 1, 0, mode_names[mode]);
}

static void gather(enum Mode mode) {
  int out[N], in[MAXRANKS * N];
  MPI_Request req;
  fill(out, N, rank, 2);
  clear(in, MAXRANKS * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Gather_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Igather_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Gather_init_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  if (rank == 0) {
    for (int r = 0; r < size; r++) expect(in + r * N, N, r, 2, 0, mode_names[mode]);
  }
}

/* Rank r's block of a v-collective: r + 1 ints, N apart. */
static void v_arrays(MPI_Count counts[], MPI_Aint displs[]) {
  for (int r = 0; r < size; r++) {
    counts[r] = r + 1;
    displs[r] = (MPI_Aint)r * N;
  }
}

static void gatherv(enum Mode mode) {
  int out[N], in[MAXRANKS * N];
  MPI_Count counts[MAXRANKS];
  MPI_Aint displs[MAXRANKS];
  MPI_Request req;
  v_arrays(counts, displs);
  fill(out, N, rank, 3);
  clear(in, MAXRANKS * N);
  if (mode == BLOCKING) {
    CHECK_RC(MPI_Gatherv_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, 0, MPI_COMM_WORLD));
  }
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Igatherv_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Gatherv_init_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                &req));
  }
  complete(mode, &req);
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      expect(in + r * N, r + 1, r, 3, 0, mode_names[mode]);
      CHECK(r + 1 == N || in[r * N + r + 1] == -1, "gatherv: a gap was written");
    }
  }
}

static void scatter(enum Mode mode) {
  int out[MAXRANKS * N], in[N];
  MPI_Request req;
  for (int r = 0; r < size; r++) fill(out + r * N, N, r, 4);
  clear(in, N);
  if (mode == BLOCKING) CHECK_RC(MPI_Scatter_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Iscatter_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Scatter_init_c(out, N, MPI_INT, in, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  expect(in, N, rank, 4, 0, mode_names[mode]);
}

static void scatterv(enum Mode mode) {
  int out[MAXRANKS * N], in[N];
  MPI_Count counts[MAXRANKS];
  MPI_Aint displs[MAXRANKS];
  MPI_Request req;
  v_arrays(counts, displs);
  for (int r = 0; r < size; r++) fill(out + r * N, N, r, 5);
  clear(in, N);
  if (mode == BLOCKING) {
    CHECK_RC(MPI_Scatterv_c(out, counts, displs, MPI_INT, in, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
  }
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Iscatterv_c(out, counts, displs, MPI_INT, in, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Scatterv_init_c(out, counts, displs, MPI_INT, in, rank + 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &req));
  }
  complete(mode, &req);
  expect(in, rank + 1, rank, 5, 0, mode_names[mode]);
  CHECK(rank + 1 == N || in[rank + 1] == -1, "scatterv wrote past its count");
}

static void allgather(enum Mode mode) {
  int out[N], in[MAXRANKS * N];
  MPI_Request req;
  fill(out, N, rank, 6);
  clear(in, MAXRANKS * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Allgather_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Iallgather_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Allgather_init_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  for (int r = 0; r < size; r++) expect(in + r * N, N, r, 6, 0, mode_names[mode]);
}

static void allgatherv(enum Mode mode) {
  int out[N], in[MAXRANKS * N];
  MPI_Count counts[MAXRANKS];
  MPI_Aint displs[MAXRANKS];
  MPI_Request req;
  v_arrays(counts, displs);
  fill(out, N, rank, 7);
  clear(in, MAXRANKS * N);
  if (mode == BLOCKING) {
    CHECK_RC(MPI_Allgatherv_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD));
  }
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Iallgatherv_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Allgatherv_init_c(out, rank + 1, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &req));
  }
  complete(mode, &req);
  for (int r = 0; r < size; r++) expect(in + r * N, r + 1, r, 7, 0, mode_names[mode]);
}

static void alltoall(enum Mode mode) {
  int out[MAXRANKS * N], in[MAXRANKS * N];
  MPI_Request req;
  fill(out, size * N, rank, 8);
  clear(in, MAXRANKS * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Alltoall_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Ialltoall_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Alltoall_init_c(out, N, MPI_INT, in, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  for (int r = 0; r < size; r++) expect(in + r * N, N, r, 8, rank * N, mode_names[mode]);
}

/* Alltoallv and Alltoallw: rank r sends 1 + (r + j) % 2 ints to rank j,
   from block j of its buffer into block r of j's. `w`: Alltoallw, with
   byte displacements and a type per block. */
static void alltoallv(enum Mode mode, int w) {
  int out[MAXRANKS * N], in[MAXRANKS * N];
  MPI_Count sendcounts[MAXRANKS], recvcounts[MAXRANKS];
  MPI_Aint sdispls[MAXRANKS], rdispls[MAXRANKS];
  MPI_Datatype types[MAXRANKS];
  MPI_Request req;
  for (int j = 0; j < size; j++) {
    sendcounts[j] = recvcounts[j] = 1 + (rank + j) % 2;
    sdispls[j] = rdispls[j] = (MPI_Aint)j * N * (w ? (MPI_Aint)sizeof(int) : 1);
    types[j] = MPI_INT;
  }
  fill(out, size * N, rank, 9 + w);
  clear(in, MAXRANKS * N);
  if (!w && mode == BLOCKING) {
    CHECK_RC(MPI_Alltoallv_c(out, sendcounts, sdispls, MPI_INT, in, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
  }
  if (!w && mode == NONBLOCKING) {
    CHECK_RC(MPI_Ialltoallv_c(out, sendcounts, sdispls, MPI_INT, in, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                              &req));
  }
  if (!w && mode == PERSISTENT) {
    CHECK_RC(MPI_Alltoallv_init_c(out, sendcounts, sdispls, MPI_INT, in, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req));
  }
  if (w && mode == BLOCKING) {
    CHECK_RC(MPI_Alltoallw_c(out, sendcounts, sdispls, types, in, recvcounts, rdispls, types, MPI_COMM_WORLD));
  }
  if (w && mode == NONBLOCKING) {
    CHECK_RC(MPI_Ialltoallw_c(out, sendcounts, sdispls, types, in, recvcounts, rdispls, types, MPI_COMM_WORLD, &req));
  }
  if (w && mode == PERSISTENT) {
    CHECK_RC(MPI_Alltoallw_init_c(out, sendcounts, sdispls, types, in, recvcounts, rdispls, types, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  for (int j = 0; j < size; j++) {
    const int n = 1 + (rank + j) % 2;
    expect(in + j * N, n, j, 9 + w, rank * N, mode_names[mode]);
    CHECK(in[j * N + n] == -1, "%s: block %d written past its %d ints", w ? "alltoallw" : "alltoallv", j, n);
  }
}

/* Reduce, Allreduce, Scan and Exscan of val(r, k, i) with MPI_SUM. */
static void reductions(enum Mode mode) {
  for (int kind = 0; kind < 4; kind++) {
    const int k = 11 + kind;
    int out[N], in[N];
    MPI_Request req;
    fill(out, N, rank, k);
    clear(in, N);
    switch (kind * 3 + (int)mode) {
      case 0: CHECK_RC(MPI_Reduce_c(out, in, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD)); break;
      case 1: CHECK_RC(MPI_Ireduce_c(out, in, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req)); break;
      case 2: CHECK_RC(MPI_Reduce_init_c(out, in, N, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req)); break;
      case 3: CHECK_RC(MPI_Allreduce_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); break;
      case 4: CHECK_RC(MPI_Iallreduce_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)); break;
      case 5: CHECK_RC(MPI_Allreduce_init_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req)); break;
      case 6: CHECK_RC(MPI_Scan_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); break;
      case 7: CHECK_RC(MPI_Iscan_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)); break;
      case 8: CHECK_RC(MPI_Scan_init_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req)); break;
      case 9: CHECK_RC(MPI_Exscan_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD)); break;
      case 10: CHECK_RC(MPI_Iexscan_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)); break;
      default: CHECK_RC(MPI_Exscan_init_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req)); break;
    }
    complete(mode, &req);
    const int upto = kind == 0 ? (rank == 0 ? size : 0) : kind == 1 ? size : kind == 2 ? rank + 1 : rank;
    for (int i = 0; i < N && upto > 0; i++) {
      CHECK(in[i] == sum_upto(k, i, upto), "%s reduction %d: int %d is %d, expected %d", mode_names[mode], kind, i,
            in[i], sum_upto(k, i, upto));
    }
  }
}

/* Reduce_scatter_block (N ints each) and Reduce_scatter (rank j gets j + 1). */
static void reduce_scatters(enum Mode mode) {
  int out[MAXRANKS * N], in[N];
  MPI_Count counts[MAXRANKS];
  MPI_Request req;
  fill(out, size * N, rank, 15);
  clear(in, N);
  if (mode == BLOCKING) CHECK_RC(MPI_Reduce_scatter_block_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Ireduce_scatter_block_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Reduce_scatter_block_init_c(out, in, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  for (int i = 0; i < N; i++) {
    CHECK(in[i] == sum_upto(15, rank * N + i, size), "%s reduce_scatter_block: int %d is %d", mode_names[mode], i,
          in[i]);
  }
  int before = 0;
  for (int j = 0; j < size; j++) {
    counts[j] = j + 1;
    if (j < rank) before += j + 1;
  }
  fill(out, size * N, rank, 16);
  clear(in, N);
  if (mode == BLOCKING) CHECK_RC(MPI_Reduce_scatter_c(out, in, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Ireduce_scatter_c(out, in, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Reduce_scatter_init_c(out, in, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  for (int i = 0; i <= rank; i++) {
    CHECK(in[i] == sum_upto(16, before + i, size), "%s reduce_scatter: int %d is %d", mode_names[mode], i, in[i]);
  }
  CHECK(rank + 1 == N || in[rank + 1] == -1, "reduce_scatter wrote past its count");
}

/* The neighbourhood collectives on a periodic ring: block 0 goes to and comes
   from the left (-1) neighbour, block 1 the right (+1) one; the block sent
   to the left arrives in the left neighbour's block 1 (its right). */
static void neighbors(MPI_Comm ring, enum Mode mode) {
  const int left = prev, right = next;
  int out[2 * N], in[2 * N];
  MPI_Count counts[2] = {N, N};
  MPI_Aint sdispls[2] = {0, N}, rdispls[2] = {N, 0}, sbytes[2], rbytes[2];
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Request req;
  for (int b = 0; b < 2; b++) {
    sbytes[b] = sdispls[b] * (MPI_Aint)sizeof(int);
    rbytes[b] = rdispls[b] * (MPI_Aint)sizeof(int);
  }
  /* Allgather: my N ints to both. */
  fill(out, N, rank, 21);
  clear(in, 2 * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Neighbor_allgather_c(out, N, MPI_INT, in, N, MPI_INT, ring));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Ineighbor_allgather_c(out, N, MPI_INT, in, N, MPI_INT, ring, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Neighbor_allgather_init_c(out, N, MPI_INT, in, N, MPI_INT, ring, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  expect(in, N, left, 21, 0, "neighbor_allgather from the left");
  expect(in + N, N, right, 21, 0, "neighbor_allgather from the right");
  /* Allgatherv: the left block placed second. */
  fill(out, N, rank, 22);
  clear(in, 2 * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Neighbor_allgatherv_c(out, N, MPI_INT, in, counts, rdispls, MPI_INT, ring));
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Ineighbor_allgatherv_c(out, N, MPI_INT, in, counts, rdispls, MPI_INT, ring, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Neighbor_allgatherv_init_c(out, N, MPI_INT, in, counts, rdispls, MPI_INT, ring, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  expect(in + N, N, left, 22, 0, "neighbor_allgatherv from the left");
  expect(in, N, right, 22, 0, "neighbor_allgatherv from the right");
  /* Alltoall. */
  fill(out, 2 * N, rank, 23);
  clear(in, 2 * N);
  if (mode == BLOCKING) CHECK_RC(MPI_Neighbor_alltoall_c(out, N, MPI_INT, in, N, MPI_INT, ring));
  if (mode == NONBLOCKING) CHECK_RC(MPI_Ineighbor_alltoall_c(out, N, MPI_INT, in, N, MPI_INT, ring, &req));
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Neighbor_alltoall_init_c(out, N, MPI_INT, in, N, MPI_INT, ring, MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  expect(in, N, left, 23, N, "neighbor_alltoall from the left");
  expect(in + N, N, right, 23, 0, "neighbor_alltoall from the right");
  /* Alltoallv: received blocks swapped by the displacements. */
  fill(out, 2 * N, rank, 24);
  clear(in, 2 * N);
  if (mode == BLOCKING) {
    CHECK_RC(MPI_Neighbor_alltoallv_c(out, counts, sdispls, MPI_INT, in, counts, rdispls, MPI_INT, ring));
  }
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Ineighbor_alltoallv_c(out, counts, sdispls, MPI_INT, in, counts, rdispls, MPI_INT, ring, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Neighbor_alltoallv_init_c(out, counts, sdispls, MPI_INT, in, counts, rdispls, MPI_INT, ring,
                                           MPI_INFO_NULL, &req));
  }
  complete(mode, &req);
  expect(in + N, N, left, 24, N, "neighbor_alltoallv from the left");
  expect(in, N, right, 24, 0, "neighbor_alltoallv from the right");
  /* Alltoallw: the same in bytes. */
  fill(out, 2 * N, rank, 25);
  clear(in, 2 * N);
  if (mode == BLOCKING) {
    CHECK_RC(MPI_Neighbor_alltoallw_c(out, counts, sbytes, types, in, counts, rbytes, types, ring));
  }
  if (mode == NONBLOCKING) {
    CHECK_RC(MPI_Ineighbor_alltoallw_c(out, counts, sbytes, types, in, counts, rbytes, types, ring, &req));
  }
  if (mode == PERSISTENT) {
    CHECK_RC(MPI_Neighbor_alltoallw_init_c(out, counts, sbytes, types, in, counts, rbytes, types, ring, MPI_INFO_NULL,
                                           &req));
  }
  complete(mode, &req);
  expect(in + N, N, left, 25, N, "neighbor_alltoallw from the left");
  expect(in, N, right, 25, 0, "neighbor_alltoallw from the right");
}

static void collectives(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  for (int m = 0; m < 3; m++) {
    const enum Mode mode = (enum Mode)m;
    bcast(mode);
    gather(mode);
    gatherv(mode);
    scatter(mode);
    scatterv(mode);
    allgather(mode);
    allgatherv(mode);
    alltoall(mode);
    alltoallv(mode, 0);
    alltoallv(mode, 1);
    reductions(mode);
    reduce_scatters(mode);
    neighbors(ring, mode);
  }
  CHECK_RC(MPI_Comm_free(&ring));
}

/* ---- errors ---------------------------------------------------------------------- */

/* MPI_COMM_WORLD returns errors here (and so do the calls without a
   communicator, which report on it). */
static void errors(void) {
  int buf[N] = {0};
  MPI_Datatype t;
  MPI_Request req;
  const MPI_Count above = (MPI_Count)INT_MAX + 1, below = -(MPI_Count)INT_MAX - 10;
  /* Negative counts, in the int range (the int form reports them) and below it. */
  CHECK_CLASS(MPI_Send_c(buf, -1, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Send_c(buf, below, MPI_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Irecv_c(buf, below, MPI_INT, prev, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous_c(below, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_vector_c(below, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast_c(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast_c(buf, below, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Allreduce_c(buf, buf + 1, below, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_local_c(buf, buf + 1, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
  MPI_Count position = 0;
  CHECK_CLASS(MPI_Pack_c(buf, below, MPI_INT, buf, above, &position, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* Counts above INT_MAX the library refuses (no data is touched). */
  /* A nonblocking reduction: one request holds one int-sized reduction. */
  CHECK_CLASS(MPI_Iallreduce_c(buf, buf, above, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  /* A total above INT_MAX elements in a Reduce_scatter_block (2 ranks or more). */
  CHECK_CLASS(MPI_Reduce_scatter_block_c(buf, buf, INT_MAX, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  /* A v-collective's count above INT_MAX (on MPI_COMM_SELF: only the root
     reads the counts, and it is the only rank). */
  MPI_Count counts[1] = {above};
  MPI_Aint displs[1] = {0};
  CHECK_CLASS(MPI_Gatherv_c(buf, 1, MPI_INT, buf, counts, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
  counts[0] = 1;
  displs[0] = above;
  CHECK_CLASS(MPI_Alltoallv_c(buf, counts, displs, MPI_INT, buf + 1, counts, displs, MPI_INT, MPI_COMM_SELF),
              MPI_ERR_COUNT);
  /* A large count of a type whose element is not one block: MPI_DOUBLE_INT
     is a double and an int with a gap. */
  CHECK_CLASS(MPI_Send_c(buf, above, MPI_DOUBLE_INT, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous_c(above, MPI_DOUBLE_INT, &t), MPI_ERR_COUNT);
  /* The int decoding calls on a type built with a count above INT_MAX. */
  int ni, na, nd, combiner;
  CHECK_RC(MPI_Type_contiguous_c(above, MPI_BYTE, &t));
  CHECK_CLASS(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_get_contents(t, 0, 0, 1, NULL, NULL, buf), MPI_ERR_TYPE);
  CHECK_RC(MPI_Type_free(&t));
  /* A buffer above INT_MAX bytes (attached, never written): the int
     detach cannot return its size. */
  const MPI_Count huge = (MPI_Count)INT_MAX + 4096;
  void* attached = malloc((size_t)huge);
  CHECK(attached != NULL, "no room for %lld bytes", (long long)huge);
  CHECK_RC(MPI_Buffer_attach_c(attached, huge));
  void* detached = NULL;
  int small = 0;
  MPI_Count detached_size = 0;
  CHECK_CLASS(MPI_Buffer_detach(&detached, &small), MPI_ERR_COUNT);
  CHECK_RC(MPI_Buffer_detach_c(&detached, &detached_size));
  CHECK(detached == attached && detached_size == huge, "MPI_Buffer_detach_c of %lld bytes: %p, %lld", (long long)huge,
        detached, (long long)detached_size);
  free(attached);
}

/* ---- counts above INT_MAX ------------------------------------------------------------ */

/* A type built with large counts: its size and extent, and its decoding
   (combiner, the large counts in the MPI-4.0 order, the integers). */
static void large_type(MPI_Datatype t, const char* what, int combiner, MPI_Count type_size, MPI_Count extent,
                       int nints, const int* ints, int ncounts, const MPI_Count* counts) {
  MPI_Count s = 0, lb = 0, e = 0, ni = -1, na = -1, nc = -1, nd = -1;
  int c = -1;
  CHECK_RC(MPI_Type_size_c(t, &s));
  CHECK_RC(MPI_Type_get_extent_c(t, &lb, &e));
  CHECK(s == type_size && e == extent, "%s: size %lld extent %lld, expected %lld %lld", what, (long long)s,
        (long long)e, (long long)type_size, (long long)extent);
  int small = 0;
  CHECK_RC(MPI_Type_size(t, &small));
  CHECK(small == MPI_UNDEFINED, "%s: MPI_Type_size gave %d", what, small);
  CHECK_RC(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &c));
  CHECK(c == combiner && ni == nints && na == 0 && nc == ncounts && nd == 1,
        "%s: envelope_c: integers %lld addresses %lld large counts %lld datatypes %lld combiner %d", what,
        (long long)ni, (long long)na, (long long)nc, (long long)nd, c);
  int got_ints[16];
  MPI_Count got_counts[16];
  MPI_Datatype old = MPI_DATATYPE_NULL;
  CHECK_RC(MPI_Type_get_contents_c(t, 16, 0, 16, 1, got_ints, NULL, got_counts, &old));
  for (int i = 0; i < nints; i++) CHECK(got_ints[i] == ints[i], "%s: integer %d is %d", what, i, got_ints[i]);
  for (int i = 0; i < ncounts; i++) {
    CHECK(got_counts[i] == counts[i], "%s: large count %d is %lld, expected %lld", what, i, (long long)got_counts[i],
          (long long)counts[i]);
  }
  CHECK(old == MPI_BYTE, "%s: the old type came back as %d", what, old);
}

static void large_types(void) {
  const MPI_Count n = (MPI_Count)INT_MAX + 7, m = (MPI_Count)3 << 30;
  MPI_Datatype t;
  CHECK_RC(MPI_Type_contiguous_c(n, MPI_BYTE, &t));
  large_type(t, "MPI_Type_contiguous_c", MPI_COMBINER_CONTIGUOUS, n, n, 0, NULL, 1, (MPI_Count[]){n});
  /* A large contiguous type is committed and used like any other. */
  CHECK_RC(MPI_Type_commit(&t));
  MPI_Count bytes = 0;
  CHECK_RC(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &bytes));
  CHECK(bytes == n, "MPI_Pack_size_c of the large contiguous type: %lld", (long long)bytes);
  CHECK_RC(MPI_Type_free(&t));
  CHECK_RC(MPI_Type_vector_c(m, 1, 2, MPI_BYTE, &t));
  large_type(t, "MPI_Type_vector_c", MPI_COMBINER_VECTOR, m, 2 * m - 1, 0, NULL, 3, (MPI_Count[]){m, 1, 2});
  CHECK_RC(MPI_Type_free(&t));
  CHECK_RC(MPI_Type_create_hvector_c(2, m, m + 8, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, 2 * m, 2 * m + 8, 0, NULL, 3,
             (MPI_Count[]){2, m, m + 8});
  CHECK_RC(MPI_Type_free(&t));
  const MPI_Count lengths[] = {m, 5}, displs[] = {0, m + 100};
  CHECK_RC(MPI_Type_indexed_c(2, lengths, displs, MPI_BYTE, &t));
  large_type(t, "MPI_Type_indexed_c", MPI_COMBINER_INDEXED, m + 5, m + 105, 0, NULL, 5,
             (MPI_Count[]){2, m, 5, 0, m + 100});
  CHECK_RC(MPI_Type_free(&t));
  CHECK_RC(MPI_Type_create_hindexed_c(2, lengths, displs, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, m + 5, m + 105, 0, NULL, 5,
             (MPI_Count[]){2, m, 5, 0, m + 100});
  CHECK_RC(MPI_Type_free(&t));
  const MPI_Count block_displs[] = {m, 0};
  CHECK_RC(MPI_Type_create_indexed_block_c(2, m, block_displs, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, 2 * m, 2 * m, 0, NULL, 4,
             (MPI_Count[]){2, m, m, 0});
  CHECK_RC(MPI_Type_free(&t));
  CHECK_RC(MPI_Type_create_hindexed_block_c(2, m, block_displs, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, 2 * m, 2 * m, 0, NULL, 4,
             (MPI_Count[]){2, m, m, 0});
  CHECK_RC(MPI_Type_free(&t));
  const MPI_Datatype bytes_type[] = {MPI_BYTE};
  const MPI_Count one[] = {m}, zero[] = {0};
  CHECK_RC(MPI_Type_create_struct_c(1, one, zero, bytes_type, &t));
  large_type(t, "MPI_Type_create_struct_c", MPI_COMBINER_STRUCT, m, m, 0, NULL, 3, (MPI_Count[]){1, m, 0});
  CHECK_RC(MPI_Type_free(&t));
  /* A 2 x 4G array of bytes, of which a 1 x 3G block from (1, 8). */
  const MPI_Count sizes[] = {2, 4 * ((MPI_Count)1 << 30)}, subsizes[] = {1, m}, starts[] = {1, 8};
  CHECK_RC(MPI_Type_create_subarray_c(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_subarray_c", MPI_COMBINER_SUBARRAY, m, 2 * sizes[1], 2,
             (const int[]){2, MPI_ORDER_C}, 6, (MPI_Count[]){2, sizes[1], 1, m, 1, 8});
  CHECK_RC(MPI_Type_free(&t));
  /* Process 1 of 2 owns the second half of 6G bytes, in blocks. */
  const MPI_Count gsizes[] = {2 * m};
  const int distribs[] = {MPI_DISTRIBUTE_BLOCK}, dargs[] = {MPI_DISTRIBUTE_DFLT_DARG}, psizes[] = {2};
  CHECK_RC(MPI_Type_create_darray_c(2, 1, 1, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_BYTE, &t));
  large_type(t, "MPI_Type_create_darray_c", MPI_COMBINER_DARRAY, m, 2 * m, 7,
             (const int[]){2, 1, 1, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_ORDER_C}, 1, gsizes);
  MPI_Count true_lb = 0, true_extent = 0;
  CHECK_RC(MPI_Type_get_true_extent_c(t, &true_lb, &true_extent));
  CHECK(true_lb == m && true_extent == m, "darray_c: true extent %lld+%lld", (long long)true_lb,
        (long long)true_extent);
  CHECK_RC(MPI_Type_free(&t));
}

/* INT_MAX + 1000 bytes from rank 0 to rank 1 (MPI_Send_c, MPI_Recv_c), then
   back by MPI_Bcast_c, then XOR-reduced in place to zeros by the blocking
   MPI_Allreduce_c (two pieces: INT_MAX and 1000 bytes). Each buffer is
   checked at its start, middle and end (a window of WINDOW bytes each, with
   the pattern of the step that wrote it), and the received one at a few
   bytes between the windows. */
enum { WINDOW = 1 << 16 };
static const MPI_Count big_count = (MPI_Count)INT_MAX + 1000;

static size_t window_at(int w) {
  const size_t n = (size_t)big_count;
  return w == 0 ? 0 : w == 1 ? n / 2 - WINDOW / 2 : n - WINDOW;
}

static void big_windows(unsigned char* buf, uint64_t step, int write, const char* what) {
  for (int w = 0; w < 3; w++) {
    if (write) {
      mt_fill(buf + window_at(w), WINDOW, mt_seed(step, (uint64_t)w, 0, 0));
    } else {
      mt_verify(buf + window_at(w), WINDOW, mt_seed(step, (uint64_t)w, 0, 0), what);
    }
  }
}

static void big_message(MPI_Comm pair) {
  int me;
  MPI_Comm_rank(pair, &me);
  unsigned char* buf = malloc((size_t)big_count);
  CHECK(buf != NULL, "no room for %lld bytes", (long long)big_count);
  if (me == 0) {
    /* Zeros between the windows. Both ranks write their whole buffer first:
       a copy into pages a process has never touched takes page faults one
       by one, which made the transfers here several times slower. */
    memset(buf, 0, (size_t)big_count);
    big_windows(buf, 1, 1, "");
    CHECK_RC(MPI_Send_c(buf, big_count, MPI_BYTE, 1, 77, pair));
  } else {
    MPI_Status st;
    memset(buf, 0xEE, (size_t)big_count);
    CHECK_RC(MPI_Recv_c(buf, big_count, MPI_BYTE, 0, 77, pair, &st));
    MPI_Count count = 0, elements = 0;
    int small = 0;
    CHECK_RC(MPI_Get_count_c(&st, MPI_BYTE, &count));
    CHECK_RC(MPI_Get_elements_c(&st, MPI_BYTE, &elements));
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &small));
    CHECK(count == big_count && elements == big_count && small == MPI_UNDEFINED,
          "%lld bytes received: MPI_Get_count_c %lld, MPI_Get_elements_c %lld, MPI_Get_count %d",
          (long long)big_count, (long long)count, (long long)elements, small);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 77, "large receive: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    big_windows(buf, 1, 0, "MPI_Recv_c of INT_MAX + 1000 bytes");
    for (int q = 1; q < 8; q += 2) { /* not 4: the middle window */
      const size_t at = (size_t)big_count / 8 * (size_t)q + (size_t)q;
      CHECK(buf[at] == 0, "MPI_Recv_c of INT_MAX + 1000 bytes: byte %zu between the windows is 0x%02x", at, buf[at]);
    }
    CHECK(buf[window_at(0) + WINDOW] == 0 && buf[window_at(2) - 1] == 0,
          "MPI_Recv_c of INT_MAX + 1000 bytes: the bytes next to the windows were not received");
    big_windows(buf, 2, 1, "");
  }
  CHECK_RC(MPI_Bcast_c(buf, big_count, MPI_BYTE, 1, pair));
  big_windows(buf, 2, 0, "MPI_Bcast_c of INT_MAX + 1000 bytes");
  CHECK_RC(MPI_Allreduce_c(MPI_IN_PLACE, buf, big_count, MPI_BYTE, MPI_BXOR, pair));
  for (int w = 0; w < 3; w++) {
    for (size_t i = 0; i < WINDOW; i++) {
      CHECK(buf[window_at(w) + i] == 0, "MPI_Allreduce_c(MPI_BXOR) of INT_MAX + 1000 bytes: byte %zu is 0x%02x",
            window_at(w) + i, buf[window_at(w) + i]);
    }
  }
  free(buf);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2 && size <= MAXRANKS, "large_count runs on 2 to %d ranks, not %d", MAXRANKS, size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  sends();
  receives();
  statuses();
  constructors();
  packing();
  operations();
  collectives();
  errors();
  large_types();
  MPI_Comm pair;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
  if (pair != MPI_COMM_NULL) {
    MPI_Comm_set_errhandler(pair, MPI_ERRORS_RETURN);
    big_message(pair);
    CHECK_RC(MPI_Comm_free(&pair));
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("large_count ok: %d ranks, %lld bytes in one message\n", size, (long long)big_count);
  MPI_Finalize();
  return 0;
}
