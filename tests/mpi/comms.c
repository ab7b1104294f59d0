/*
 * Groups, communicators, attributes, info objects and Cartesian topologies:
 * construction, rank mapping, isolation of traffic between communicators,
 * comparison, names, error handlers, keyvals with copy and delete callbacks.
 *   comms        (any number of ranks >= 2)
 */
#include "mpitest.h"

static int rank, size;

static void test_groups(void) {
  MPI_Group world, evens, odds, both, none, rev;
  CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int n = -1, r = -1;
  CHECK_RC(MPI_Group_size(world, &n));
  CHECK_RC(MPI_Group_rank(world, &r));
  CHECK(n == size && r == rank, "world group size %d rank %d", n, r);
  int ranges[1][3] = {{0, size - 1, 2}};
  CHECK_RC(MPI_Group_range_incl(world, 1, ranges, &evens));
  CHECK_RC(MPI_Group_difference(world, evens, &odds));
  CHECK_RC(MPI_Group_size(evens, &n));
  CHECK(n == (size + 1) / 2, "evens has %d ranks", n);
  CHECK_RC(MPI_Group_rank(evens, &r));
  CHECK(r == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "rank in evens %d", r);
  CHECK_RC(MPI_Group_union(odds, evens, &both));
  int result = -1;
  CHECK_RC(MPI_Group_compare(both, world, &result));
  CHECK(result == MPI_SIMILAR, "union of odds and evens vs world: %d", result);
  CHECK_RC(MPI_Group_intersection(odds, evens, &none));
  CHECK(none == MPI_GROUP_EMPTY, "intersection of odds and evens is not MPI_GROUP_EMPTY");
  /* Reverse order, and translation between groups. */
  int *order = (int *)mt_alloc((size_t)size * sizeof(int)), *back = (int *)mt_alloc((size_t)size * sizeof(int));
  for (int i = 0; i < size; ++i) order[i] = size - 1 - i;
  CHECK_RC(MPI_Group_incl(world, size, order, &rev));
  CHECK_RC(MPI_Group_translate_ranks(rev, size, order, world, back));
  for (int i = 0; i < size; ++i) CHECK(back[i] == i, "translate: rev rank %d -> world %d", order[i], back[i]);
  CHECK_RC(MPI_Group_compare(rev, world, &result));
  CHECK(result == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed group vs world: %d", result);
  /* Bad arguments come back as error classes under MPI_ERRORS_RETURN. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad[2] = {0, 0};
  MPI_Group g;
  CHECK_CLASS(MPI_Group_incl(world, 2, bad, &g), MPI_ERR_RANK);
  bad[0] = size;
  CHECK_CLASS(MPI_Group_incl(world, 1, bad, &g), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Group_size(12345, &n), MPI_ERR_GROUP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&both);
  MPI_Group_free(&rev);
  MPI_Group_free(&world);
  CHECK(world == MPI_GROUP_NULL, "MPI_Group_free left the handle");
  free(order);
  free(back);
}

/* Messages on one communicator never match receives on another, even with
   the same source and tag. */
static void test_isolation(void) {
  MPI_Comm dup;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int result = -1;
  CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT, "dup compares %d", result);
  CHECK_RC(MPI_Comm_compare(dup, dup, &result));
  CHECK(result == MPI_IDENT, "self compare %d", result);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int a = 100 + rank, b = 200 + rank, got_a = -1, got_b = -1;
  MPI_Request reqs[2];
  /* Post the receive on dup first: the world message must not land in it. */
  CHECK_RC(MPI_Irecv(&got_b, 1, MPI_INT, prev, 5, dup, &reqs[0]));
  CHECK_RC(MPI_Irecv(&got_a, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &reqs[1]));
  CHECK_RC(MPI_Send(&a, 1, MPI_INT, next, 5, MPI_COMM_WORLD));
  CHECK_RC(MPI_Send(&b, 1, MPI_INT, next, 5, dup));
  CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK(got_a == 100 + prev && got_b == 200 + prev, "world got %d, dup got %d", got_a, got_b);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world is named '%s'", name);
  CHECK_RC(MPI_Comm_set_name(dup, "my duplicate"));
  CHECK_RC(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "my duplicate") == 0, "dup is named '%s'", name);
  CHECK_RC(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free left the handle");
}

static void test_split(void) {
  /* Three colors, keys reversing the order, one rank left out. */
  const int color = rank == size - 1 && size > 2 ? MPI_UNDEFINED : rank % 3;
  MPI_Comm part;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &part));
  if (color == MPI_UNDEFINED) {
    CHECK(part == MPI_COMM_NULL, "MPI_UNDEFINED color got a communicator");
  } else {
    int psize, prank, expect_size = 0, expect_rank = 0;
    for (int r = 0; r < size; ++r) {
      const int c = r == size - 1 && size > 2 ? MPI_UNDEFINED : r % 3;
      if (c != color) continue;
      ++expect_size;
      if (r > rank) ++expect_rank; /* larger world ranks have smaller keys */
    }
    MPI_Comm_size(part, &psize);
    MPI_Comm_rank(part, &prank);
    CHECK(psize == expect_size && prank == expect_rank, "split: size %d rank %d, expected %d %d", psize, prank,
          expect_size, expect_rank);
    /* The part's rank 0 is the largest world rank of the color. */
    int top = rank;
    CHECK_RC(MPI_Bcast(&top, 1, MPI_INT, 0, part));
    int want = -1;
    for (int r = 0; r < size; ++r) {
      const int c = r == size - 1 && size > 2 ? MPI_UNDEFINED : r % 3;
      if (c == color) want = r;
    }
    CHECK(top == want, "split: part's rank 0 is world rank %d, expected %d", top, want);
    MPI_Comm_free(&part);
  }
  /* split_type SHARED: the ranks of this rank's node, which share its
     processor name (the node's name; mpfrun --virtual-nodes names each
     virtual node). */
  MPI_Comm node;
  CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int nsize;
  MPI_Comm_size(node, &nsize);
  char name[MPI_MAX_PROCESSOR_NAME] = {0};
  int length;
  MPI_Get_processor_name(name, &length);
  char* names = malloc((size_t)size * MPI_MAX_PROCESSOR_NAME);
  CHECK(names != NULL, "out of memory");
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
  int expected = 0;
  for (int r = 0; r < size; ++r) expected += strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, name) == 0;
  free(names);
  CHECK(nsize == expected, "shared split has %d ranks, expected %d", nsize, expected);
  MPI_Comm_free(&node);
}

static void test_create(void) {
  MPI_Group world, evens;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ranges[1][3] = {{0, size - 1, 2}};
  MPI_Group_range_incl(world, 1, ranges, &evens);
  MPI_Comm ec;
  CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, evens, &ec));
  CHECK((rank % 2 == 0) == (ec != MPI_COMM_NULL), "MPI_Comm_create membership");
  if (rank % 2 == 0) {
    int sum = 0, one = 1;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ec));
    CHECK(sum == (size + 1) / 2, "allreduce on the created communicator: %d", sum);
    /* Only the group's members take part in MPI_Comm_create_group; twice
       with the same tag, to see repeated calls apart. */
    for (int k = 0; k < 2; ++k) {
      MPI_Comm g;
      CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &g));
      int gsize;
      MPI_Comm_size(g, &gsize);
      CHECK(gsize == (size + 1) / 2, "create_group size %d", gsize);
      CHECK_RC(MPI_Barrier(g));
      MPI_Comm_free(&g);
    }
    MPI_Comm_free(&ec);
  }
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
}

static int copies, deletes;
static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)comm; (void)keyval;
  CHECK(extra == &copies, "copy callback got the wrong extra_state");
  ++copies;
  *(void **)out = (char *)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm; (void)keyval; (void)value; (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}

static void test_attributes(void) {
  int *tag_ub = NULL, flag = 0;
  CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767, "MPI_TAG_UB: flag %d", flag);
  int *universe = NULL;
  CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag));
  CHECK(flag && *universe == size, "MPI_UNIVERSE_SIZE");
  int *global = NULL;
  CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag));
  CHECK(flag, "MPI_WTIME_IS_GLOBAL is not set");
  int key, nocopy;
  static char base[4];
  CHECK_RC(MPI_Comm_create_keyval(copy_fn, delete_fn, &key, &copies));
  CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &nocopy, NULL));
  MPI_Comm a, b;
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  CHECK_RC(MPI_Comm_set_attr(a, key, base));
  CHECK_RC(MPI_Comm_set_attr(a, nocopy, base));
  CHECK_RC(MPI_Comm_dup(a, &b));
  void *v = NULL;
  CHECK_RC(MPI_Comm_get_attr(b, key, &v, &flag));
  CHECK(flag && v == base + 1 && copies == 1, "copied attribute: flag %d, copies %d", flag, copies);
  CHECK_RC(MPI_Comm_get_attr(b, nocopy, &v, &flag));
  CHECK(!flag, "MPI_COMM_NULL_COPY_FN attribute was copied");
  CHECK_RC(MPI_Comm_free(&b));
  CHECK(deletes == 1, "delete callbacks after freeing the dup: %d", deletes);
  CHECK_RC(MPI_Comm_delete_attr(a, key));
  CHECK(deletes == 2, "delete callbacks after delete_attr: %d", deletes);
  CHECK_RC(MPI_Comm_get_attr(a, key, &v, &flag));
  CHECK(!flag, "deleted attribute still there");
  CHECK_RC(MPI_Comm_free(&a));
  CHECK_RC(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID, "free_keyval left the keyval");
  MPI_Comm_free_keyval(&nocopy);
}

static void test_info(void) {
  MPI_Info info, copy;
  CHECK_RC(MPI_Info_create(&info));
  CHECK_RC(MPI_Info_set(info, "alpha", "1"));
  CHECK_RC(MPI_Info_set(info, "beta", "two"));
  CHECK_RC(MPI_Info_set(info, "alpha", "one"));
  int n = 0, flag = 0, len = 0;
  CHECK_RC(MPI_Info_get_nkeys(info, &n));
  CHECK(n == 2, "info has %d keys", n);
  char key[MPI_MAX_INFO_KEY + 1], value[16];
  CHECK_RC(MPI_Info_get_nthkey(info, 1, key));
  CHECK(strcmp(key, "beta") == 0, "second key '%s'", key);
  CHECK_RC(MPI_Info_get(info, "alpha", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "one") == 0, "alpha = '%s'", value);
  CHECK_RC(MPI_Info_get_valuelen(info, "beta", &len, &flag));
  CHECK(flag && len == 3, "beta's length %d", len);
  CHECK_RC(MPI_Info_dup(info, &copy));
  CHECK_RC(MPI_Info_delete(info, "alpha"));
  CHECK_RC(MPI_Info_get(info, "alpha", sizeof value - 1, value, &flag));
  CHECK(!flag, "deleted key still there");
  CHECK_RC(MPI_Info_get(copy, "alpha", sizeof value - 1, value, &flag));
  CHECK(flag, "the dup lost a key");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Info_delete(info, "nothing"), MPI_ERR_INFO_NOKEY);
  CHECK_CLASS(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_RC(MPI_Info_free(&info));
  CHECK_RC(MPI_Info_free(&copy));
  CHECK(info == MPI_INFO_NULL, "MPI_Info_free left the handle");
}

static void test_cart(void) {
  int dims[2] = {0, 0};
  CHECK_RC(MPI_Dims_create(size, 2, dims));
  CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims_create %d x %d", dims[0], dims[1]);
  int d3[3] = {0, 3, 0};
  if (size % 3 == 0) {
    CHECK_RC(MPI_Dims_create(size, 3, d3));
    CHECK(d3[1] == 3 && d3[0] * d3[1] * d3[2] == size, "dims_create with a fixed dimension");
  }
  int d12[2] = {0, 0};
  MPI_Dims_create(12, 2, d12);
  CHECK(d12[0] == 4 && d12[1] == 3, "dims_create(12, 2) = %d x %d", d12[0], d12[1]);
  /* As close to each other as possible: 72 in 2 is 9 x 8, not 12 x 6. */
  const int balanced[][5] = {{72, 2, 9, 8, 0}, {240, 2, 16, 15, 0}, {72, 3, 6, 4, 3}, {64, 3, 4, 4, 4}, {7, 2, 7, 1, 0}};
  for (int k = 0; k < 5; ++k) {
    int d[3] = {0, 0, 0};
    CHECK_RC(MPI_Dims_create(balanced[k][0], balanced[k][1], d));
    for (int i = 0; i < balanced[k][1]; ++i) {
      CHECK(d[i] == balanced[k][2 + i], "dims_create(%d, %d): dimension %d is %d, expected %d", balanced[k][0],
            balanced[k][1], i, d[i], balanced[k][2 + i]);
    }
  }
  int periods[2] = {1, 0};
  MPI_Comm cart;
  CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  int status = -1, coords[2], back = -1;
  CHECK_RC(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "topo_test %d", status);
  CHECK_RC(MPI_Cart_coords(cart, rank, 2, coords));
  CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1], "coords of %d: (%d, %d)", rank, coords[0], coords[1]);
  CHECK_RC(MPI_Cart_rank(cart, coords, &back));
  CHECK(back == rank, "cart_rank gives %d", back);
  int src, dst;
  CHECK_RC(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "periodic shift dest %d", dst);
  CHECK_RC(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  CHECK(dst == (coords[1] + 1 < dims[1] ? rank + 1 : MPI_PROC_NULL), "non-periodic shift dest %d", dst);
  CHECK(src == (coords[1] > 0 ? rank - 1 : MPI_PROC_NULL), "non-periodic shift source %d", src);
  int remain[2] = {0, 1};
  MPI_Comm row;
  CHECK_RC(MPI_Cart_sub(cart, remain, &row));
  int rsize, rrank;
  MPI_Comm_size(row, &rsize);
  MPI_Comm_rank(row, &rrank);
  CHECK(rsize == dims[1] && rrank == coords[1], "cart_sub row: size %d rank %d", rsize, rrank);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
}

static int handler_calls;
static void handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  CHECK(*code == MPI_ERR_RANK, "handler got error %d", *code);
  ++handler_calls;
}

static void test_errhandler(void) {
  MPI_Errhandler eh;
  CHECK_RC(MPI_Comm_create_errhandler(handler, &eh));
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  CHECK_RC(MPI_Comm_set_errhandler(dup, eh));
  int x = 0;
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup), MPI_ERR_RANK);
  CHECK(handler_calls == 1, "user error handler called %d times", handler_calls);
  CHECK_RC(MPI_Comm_call_errhandler(dup, MPI_ERR_RANK));
  CHECK(handler_calls == 2, "MPI_Comm_call_errhandler: handler called %d times", handler_calls);
  int inter = 1;
  CHECK_RC(MPI_Comm_test_inter(dup, &inter));
  CHECK(inter == 0, "an intracommunicator says it is an intercommunicator");
  MPI_Errhandler got;
  MPI_Comm_get_errhandler(dup, &got);
  CHECK(got == eh, "get_errhandler");
  MPI_Comm_free(&dup);
  /* MPI_Comm_free of a predefined communicator is an error. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK_CLASS(MPI_Comm_free(&world), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allreduce(&x, &got, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_CLASS(MPI_Allreduce(&x, &got, 1, MPI_INT, 77, MPI_COMM_WORLD), MPI_ERR_OP);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* MPI_Comm_idup, then a blocking MPI_Comm_dup before the first completes:
   distinct context ids (traffic stays apart), attributes copied. */
static void test_idup(void) {
  MPI_Comm a, b;
  MPI_Request req;
  int key;
  static char mark;
  CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
  CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &mark));
  CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &a, &req));
  CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &b));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int x = rank, y = rank + 100, got_x = -1, got_y = -1;
  MPI_Request r[2];
  CHECK_RC(MPI_Irecv(&got_y, 1, MPI_INT, prev, 0, b, &r[0]));
  CHECK_RC(MPI_Irecv(&got_x, 1, MPI_INT, prev, 0, a, &r[1]));
  CHECK_RC(MPI_Send(&x, 1, MPI_INT, next, 0, a));
  CHECK_RC(MPI_Send(&y, 1, MPI_INT, next, 0, b));
  CHECK_RC(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  CHECK(got_x == prev && got_y == prev + 100, "idup/dup traffic mixed: %d %d", got_x, got_y);
  void *v = NULL;
  int flag = 0;
  CHECK_RC(MPI_Comm_get_attr(a, key, &v, &flag));
  CHECK(flag && v == &mark, "MPI_Comm_idup did not copy the attribute");
  int sum = 0;
  CHECK_RC(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, a));
  CHECK(sum == size * (size - 1) / 2, "allreduce on the idup'd communicator: %d", sum);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
  MPI_Comm_free_keyval(&key);
}

/* Many communicators created and freed: context ids are reused. */
static void test_many(void) {
  for (int i = 0; i < 5000; ++i) {
    MPI_Comm c;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_RC(MPI_Comm_free(&c));
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  test_groups();
  test_isolation();
  test_split();
  test_create();
  test_attributes();
  test_info();
  test_cart();
  test_errhandler();
  test_idup();
  test_many();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("comms ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
