/*
 * Every blocking collective against results computed locally, on
 * MPI_COMM_WORLD and on a split communicator, for counts 0, 1, 7, 1000 and
 * COUNT_LARGE (larger than a collective slot, so data moves in many steps),
 * every root, the predefined operations on int/double/long/unsigned char,
 * MINLOC/MAXLOC, a non-commutative user operation (checked for canonical
 * order x0 op x1 op ... op xn-1) and MPI_IN_PLACE.
 *   collectives [large_count]
 */
#include "mpitest.h"

static int rank, size;
static int count_large = 40000;

/* The contribution of rank r at element i: distinct per rank and index. */
static int value(int r, int i) { return (r + 1) * 7 + (i % 13) * 3 + (i / 13) % 5; }

static void test_barrier(MPI_Comm comm) {
  for (int i = 0; i < 20; ++i) CHECK_RC(MPI_Barrier(comm));
}

static void test_bcast(MPI_Comm comm, int csize, int crank) {
  const int counts[] = {0, 1, 7, 1000, count_large};
  for (int c = 0; c < 5; ++c) {
    for (int root = 0; root < csize; ++root) {
      const int n = counts[c];
      int *buf = (int *)mt_alloc((size_t)n * sizeof(int));
      for (int i = 0; i < n; ++i) buf[i] = crank == root ? value(root, i) : -1;
      CHECK_RC(MPI_Bcast(buf, n, MPI_INT, root, comm));
      for (int i = 0; i < n; ++i) CHECK(buf[i] == value(root, i), "bcast count %d root %d: element %d is %d", n, root, i, buf[i]);
      free(buf);
    }
  }
}

/* Reduce and Allreduce with MPI_SUM/MAX/MIN/PROD/BAND/BOR/BXOR/LAND/LOR on int. */
static void test_reduce_int(MPI_Comm comm, int csize, int crank) {
  const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR};
  const int counts[] = {0, 1, 7, 1000, count_large};
  for (int o = 0; o < 9; ++o) {
    for (int c = 0; c < 5; ++c) {
      const int n = counts[c];
      int *in = (int *)mt_alloc((size_t)n * sizeof(int));
      int *out = (int *)mt_alloc((size_t)n * sizeof(int));
      int *want = (int *)mt_alloc((size_t)n * sizeof(int));
      for (int i = 0; i < n; ++i) {
        in[i] = ops[o] == MPI_PROD ? 1 + (crank + i) % 3 : value(crank, i);
        int w = ops[o] == MPI_PROD ? 1 : value(0, i);
        for (int r = 0; r < csize; ++r) {
          const int x = ops[o] == MPI_PROD ? 1 + (r + i) % 3 : value(r, i);
          if (ops[o] == MPI_SUM) w = r == 0 ? x : w + x;
          if (ops[o] == MPI_MAX) w = x > w ? x : w;
          if (ops[o] == MPI_MIN) w = x < w ? x : w;
          if (ops[o] == MPI_PROD) w *= x;
          if (ops[o] == MPI_BAND) w = r == 0 ? x : (w & x);
          if (ops[o] == MPI_BOR) w = r == 0 ? x : (w | x);
          if (ops[o] == MPI_BXOR) w = r == 0 ? x : (w ^ x);
          if (ops[o] == MPI_LAND) w = r == 0 ? x : (w && x);
          if (ops[o] == MPI_LOR) w = r == 0 ? x : (w || x);
        }
        want[i] = w;
      }
      const int root = (o + c) % csize;
      for (int i = 0; i < n; ++i) out[i] = -1;
      CHECK_RC(MPI_Reduce(in, out, n, MPI_INT, ops[o], root, comm));
      if (crank == root) {
        for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "reduce op %d count %d root %d: element %d is %d, expected %d", o, n, root, i, out[i], want[i]);
      }
      for (int i = 0; i < n; ++i) out[i] = -1;
      CHECK_RC(MPI_Allreduce(in, out, n, MPI_INT, ops[o], comm));
      for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "allreduce op %d count %d: element %d is %d, expected %d", o, n, i, out[i], want[i]);
      /* In place. */
      memcpy(out, in, (size_t)n * sizeof(int));
      CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, ops[o], comm));
      for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "allreduce in place op %d count %d: element %d", o, n, i);
      memcpy(out, in, (size_t)n * sizeof(int));
      CHECK_RC(MPI_Reduce(crank == root ? MPI_IN_PLACE : in, out, n, MPI_INT, ops[o], root, comm));
      if (crank == root) {
        for (int i = 0; i < n; ++i) CHECK(out[i] == want[i], "reduce in place op %d count %d: element %d", o, n, i);
      }
      free(in);
      free(out);
      free(want);
    }
  }
}

/* Floating point: the result is the same bits at every root and in
   allreduce, because the combination order never depends on the root. */
static void test_reduce_double(MPI_Comm comm, int csize, int crank) {
  const int n = count_large;
  double *in = (double *)mt_alloc(n * sizeof(double));
  double *ref = (double *)mt_alloc(n * sizeof(double));
  double *out = (double *)mt_alloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) in[i] = 1.0 / (3.0 + crank + i) + 1e10 * ((crank + i) % 2);
  CHECK_RC(MPI_Allreduce(in, ref, n, MPI_DOUBLE, MPI_SUM, comm));
  for (int root = 0; root < csize; ++root) {
    CHECK_RC(MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, root, comm));
    if (crank == root) CHECK(memcmp(out, ref, n * sizeof(double)) == 0, "reduce of doubles at root %d differs from allreduce", root);
  }
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int r = 0; r < csize; ++r) sum += 1.0 / (3.0 + r + i) + 1e10 * ((r + i) % 2);
    CHECK(ref[i] > sum * (1 - 1e-12) && ref[i] < sum * (1 + 1e-12) + 1e-300, "double sum element %d is %g, expected %g", i, ref[i], sum);
  }
  /* Other element types. */
  long l = crank + 1, lsum = 0;
  CHECK_RC(MPI_Allreduce(&l, &lsum, 1, MPI_LONG, MPI_SUM, comm));
  CHECK(lsum == (long)csize * (csize + 1) / 2, "long sum %ld", lsum);
  unsigned char b = (unsigned char)(1u << (crank % 8)), bor = 0;
  CHECK_RC(MPI_Allreduce(&b, &bor, 1, MPI_BYTE, MPI_BOR, comm));
  unsigned char want = 0;
  for (int r = 0; r < csize; ++r) want |= (unsigned char)(1u << (r % 8));
  CHECK(bor == want, "byte bor 0x%x, expected 0x%x", bor, want);
  free(in);
  free(ref);
  free(out);
}

static void test_loc(MPI_Comm comm, int csize, int crank) {
  struct { double v; int i; } in[3], out[3];
  for (int k = 0; k < 3; ++k) {
    in[k].v = k == 2 ? 5.0 : (double)((crank * 7 + k * 3) % csize);  /* k=2: a tie everywhere */
    in[k].i = crank;
  }
  CHECK_RC(MPI_Allreduce(in, out, 3, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
  for (int k = 0; k < 3; ++k) {
    double best = -1;
    int at = -1;
    for (int r = 0; r < csize; ++r) {
      const double v = k == 2 ? 5.0 : (double)((r * 7 + k * 3) % csize);
      if (v > best) { best = v; at = r; }
    }
    CHECK(out[k].v == best && out[k].i == at, "maxloc %d: (%g, %d), expected (%g, %d)", k, out[k].v, out[k].i, best, at);
  }
  CHECK_RC(MPI_Allreduce(in, out, 3, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  CHECK(out[2].v == 5.0 && out[2].i == 0, "minloc tie: (%g, %d), expected index 0", out[2].v, out[2].i);
  int pair[2] = {crank % 2, crank}, pout[2];
  CHECK_RC(MPI_Allreduce(pair, pout, 1, MPI_2INT, MPI_MINLOC, comm));
  CHECK(pout[0] == 0 && pout[1] == 0, "2int minloc (%d, %d)", pout[0], pout[1]);
}

/* A non-commutative operation: 2x2 integer matrix product (mod 2^31). The
   result must be M0 * M1 * ... * Mn-1 whatever the root. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  int *a = (int *)in, *b = (int *)inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const long long r0 = (long long)a[0] * b[0] + (long long)a[1] * b[2];
    const long long r1 = (long long)a[0] * b[1] + (long long)a[1] * b[3];
    const long long r2 = (long long)a[2] * b[0] + (long long)a[3] * b[2];
    const long long r3 = (long long)a[2] * b[1] + (long long)a[3] * b[3];
    b[0] = (int)(r0 % 1000003); b[1] = (int)(r1 % 1000003); b[2] = (int)(r2 % 1000003); b[3] = (int)(r3 % 1000003);
  }
}

static void matrix_of(int r, int k, int m[4]) {
  m[0] = 1 + r + k; m[1] = r + 2; m[2] = (r * 3 + k) % 5; m[3] = 1;
}

static void test_noncommutative(MPI_Comm comm, int csize, int crank) {
  MPI_Op op;
  CHECK_RC(MPI_Op_create(matmul, 0, &op));
  int commute = 1;
  CHECK_RC(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0, "MPI_Op_commutative says %d", commute);
  /* count_large / 4 matrices of 16 bytes (10000 by default: several slot
     steps; 25000, 400 KB, with the large_count of 100000: a single-copy
     reduction on the board). */
  const int K = count_large / 4;
  int *in = (int *)mt_alloc((size_t)K * 4 * sizeof(int)), *out = (int *)mt_alloc((size_t)K * 4 * sizeof(int));
  for (int k = 0; k < K; ++k) matrix_of(crank, k, in + 4 * k);
  /* Each element of a contiguous type of 4 ints carries one matrix. */
  MPI_Datatype matrix;
  CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &matrix));
  CHECK_RC(MPI_Type_commit(&matrix));
  for (int root = 0; root < csize; root += (csize > 3 ? csize - 1 : 1)) {
    CHECK_RC(MPI_Reduce(in, out, K, matrix, op, root, comm));
    if (crank == root) {
      for (int k = 0; k < K; ++k) {
        int want[4];
        matrix_of(0, k, want);
        for (int r = 1; r < csize; ++r) {
          int m[4], len = 1;
          matrix_of(r, k, m);
          matmul(want, m, &len, NULL); /* m = want * m */
          memcpy(want, m, sizeof m);
        }
        CHECK(memcmp(out + 4 * k, want, sizeof want) == 0, "non-commutative reduce at root %d: matrix %d is (%d %d %d %d), expected (%d %d %d %d)",
              root, k, out[4 * k], out[4 * k + 1], out[4 * k + 2], out[4 * k + 3], want[0], want[1], want[2], want[3]);
      }
    }
  }
  CHECK_RC(MPI_Type_free(&matrix));
  CHECK_RC(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL, "MPI_Op_free left the handle");
  free(in);
  free(out);
}

static void test_scan(MPI_Comm comm, int crank) {
  const int n = 9000;
  int *in = (int *)mt_alloc(n * sizeof(int)), *out = (int *)mt_alloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = value(crank, i);
  CHECK_RC(MPI_Scan(in, out, n, MPI_INT, MPI_SUM, comm));
  for (int i = 0; i < n; ++i) {
    int want = 0;
    for (int r = 0; r <= crank; ++r) want += value(r, i);
    CHECK(out[i] == want, "scan element %d is %d, expected %d", i, out[i], want);
  }
  CHECK_RC(MPI_Exscan(in, out, n, MPI_INT, MPI_SUM, comm));
  if (crank > 0) {
    for (int i = 0; i < n; ++i) {
      int want = 0;
      for (int r = 0; r < crank; ++r) want += value(r, i);
      CHECK(out[i] == want, "exscan element %d is %d, expected %d", i, out[i], want);
    }
  }
  free(in);
  free(out);
}

static void test_gather_scatter(MPI_Comm comm, int csize, int crank) {
  const int counts[] = {0, 1, 1000, count_large / 4};
  for (int c = 0; c < 4; ++c) {
    const int n = counts[c];
    int *mine = (int *)mt_alloc((size_t)n * sizeof(int));
    int *all = (int *)mt_alloc((size_t)n * csize * sizeof(int));
    for (int i = 0; i < n; ++i) mine[i] = value(crank, i);
    for (int root = 0; root < csize; ++root) {
      for (int i = 0; i < n * csize; ++i) all[i] = -1;
      CHECK_RC(MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root, comm));
      if (crank == root) {
        for (int r = 0; r < csize; ++r)
          for (int i = 0; i < n; ++i) CHECK(all[r * n + i] == value(r, i), "gather count %d root %d: rank %d element %d", n, root, r, i);
      }
      /* Scatter back what the root holds (the root fills it when not gathering). */
      if (crank == root) for (int r = 0; r < csize; ++r) for (int i = 0; i < n; ++i) all[r * n + i] = value(r + 100, i);
      for (int i = 0; i < n; ++i) mine[i] = -1;
      CHECK_RC(MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root, comm));
      for (int i = 0; i < n; ++i) CHECK(mine[i] == value(crank + 100, i), "scatter count %d root %d: element %d is %d", n, root, i, mine[i]);
      for (int i = 0; i < n; ++i) mine[i] = value(crank, i);
    }
    for (int i = 0; i < n * csize; ++i) all[i] = -1;
    CHECK_RC(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, comm));
    for (int r = 0; r < csize; ++r)
      for (int i = 0; i < n; ++i) CHECK(all[r * n + i] == value(r, i), "allgather count %d: rank %d element %d", n, r, i);
    for (int i = 0; i < n * csize; ++i) all[i] = i / (n > 0 ? n : 1) == crank ? value(crank, i % (n > 0 ? n : 1)) : -1;
    CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT, comm));
    for (int r = 0; r < csize; ++r)
      for (int i = 0; i < n; ++i) CHECK(all[r * n + i] == value(r, i), "allgather in place count %d: rank %d element %d", n, r, i);
    free(mine);
    free(all);
  }
  /* The v-forms: rank r contributes r + 1 elements, placed in reverse rank
     order with a gap of 3 elements between blocks. */
  int *counts_v = (int *)mt_alloc((size_t)csize * sizeof(int)), *displs = (int *)mt_alloc((size_t)csize * sizeof(int));
  int total = 0;
  for (int r = csize - 1; r >= 0; --r) {
    counts_v[r] = r + 1;
    displs[r] = total;
    total += r + 1 + 3;
  }
  int *mine = (int *)mt_alloc((size_t)(crank + 1) * sizeof(int)), *all = (int *)mt_alloc((size_t)total * sizeof(int));
  for (int i = 0; i <= crank; ++i) mine[i] = value(crank, i);
  for (int i = 0; i < total; ++i) all[i] = -7;
  const int root = csize - 1;
  CHECK_RC(MPI_Gatherv(mine, crank + 1, MPI_INT, all, counts_v, displs, MPI_INT, root, comm));
  if (crank == root) {
    for (int r = 0; r < csize; ++r) {
      for (int i = 0; i < r + 1; ++i) CHECK(all[displs[r] + i] == value(r, i), "gatherv rank %d element %d", r, i);
      for (int i = 0; i < 3; ++i) CHECK(all[displs[r] + r + 1 + i] == -7, "gatherv wrote a gap after rank %d", r);
    }
  }
  for (int i = 0; i < total; ++i) all[i] = -7;
  CHECK_RC(MPI_Allgatherv(mine, crank + 1, MPI_INT, all, counts_v, displs, MPI_INT, comm));
  for (int r = 0; r < csize; ++r) {
    for (int i = 0; i < r + 1; ++i) CHECK(all[displs[r] + i] == value(r, i), "allgatherv rank %d element %d", r, i);
    for (int i = 0; i < 3; ++i) CHECK(all[displs[r] + r + 1 + i] == -7, "allgatherv wrote a gap after rank %d", r);
  }
  for (int i = 0; i <= crank; ++i) mine[i] = -1;
  CHECK_RC(MPI_Scatterv(all, counts_v, displs, MPI_INT, mine, crank + 1, MPI_INT, 0, comm));
  for (int i = 0; i <= crank; ++i) CHECK(mine[i] == value(crank, i), "scatterv element %d is %d", i, mine[i]);
  free(mine);
  free(all);
  free(counts_v);
  free(displs);
}

static void test_alltoall(MPI_Comm comm, int csize, int crank) {
  const int counts[] = {0, 1, 100, count_large / 8};
  for (int c = 0; c < 4; ++c) {
    const int n = counts[c];
    int *send = (int *)mt_alloc((size_t)n * csize * sizeof(int)), *recv = (int *)mt_alloc((size_t)n * csize * sizeof(int));
    for (int d = 0; d < csize; ++d) for (int i = 0; i < n; ++i) send[d * n + i] = value(crank * 1000 + d, i);
    for (int i = 0; i < n * csize; ++i) recv[i] = -1;
    CHECK_RC(MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm));
    for (int s = 0; s < csize; ++s)
      for (int i = 0; i < n; ++i) CHECK(recv[s * n + i] == value(s * 1000 + crank, i), "alltoall count %d: from %d element %d", n, s, i);
    CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, n, MPI_INT, comm));
    for (int s = 0; s < csize; ++s)
      for (int i = 0; i < n; ++i) CHECK(send[s * n + i] == value(s * 1000 + crank, i), "alltoall in place count %d: from %d element %d", n, s, i);
    free(send);
    free(recv);
  }
  /* Alltoallv: rank s sends (s + d) % 3 * 50 elements to rank d. */
  int *sc = (int *)mt_alloc((size_t)csize * sizeof(int)), *sd = (int *)mt_alloc((size_t)csize * sizeof(int));
  int *rc = (int *)mt_alloc((size_t)csize * sizeof(int)), *rd = (int *)mt_alloc((size_t)csize * sizeof(int));
  int st = 0, rt = 0;
  for (int p = 0; p < csize; ++p) {
    sc[p] = (crank + p) % 3 * 50; sd[p] = st; st += sc[p];
    rc[p] = (p + crank) % 3 * 50; rd[p] = rt; rt += rc[p];
  }
  int *send = (int *)mt_alloc((size_t)st * sizeof(int)), *recv = (int *)mt_alloc((size_t)rt * sizeof(int));
  for (int p = 0; p < csize; ++p) for (int i = 0; i < sc[p]; ++i) send[sd[p] + i] = value(crank * 1000 + p, i);
  CHECK_RC(MPI_Alltoallv(send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, comm));
  for (int p = 0; p < csize; ++p)
    for (int i = 0; i < rc[p]; ++i) CHECK(recv[rd[p] + i] == value(p * 1000 + crank, i), "alltoallv from %d element %d", p, i);
  free(send); free(recv); free(sc); free(sd); free(rc); free(rd);
}

static void test_reduce_scatter(MPI_Comm comm, int csize, int crank) {
  const int block = 300;
  int *in = (int *)mt_alloc((size_t)block * csize * sizeof(int)), out[300];
  for (int i = 0; i < block * csize; ++i) in[i] = value(crank, i);
  CHECK_RC(MPI_Reduce_scatter_block(in, out, block, MPI_INT, MPI_SUM, comm));
  for (int i = 0; i < block; ++i) {
    int want = 0;
    for (int r = 0; r < csize; ++r) want += value(r, crank * block + i);
    CHECK(out[i] == want, "reduce_scatter_block element %d is %d, expected %d", i, out[i], want);
  }
  int *counts = (int *)mt_alloc((size_t)csize * sizeof(int));
  int first = 0;
  for (int r = 0; r < csize; ++r) {
    counts[r] = r % 2 == 0 ? 5 : 0;
    if (r < crank) first += counts[r];
  }
  CHECK_RC(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_MAX, comm));
  for (int i = 0; i < counts[crank]; ++i) {
    int want = value(0, first + i);
    for (int r = 1; r < csize; ++r) want = value(r, first + i) > want ? value(r, first + i) : want;
    CHECK(out[i] == want, "reduce_scatter element %d is %d, expected %d", i, out[i], want);
  }
  free(counts);
  free(in);
}

static void run_all(MPI_Comm comm) {
  int csize, crank;
  MPI_Comm_size(comm, &csize);
  MPI_Comm_rank(comm, &crank);
  test_barrier(comm);
  test_bcast(comm, csize, crank);
  test_reduce_int(comm, csize, crank);
  test_reduce_double(comm, csize, crank);
  test_loc(comm, csize, crank);
  test_noncommutative(comm, csize, crank);
  test_scan(comm, crank);
  test_gather_scatter(comm, csize, crank);
  test_alltoall(comm, csize, crank);
  test_reduce_scatter(comm, csize, crank);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "mismatch") == 0) {
    /* Rank 0 in a barrier, the others in an allreduce: the job must end
       naming both calls (on the board, the last rank to arrive sees it). */
    int one = 1, sum = 0;
    if (rank == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
    } else {
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("rank %d: mismatched collectives returned\n", rank);
    MPI_Finalize();
    return 3;
  }
  if (argc > 1 && strcmp(argv[1], "mismatch_sum") == 0) {
    /* Rank 0 in a barrier, the others in a large Allreduce of doubles,
       which on the board adds the inputs in rank order: rank 1 would wait
       for rank 0's turn for ever; the job must end naming both calls. */
    enum { N = 100000 };
    double *in = calloc(N, sizeof(double)), *out = calloc(N, sizeof(double));
    if (in == NULL || out == NULL) return 2;
    if (rank == 0) {
      MPI_Barrier(MPI_COMM_WORLD);
    } else {
      MPI_Allreduce(in, out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("rank %d: mismatched collectives returned\n", rank);
    free(in);
    free(out);
    MPI_Finalize();
    return 3;
  }
  if (argc > 1 && strcmp(argv[1], "mismatch_bcast") == 0) {
    /* A large Bcast from root 0, except on the last rank, which names root
       1: it finds root 0's message where it expects root 1's (on the
       board, in the stage) and the job must end naming both. The others
       then wait in the barrier until the job ends. */
    enum { BYTES = 100000 };
    char *buf = calloc(BYTES, 1);
    if (buf == NULL) return 2;
    MPI_Bcast(buf, BYTES, MPI_CHAR, rank == size - 1 ? 1 : 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: mismatched collectives returned\n", rank);
    free(buf);
    MPI_Finalize();
    return 3;
  }
  if (argc > 1) count_large = (int)mt_arg(argc, argv, 1, "large_count");
  run_all(MPI_COMM_WORLD);
  /* The same on the odd and even ranks, in reverse order: sub-communicators
     run their collectives side by side without mixing them up. */
  MPI_Comm half;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
  run_all(half);
  CHECK_RC(MPI_Comm_free(&half));
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("collectives ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
