/*
 * intercomm: intercommunicators (MPI 3.1 §6.6, issue 29). The world splits
 * into group A (even world ranks) and group B (odd ones); MPI_Intercomm_create
 * joins them. Checked: the remote group's size and ranks, point-to-point
 * across the groups (statuses name remote ranks), every collective with
 * MPI_ROOT and MPI_PROC_NULL roots, blocking and nonblocking, with a derived
 * type and a non-commutative operation; MPI_Intercomm_merge in both orders,
 * MPI_Comm_dup, _idup, _split and _create of the intercommunicator,
 * MPI_Comm_compare; and the errors of calls that intercommunicators refuse.
 *
 *   intercomm   (at least 2 ranks)
 */
#include "mpitest.h"

static int wrank, wsize;
static int group;        /* 0: A (even world ranks), 1: B (odd) */
static int lsize, rsize, lrank;

/* The world rank of rank r of group g. */
static int world_of(int g, int r) { return 2 * r + g; }
static int size_of(int g) { return (wsize + 1 - g) / 2; }
/* What rank r of group g contributes. */
static int value(int g, int r) { return 100 * g + r + 1; }

static void check_basics(MPI_Comm inter) {
  int flag = 0, n = 0, r = -1;
  CHECK_RC(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag == 1, "MPI_Comm_test_inter says %d", flag);
  CHECK_RC(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "MPI_COMM_WORLD is not an intercommunicator");
  CHECK_RC(MPI_Comm_size(inter, &n));
  CHECK(n == lsize, "local size %d, expected %d", n, lsize);
  CHECK_RC(MPI_Comm_rank(inter, &r));
  CHECK(r == lrank, "rank %d, expected %d", r, lrank);
  CHECK_RC(MPI_Comm_remote_size(inter, &n));
  CHECK(n == rsize, "remote size %d, expected %d", n, rsize);
  MPI_Group remote, world;
  CHECK_RC(MPI_Comm_remote_group(inter, &remote));
  CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_RC(MPI_Group_size(remote, &n));
  CHECK(n == rsize, "remote group size %d", n);
  for (int i = 0; i < rsize; ++i) {
    int w = -1;
    CHECK_RC(MPI_Group_translate_ranks(remote, 1, &i, world, &w));
    CHECK(w == world_of(1 - group, i), "remote rank %d is world rank %d", i, w);
  }
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
}

static void check_pt2pt(MPI_Comm inter) {
  int* out = malloc(sizeof(int) * (size_t)rsize);
  int* in = malloc(sizeof(int) * (size_t)rsize);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) {
    out[j] = value(group, lrank) * 1000 + j;
    CHECK_RC(MPI_Irecv(&in[j], 1, MPI_INT, MPI_ANY_SOURCE, j == 0 ? 5 : 6, inter, &reqs[j]));
  }
  for (int j = 0; j < rsize; ++j) {
    /* Each remote rank gets one message with tag 5 (from rank 0 of its
       remote group) and the rest with tag 6. */
    CHECK_RC(MPI_Isend(&out[j], 1, MPI_INT, j, lrank == 0 ? 5 : 6, inter, &reqs[rsize + j]));
  }
  MPI_Status* st = malloc(sizeof(MPI_Status) * 2 * (size_t)rsize);
  CHECK_RC(MPI_Waitall(2 * rsize, reqs, st));
  int seen = 0;
  for (int j = 0; j < rsize; ++j) {
    const int src = st[j].MPI_SOURCE;
    CHECK(src >= 0 && src < rsize, "status source %d out of the remote group", src);
    CHECK(in[j] == value(1 - group, src) * 1000 + lrank, "from remote %d: %d", src, in[j]);
    if (j == 0) CHECK(src == 0, "tag 5 came from remote %d", src);
    seen += src;
  }
  CHECK(seen == rsize * (rsize - 1) / 2, "every remote rank sent once");
  free(out);
  free(in);
  free(reqs);
  free(st);
}

/* The affine map x -> a x + b as (a, b): composition is associative and not
   commutative, so the order of a reduction shows. inout = in o inout. */
static void compose(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  long long* in = invec;
  long long* io = inoutvec;
  for (int i = 0; i < *len; ++i) {
    const long long a = in[2 * i] * io[2 * i], b = in[2 * i] * io[2 * i + 1] + in[2 * i + 1];
    io[2 * i] = a;
    io[2 * i + 1] = b;
  }
}

static void check_rooted(MPI_Comm inter) {
  /* Bcast from A's rank 0, then from B's last rank, with a strided type. */
  for (int from = 0; from < 2; ++from) {
    const int root_rank = from == 0 ? 0 : size_of(1) - 1;
    int root;
    if (group == from) {
      root = lrank == root_rank ? MPI_ROOT : MPI_PROC_NULL;
    } else {
      root = root_rank;
    }
    int buf[2000];
    for (int i = 0; i < 2000; ++i) buf[i] = root == MPI_ROOT ? i * 3 + from : -1;
    MPI_Datatype every_other;
    CHECK_RC(MPI_Type_vector(1000, 1, 2, MPI_INT, &every_other));
    CHECK_RC(MPI_Type_commit(&every_other));
    CHECK_RC(MPI_Bcast(buf, 1, every_other, root, inter));
    MPI_Type_free(&every_other);
    for (int i = 0; i < 2000; ++i) {
      int want = -1;
      if (root == MPI_ROOT) want = i * 3 + from;
      else if (root >= 0 && i % 2 == 0) want = i * 3 + from;
      CHECK(buf[i] == want, "bcast from group %d: element %d is %d, expected %d", from, i, buf[i], want);
    }
  }

  /* Reduce to B's rank 0 of A's values; Gather(v) to A's rank 0 from B;
     Scatter(v) from B's rank 0 to A. */
  const int b_root = group == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  const int a_root = group == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int mine[3] = {value(group, lrank), 2 * value(group, lrank), 1};
  int sum[3] = {-1, -1, -1};
  CHECK_RC(MPI_Reduce(mine, sum, 3, MPI_INT, MPI_SUM, b_root, inter));
  if (b_root == MPI_ROOT) {
    int want = 0;
    for (int r = 0; r < size_of(0); ++r) want += value(0, r);
    CHECK(sum[0] == want && sum[1] == 2 * want && sum[2] == size_of(0), "reduce gave %d %d %d, expected %d %d %d",
          sum[0], sum[1], sum[2], want, 2 * want, size_of(0));
  } else {
    CHECK(sum[0] == -1, "a non-root's receive buffer changed");
  }

  const int nb = size_of(1);
  int* gathered = malloc(sizeof(int) * 2 * (size_t)nb * (size_t)nb);
  int* counts = malloc(sizeof(int) * (size_t)nb);
  int* displs = malloc(sizeof(int) * (size_t)nb);
  for (int j = 0; j < nb; ++j) {
    counts[j] = j + 1;
    displs[j] = 2 * nb * j / 2 + j;  /* increasing, with gaps */
  }
  int two[2] = {value(group, lrank), -value(group, lrank)};
  CHECK_RC(MPI_Gather(two, 2, MPI_INT, gathered, 2, MPI_INT, a_root, inter));
  if (a_root == MPI_ROOT) {
    for (int j = 0; j < nb; ++j) {
      CHECK(gathered[2 * j] == value(1, j) && gathered[2 * j + 1] == -value(1, j), "gather block %d", j);
    }
  }
  int many[64];
  for (int i = 0; i < 64; ++i) many[i] = value(group, lrank) * 100 + i;
  for (int i = 0; i < 2 * nb * nb; ++i) gathered[i] = -7;
  /* Only the root's counts and displacements are significant: the others pass NULL. */
  const int a_is_root = a_root == MPI_ROOT, b_is_root = b_root == MPI_ROOT;
  CHECK_RC(MPI_Gatherv(many, group == 1 ? lrank + 1 : 0, MPI_INT, gathered, a_is_root ? counts : NULL,
                       a_is_root ? displs : NULL, MPI_INT, a_root, inter));
  if (a_root == MPI_ROOT) {
    for (int j = 0; j < nb; ++j) {
      for (int k = 0; k <= j; ++k) {
        CHECK(gathered[displs[j] + k] == value(1, j) * 100 + k, "gatherv block %d element %d: %d", j, k,
              gathered[displs[j] + k]);
      }
    }
  }

  const int na = size_of(0);
  int* table = malloc(sizeof(int) * (4 * (size_t)na * (size_t)na + 4));
  int* acounts = malloc(sizeof(int) * (size_t)na);
  int* adispls = malloc(sizeof(int) * (size_t)na);
  for (int i = 0; i < na; ++i) {
    acounts[i] = (i % 3) + 1;
    adispls[i] = 3 * (na - 1 - i);  /* reversed order in the buffer */
  }
  for (int i = 0; i < 4 * na * na + 4; ++i) table[i] = 5000 + i;
  int got[4] = {-1, -1, -1, -1};
  CHECK_RC(MPI_Scatter(table, 2, MPI_INT, got, 2, MPI_INT, b_root, inter));
  if (group == 0) CHECK(got[0] == 5000 + 2 * lrank && got[1] == 5001 + 2 * lrank, "scatter gave %d %d", got[0], got[1]);
  got[0] = got[1] = got[2] = -1;
  CHECK_RC(MPI_Scatterv(table, b_is_root ? acounts : NULL, b_is_root ? adispls : NULL, MPI_INT, got,
                        group == 0 ? acounts[lrank] : 0, MPI_INT, b_root, inter));
  if (group == 0) {
    for (int k = 0; k < acounts[lrank]; ++k) {
      CHECK(got[k] == 5000 + adispls[lrank] + k, "scatterv element %d: %d", k, got[k]);
    }
  }
  free(gathered);
  free(counts);
  free(displs);
  free(table);
  free(acounts);
  free(adispls);
}

static void check_unrooted(MPI_Comm inter) {
  const int v = value(group, lrank);
  /* Barrier and Allreduce: each group gets the other's sum. */
  CHECK_RC(MPI_Barrier(inter));
  int sum = 0, want = 0;
  for (int r = 0; r < rsize; ++r) want += value(1 - group, r);
  CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK(sum == want, "allreduce gave %d, expected %d", sum, want);

  /* A non-commutative operation: the remote ranks' maps composed in rank order. */
  MPI_Op op;
  MPI_Datatype pair;
  CHECK_RC(MPI_Op_create(compose, 0, &op));
  CHECK_RC(MPI_Type_contiguous(2, MPI_LONG_LONG, &pair));
  CHECK_RC(MPI_Type_commit(&pair));
  long long map[2] = {v % 5 + 2, v}, composed[2] = {0, 0}, expect[2] = {1, 0};
  for (int r = 0; r < rsize; ++r) {
    const long long a = value(1 - group, r) % 5 + 2, b = value(1 - group, r);
    /* expect = expect o (a, b) */
    expect[1] = expect[0] * b + expect[1];
    expect[0] = expect[0] * a;
  }
  CHECK_RC(MPI_Allreduce(map, composed, 1, pair, op, inter));
  CHECK(composed[0] == expect[0] && composed[1] == expect[1], "composition gave (%lld, %lld), expected (%lld, %lld)",
        composed[0], composed[1], expect[0], expect[1]);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);

  /* Allgather(v). */
  int* all = malloc(sizeof(int) * 2 * (size_t)rsize * (size_t)rsize + 8);
  int two[2] = {v, -v};
  CHECK_RC(MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j) {
    CHECK(all[2 * j] == value(1 - group, j) && all[2 * j + 1] == -value(1 - group, j), "allgather block %d", j);
  }
  int* counts = malloc(sizeof(int) * (size_t)rsize);
  int* displs = malloc(sizeof(int) * (size_t)rsize);
  int at = 0;
  for (int j = 0; j < rsize; ++j) {
    counts[j] = j % 2 + 1;
    displs[j] = at;
    at += counts[j] + 1;
  }
  int mine[2] = {v, v + 1};
  CHECK_RC(MPI_Allgatherv(mine, lrank % 2 + 1, MPI_INT, all, counts, displs, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j) {
    for (int k = 0; k < counts[j]; ++k) CHECK(all[displs[j] + k] == value(1 - group, j) + k, "allgatherv %d.%d", j, k);
  }

  /* Alltoall(v, w): block j to remote rank j. */
  int* out = malloc(sizeof(int) * 2 * (size_t)rsize);
  int* in = malloc(sizeof(int) * 2 * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) out[j] = v * 1000 + j;
  CHECK_RC(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j) CHECK(in[j] == value(1 - group, j) * 1000 + lrank, "alltoall block %d: %d", j, in[j]);
  int* sdispls = malloc(sizeof(int) * (size_t)rsize);
  int* ones = malloc(sizeof(int) * (size_t)rsize);
  int* rdispls = malloc(sizeof(int) * (size_t)rsize);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)rsize);
  for (int j = 0; j < rsize; ++j) {
    ones[j] = 1;
    sdispls[j] = rsize - 1 - j;  /* reversed */
    rdispls[j] = j;
    types[j] = MPI_INT;
    out[rsize - 1 - j] = v * 1000 + j;
  }
  CHECK_RC(MPI_Alltoallv(out, ones, sdispls, MPI_INT, in, ones, rdispls, MPI_INT, inter));
  for (int j = 0; j < rsize; ++j) CHECK(in[j] == value(1 - group, j) * 1000 + lrank, "alltoallv block %d", j);
  for (int j = 0; j < rsize; ++j) {
    sdispls[j] = (int)sizeof(int) * (rsize - 1 - j);
    rdispls[j] = (int)sizeof(int) * j;
    in[j] = -1;
  }
  CHECK_RC(MPI_Alltoallw(out, ones, sdispls, types, in, ones, rdispls, types, inter));
  for (int j = 0; j < rsize; ++j) CHECK(in[j] == value(1 - group, j) * 1000 + lrank, "alltoallw block %d", j);

  /* Reduce_scatter_block: each group provides lsize * rsize elements. */
  const int total = lsize * rsize;
  int* vec = malloc(sizeof(int) * (size_t)total);
  int* res = malloc(sizeof(int) * (size_t)total);
  for (int e = 0; e < total; ++e) vec[e] = v * 10 + e;
  CHECK_RC(MPI_Reduce_scatter_block(vec, res, rsize, MPI_INT, MPI_SUM, inter));
  for (int k = 0; k < rsize; ++k) {
    const int e = lrank * rsize + k;
    int w = 0;
    for (int r = 0; r < rsize; ++r) w += value(1 - group, r) * 10 + e;
    CHECK(res[k] == w, "reduce_scatter_block element %d: %d, expected %d", e, res[k], w);
  }
  /* Reduce_scatter: varying counts over the same 2 * lsize * rsize elements. */
  const int big = 2 * lsize * rsize;
  int* rcounts = malloc(sizeof(int) * (size_t)lsize);
  int given = 0;
  for (int i = 0; i < lsize - 1; ++i) {
    rcounts[i] = i;
    given += i;
  }
  rcounts[lsize - 1] = big - given;
  int* bigvec = malloc(sizeof(int) * (size_t)big);
  int* bigres = malloc(sizeof(int) * (size_t)big);
  for (int e = 0; e < big; ++e) bigvec[e] = v + e;
  CHECK_RC(MPI_Reduce_scatter(bigvec, bigres, rcounts, MPI_INT, MPI_SUM, inter));
  int first = 0;
  for (int i = 0; i < lrank; ++i) first += rcounts[i];
  for (int k = 0; k < rcounts[lrank]; ++k) {
    int w = 0;
    for (int r = 0; r < rsize; ++r) w += value(1 - group, r) + first + k;
    CHECK(bigres[k] == w, "reduce_scatter element %d: %d, expected %d", first + k, bigres[k], w);
  }

  /* Nonblocking: three at once. */
  MPI_Request reqs[3];
  int bval = group == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int token = bval == MPI_ROOT ? 4242 : -1, nsum = 0;
  CHECK_RC(MPI_Ibcast(&token, 1, MPI_INT, bval, inter, &reqs[0]));
  CHECK_RC(MPI_Iallreduce(&v, &nsum, 1, MPI_INT, MPI_SUM, inter, &reqs[1]));
  for (int j = 0; j < rsize; ++j) out[j] = v * 1000 + j;
  CHECK_RC(MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter, &reqs[2]));
  CHECK_RC(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
  if (group == 1) CHECK(token == 4242, "ibcast gave %d", token);
  CHECK(nsum == want, "iallreduce gave %d, expected %d", nsum, want);
  for (int j = 0; j < rsize; ++j) CHECK(in[j] == value(1 - group, j) * 1000 + lrank, "ialltoall block %d", j);

  free(all);
  free(counts);
  free(displs);
  free(out);
  free(in);
  free(sdispls);
  free(ones);
  free(rdispls);
  free(types);
  free(vec);
  free(res);
  free(rcounts);
  free(bigvec);
  free(bigres);
}

/* The merged communicator holds `first`'s group, then the other. */
static void check_merge(MPI_Comm inter, int high, int first) {
  MPI_Comm merged;
  CHECK_RC(MPI_Intercomm_merge(inter, high, &merged));
  int flag = 1, n = 0, r = -1;
  CHECK_RC(MPI_Comm_test_inter(merged, &flag));
  CHECK(flag == 0, "a merged communicator is an intracommunicator");
  CHECK_RC(MPI_Comm_size(merged, &n));
  CHECK(n == wsize, "merged size %d", n);
  CHECK_RC(MPI_Comm_rank(merged, &r));
  if (first >= 0) {
    const int want = group == first ? lrank : size_of(first) + lrank;
    CHECK(r == want, "merged rank %d, expected %d (high %d)", r, want, high);
  }
  /* Every rank sees the same order, and it is one group then the other. */
  int* order = malloc(sizeof(int) * (size_t)wsize);
  CHECK_RC(MPI_Allgather(&wrank, 1, MPI_INT, order, 1, MPI_INT, merged));
  CHECK(order[r] == wrank, "merged rank %d holds world rank %d", r, order[r]);
  const int g0 = order[0] % 2;
  for (int i = 0; i < wsize; ++i) {
    CHECK(order[i] % 2 == (i < size_of(g0) ? g0 : 1 - g0), "merged order mixes the groups at %d", i);
  }
  int sum = 0;
  CHECK_RC(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == wsize * (wsize - 1) / 2, "merged allreduce gave %d", sum);
  free(order);
  MPI_Comm_free(&merged);
}

static void check_derived(MPI_Comm inter) {
  int result = -1;
  MPI_Comm dup, idup;
  CHECK_RC(MPI_Comm_dup(inter, &dup));
  CHECK_RC(MPI_Comm_compare(inter, dup, &result));
  CHECK(result == MPI_CONGRUENT, "compare(inter, dup) = %d", result);
  CHECK_RC(MPI_Comm_compare(inter, inter, &result));
  CHECK(result == MPI_IDENT, "compare(inter, inter) = %d", result);
  CHECK_RC(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_UNEQUAL, "compare(inter, world) = %d", result);
  check_basics(dup);
  /* A message on the dup does not match a receive on the original. */
  int x = 11, y = -1, flag = 1;
  MPI_Request rq;
  CHECK_RC(MPI_Irecv(&y, 1, MPI_INT, 0, 3, inter, &rq));
  if (lrank == 0) CHECK_RC(MPI_Send(&x, 1, MPI_INT, 0, 3, dup));
  if (lrank == 0) {
    CHECK_RC(MPI_Recv(&y, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE));
    CHECK(y == 11, "dup message %d", y);
  }
  CHECK_RC(MPI_Barrier(dup));
  CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0, "a message on the dup matched a receive on the original");
  CHECK_RC(MPI_Cancel(&rq));
  CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  check_unrooted(dup);
  MPI_Comm_free(&dup);

  MPI_Request req;
  CHECK_RC(MPI_Comm_idup(inter, &idup, &req));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  check_basics(idup);
  check_unrooted(idup);
  MPI_Comm_free(&idup);

  /* Split by parity of the local rank, keys reversed. */
  MPI_Comm part;
  const int color = lrank % 2;
  CHECK_RC(MPI_Comm_split(inter, color, -lrank, &part));
  const int here = (lsize - color + 1) / 2, there = (rsize - color + 1) / 2;
  if (there == 0) {
    CHECK(part == MPI_COMM_NULL, "split with an empty remote part gave a communicator");
  } else {
    CHECK(part != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
    int n = 0, r = -1;
    CHECK_RC(MPI_Comm_size(part, &n));
    CHECK(n == here, "split local size %d, expected %d", n, here);
    CHECK_RC(MPI_Comm_remote_size(part, &n));
    CHECK(n == there, "split remote size %d, expected %d", n, there);
    CHECK_RC(MPI_Comm_rank(part, &r));
    CHECK(r == here - 1 - lrank / 2, "split rank %d (reversed keys)", r);
    int sum = 0;
    CHECK_RC(MPI_Allreduce(&lrank, &sum, 1, MPI_INT, MPI_SUM, part));
    int wsum = 0;
    for (int j = color; j < rsize; j += 2) wsum += j;
    CHECK(sum == wsum, "split allreduce gave %d, expected %d", sum, wsum);
    MPI_Comm_free(&part);
  }

  /* Create from every local rank but 0. */
  MPI_Group local, sub;
  CHECK_RC(MPI_Comm_group(inter, &local));
  const int zero = 0;
  CHECK_RC(MPI_Group_excl(local, 1, &zero, &sub));
  MPI_Comm made;
  CHECK_RC(MPI_Comm_create(inter, sub, &made));
  if (lsize == 1 || rsize == 1 || lrank == 0) {
    CHECK(made == MPI_COMM_NULL, "create gave a communicator to a rank outside it");
  } else {
    int n = 0;
    CHECK_RC(MPI_Comm_remote_size(made, &n));
    CHECK(n == rsize - 1, "created remote size %d", n);
    CHECK_RC(MPI_Barrier(made));
    MPI_Comm_free(&made);
  }
  MPI_Group_free(&sub);
  MPI_Group_free(&local);
}

static void check_errors(MPI_Comm inter) {
  int x = 0, y = 0;
  CHECK_RC(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Bcast(&x, 1, MPI_INT, 99, inter), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, rsize, 0, inter), MPI_ERR_RANK);
  MPI_Comm bad;
  CHECK_CLASS(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &bad), MPI_ERR_COMM);
  int n;
  CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
  int dims[1] = {lsize}, periods[1] = {0};
  CHECK_CLASS(MPI_Cart_create(inter, 1, dims, periods, 0, &bad), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 1, 0, &bad), MPI_ERR_COMM);
  int status = 0;
  CHECK_RC(MPI_Topo_test(inter, &status));
  CHECK(status == MPI_UNDEFINED, "an intercommunicator has no topology");
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize >= 2, "needs at least 2 ranks");
  group = wrank % 2;
  lrank = wrank / 2;
  lsize = size_of(group);
  rsize = size_of(1 - group);
  MPI_Comm local, inter;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, group, wrank, &local));
  /* The leaders: each group's rank 0, world ranks 0 and 1. */
  CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - group, 77, &inter));
  check_basics(inter);
  check_pt2pt(inter);
  check_rooted(inter);
  check_unrooted(inter);
  check_merge(inter, group, 0);     /* A low: A first */
  check_merge(inter, 1 - group, 1); /* B low: B first */
  check_merge(inter, 1, -1);        /* the same: either, as long as all agree */
  check_derived(inter);
  check_errors(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 0) printf("intercomm ok: %d ranks\n", wsize);
  MPI_Finalize();
  return 0;
}
