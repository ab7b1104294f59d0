/*
 * type_rules: datatype and reduction rules the standard fixes and that
 * programs rely on (issue 29, bugs 4, 6 and 8).
 *
 *   - the (value, index) pair types: their size is the sum of their parts,
 *     their extent the C struct's (MPI_DOUBLE_INT: 12 and 16), MPI_Get_elements
 *     counts two basic elements per pair, and MINLOC/MAXLOC reduce arrays of
 *     them (blocking, nonblocking, in place, MPI_Reduce_local) without
 *     touching the padding;
 *   - user operations on non-contiguous derived types: the function sees
 *     the elements in the type's layout, in every reduction;
 *   - MPI_Finalize runs the delete callbacks of MPI_COMM_SELF's attributes
 *     first, the last set first, while MPI still works;
 *   - sizes beyond an int are refused, never cut short: a reduction whose
 *     derived type holds more than INT_MAX basic elements, MPI_Reduce_scatter
 *     counts that add up past INT_MAX, an MPI_Pack_size past INT_MAX.
 *
 *   type_rules   (any number of ranks)
 */
#include <limits.h>
#include <stddef.h>

#include "mpitest.h"

static int rank, size;

typedef struct {
  double value;
  int index;
} DoubleInt;

static void pair_sizes(void) {
  struct {
    MPI_Datatype type;
    int size;
    MPI_Aint extent;
    const char* name;
  } pairs[] = {
      {MPI_FLOAT_INT, (int)(sizeof(float) + sizeof(int)), sizeof(struct { float v; int i; }), "MPI_FLOAT_INT"},
      {MPI_DOUBLE_INT, (int)(sizeof(double) + sizeof(int)), sizeof(DoubleInt), "MPI_DOUBLE_INT"},
      {MPI_LONG_INT, (int)(sizeof(long) + sizeof(int)), sizeof(struct { long v; int i; }), "MPI_LONG_INT"},
      {MPI_2INT, (int)(2 * sizeof(int)), 2 * sizeof(int), "MPI_2INT"},
      {MPI_SHORT_INT, (int)(sizeof(short) + sizeof(int)), sizeof(struct { short v; int i; }), "MPI_SHORT_INT"},
      {MPI_LONG_DOUBLE_INT, (int)(sizeof(long double) + sizeof(int)), sizeof(struct { long double v; int i; }),
       "MPI_LONG_DOUBLE_INT"},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    int s = 0;
    MPI_Aint lb = -1, extent = 0;
    CHECK_RC(MPI_Type_size(pairs[k].type, &s));
    CHECK_RC(MPI_Type_get_extent(pairs[k].type, &lb, &extent));
    CHECK(s == pairs[k].size, "MPI_Type_size(%s) is %d, expected %d", pairs[k].name, s, pairs[k].size);
    CHECK(lb == 0 && extent == pairs[k].extent, "%s: lb %ld extent %ld, expected 0 and %ld", pairs[k].name, (long)lb,
          (long)extent, (long)pairs[k].extent);
  }
  /* Three pairs sent as MPI_DOUBLE_INT: 36 bytes, 6 basic elements. */
  DoubleInt out[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}}, in[3];
  memset(in, 0x5a, sizeof in);
  MPI_Status st;
  CHECK_RC(MPI_Sendrecv(out, 3, MPI_DOUBLE_INT, 0, 1, in, 3, MPI_DOUBLE_INT, 0, 1, MPI_COMM_SELF, &st));
  int count = 0, elements = 0;
  CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE_INT, &count));
  CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &elements));
  CHECK(count == 3 && elements == 6, "3 MPI_DOUBLE_INT: count %d, elements %d (expected 3 and 6)", count, elements);
  for (int i = 0; i < 3; i++) CHECK(in[i].value == out[i].value && in[i].index == out[i].index, "pair %d differs", i);
  int bytes = 0;
  CHECK_RC(MPI_Pack_size(3, MPI_DOUBLE_INT, MPI_COMM_SELF, &bytes));
  CHECK(bytes >= 36, "MPI_Pack_size of 3 MPI_DOUBLE_INT is %d", bytes);
}

/* MINLOC/MAXLOC over arrays of pairs whose padding holds a marker that must
 * survive. */
static void pair_reductions(void) {
  enum { N = 1000 };
  DoubleInt* in = malloc(N * sizeof *in);
  DoubleInt* out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) {
    memset(&in[i], 0x11, sizeof in[i]);
    in[i].value = (double)((rank * 7 + i) % size);
    in[i].index = rank;
  }
  for (int pass = 0; pass < 3; pass++) {
    memset(out, 0x77, N * sizeof *out);
    if (pass == 0) {
      CHECK_RC(MPI_Allreduce(in, out, N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    } else if (pass == 1) {
      MPI_Request req;
      CHECK_RC(MPI_Iallreduce(in, out, N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD, &req));
      CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      for (int i = 0; i < N; i++) {
        memcpy(&out[i], &in[i], sizeof in[i]);
        memset((char*)&out[i] + offsetof(DoubleInt, index) + sizeof(int), 0x77,
               sizeof(DoubleInt) - offsetof(DoubleInt, index) - sizeof(int));
      }
      CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, out, N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
    }
    for (int i = 0; i < N; i++) {
      double m = -1; /* the largest value, and the lowest rank that holds it */
      int best = -1;
      for (int r = 0; r < size; r++) {
        const double v = (double)((r * 7 + i) % size);
        if (v > m) m = v, best = r;
      }
      CHECK(out[i].value == m && out[i].index == best, "pass %d MAXLOC %d: (%g, %d), expected (%g, %d)", pass, i,
            out[i].value, out[i].index, m, best);
      const unsigned char* pad = (const unsigned char*)&out[i] + offsetof(DoubleInt, index) + sizeof(int);
      for (size_t b = 0; b < sizeof(DoubleInt) - offsetof(DoubleInt, index) - sizeof(int); b++) {
        CHECK(pad[b] == 0x77, "pass %d: MAXLOC wrote the padding of pair %d", pass, i);
      }
    }
  }
  /* MPI_Reduce_local on pairs: the smaller value wins, ties the smaller index. */
  DoubleInt a[2] = {{1.0, 5}, {4.0, 2}}, b[2] = {{1.0, 3}, {3.0, 9}};
  CHECK_RC(MPI_Reduce_local(a, b, 2, MPI_DOUBLE_INT, MPI_MINLOC));
  CHECK(b[0].value == 1.0 && b[0].index == 3 && b[1].value == 3.0 && b[1].index == 9,
        "MPI_Reduce_local MINLOC: (%g, %d) (%g, %d)", b[0].value, b[0].index, b[1].value, b[1].index);
  free(in);
  free(out);
}

/* A user operation on every other int (a vector type): it must see the
 * elements in that layout, and the ints between them stay untouched. */
static MPI_Datatype g_every_other;
static int g_layout_errors;

static void add_every_other(void* in, void* inout, int* len, MPI_Datatype* type) {
  if (*type != g_every_other) g_layout_errors++;
  const int* a = in;
  int* b = inout;
  for (int e = 0; e < *len; e++) {
    for (int k = 0; k < 3; k++) b[e * 6 + 2 * k] += a[e * 6 + 2 * k];
  }
}

static void user_op_noncontiguous(void) {
  CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &g_every_other)); /* ints 0, 2, 4 */
  MPI_Datatype every_other;
  CHECK_RC(MPI_Type_create_resized(g_every_other, 0, 6 * sizeof(int), &every_other));
  CHECK_RC(MPI_Type_free(&g_every_other));
  g_every_other = every_other;
  CHECK_RC(MPI_Type_commit(&g_every_other));
  MPI_Op add;
  CHECK_RC(MPI_Op_create(add_every_other, 1, &add));
  for (int n = 1; n <= 2000; n *= 7) { /* elements of the type: 1, 7, 49, 343 (cells, slots, steps) */
    const size_t ints = (size_t)n * 6;
    int* in = malloc(ints * sizeof(int));
    int* out = malloc(ints * sizeof(int));
    for (size_t i = 0; i < ints; i++) in[i] = (int)(i % 2 == 0 ? rank + 1 + (int)i : -5);
    for (int pass = 0; pass < 4; pass++) {
      for (size_t i = 0; i < ints; i++) out[i] = -9;
      const int root = pass % size;
      if (pass == 0) {
        CHECK_RC(MPI_Allreduce(in, out, n, g_every_other, add, MPI_COMM_WORLD));
      } else if (pass == 1) {
        CHECK_RC(MPI_Reduce(in, out, n, g_every_other, add, root, MPI_COMM_WORLD));
      } else if (pass == 2) {
        MPI_Request req;
        CHECK_RC(MPI_Ireduce(in, out, n, g_every_other, add, root, MPI_COMM_WORLD, &req));
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
      } else {
        CHECK_RC(MPI_Scan(in, out, n, g_every_other, add, MPI_COMM_WORLD));
      }
      if ((pass == 1 || pass == 2) && rank != root) continue;
      const int upto = pass == 3 ? rank + 1 : size; /* ranks summed */
      for (size_t i = 0; i < ints; i++) {
        const int want = i % 2 == 0 ? upto * (upto + 1) / 2 + upto * (int)i : -9;
        CHECK(out[i] == want, "user operation on a vector type, pass %d, %d elements: int %zu is %d, expected %d",
              pass, n, i, out[i], want);
      }
    }
    free(in);
    free(out);
  }
  /* MPI_Reduce_local hands the function the program's own buffers. */
  int a[6] = {1, -1, 2, -1, 3, -1}, b[6] = {10, 7, 20, 7, 30, 7};
  CHECK_RC(MPI_Reduce_local(a, b, 1, g_every_other, add));
  CHECK(b[0] == 11 && b[1] == 7 && b[2] == 22 && b[3] == 7 && b[4] == 33 && b[5] == 7,
        "MPI_Reduce_local with a vector type: %d %d %d %d %d %d", b[0], b[1], b[2], b[3], b[4], b[5]);
  /* A predefined operation on a derived type works on its ints. */
  int c[6] = {1, -1, 2, -1, 3, -1}, d[6] = {10, 7, 20, 7, 30, 7};
  CHECK_RC(MPI_Reduce_local(c, d, 1, g_every_other, MPI_SUM));
  CHECK(d[0] == 11 && d[1] == 7 && d[2] == 22 && d[3] == 7 && d[4] == 33 && d[5] == 7,
        "MPI_Reduce_local MPI_SUM with a vector type: %d %d %d %d %d %d", d[0], d[1], d[2], d[3], d[4], d[5]);
  CHECK(g_layout_errors == 0, "the user function got another datatype %d times", g_layout_errors);
  CHECK_RC(MPI_Op_free(&add));
  CHECK_RC(MPI_Type_free(&g_every_other));
}

/* MPI_COMM_SELF's attributes at MPI_Finalize. */
static int g_deleted[3], g_order, g_mpi_usable = 1;

static int delete_self(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  (void)extra;
  int finalized = 1;
  MPI_Finalized(&finalized);
  int self_size = 0;
  if (comm != MPI_COMM_SELF || finalized || MPI_Comm_size(MPI_COMM_SELF, &self_size) != MPI_SUCCESS) g_mpi_usable = 0;
  g_deleted[*(int*)value] = ++g_order;
  return MPI_SUCCESS;
}

static int g_values[3] = {0, 1, 2};

static void self_attributes(void) {
  int keyval[3];
  for (int k = 0; k < 3; k++) {
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_self, &keyval[k], NULL));
  }
  /* Set in the order 2, 0, 1: deleted 1, 0, 2. */
  CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[2], &g_values[2]));
  CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[0], &g_values[0]));
  CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, keyval[1], &g_values[1]));
}

static void int_limits(void) {
  MPI_Datatype mega;  /* 2^20 ints */
  CHECK_RC(MPI_Type_contiguous(1 << 20, MPI_INT, &mega));
  CHECK_RC(MPI_Type_commit(&mega));
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int dummy = 0, packed = 0;
  /* 2^12 of them are 2^32 ints: refused before any buffer is read. */
  CHECK_CLASS(MPI_Allreduce(&dummy, &dummy, 1 << 12, mega, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_local(&dummy, &dummy, 1 << 12, mega, MPI_SUM), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack_size(1 << 12, mega, MPI_COMM_WORLD, &packed), MPI_ERR_COUNT);
  int* counts = malloc(sizeof(int) * (size_t)size);
  for (int i = 0; i < size; ++i) counts[i] = INT_MAX / 2 + 1;
  if (size > 1) {
    CHECK_CLASS(MPI_Reduce_scatter(&dummy, &dummy, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  }
  free(counts);
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Type_free(&mega);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  pair_sizes();
  pair_reductions();
  user_op_noncontiguous();
  self_attributes();
  int_limits();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  if (g_deleted[1] != 1 || g_deleted[0] != 2 || g_deleted[2] != 3 || !g_mpi_usable) {
    fprintf(stderr, "rank %d: FAIL: MPI_COMM_SELF's delete callbacks at MPI_Finalize ran as %d %d %d%s\n", rank,
            g_deleted[0], g_deleted[1], g_deleted[2], g_mpi_usable ? "" : ", with MPI unusable");
    return 1;
  }
  if (rank == 0) printf("type_rules ok: %d ranks\n", size);
  return 0;
}
