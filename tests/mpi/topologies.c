/*
 * Process topologies beyond the Cartesian grid, and the neighbourhood
 * collectives (issue 29):
 *   - graphs (a ring, a star, fewer nodes than ranks): MPI_Graph_create, _get,
 *     _neighbors(_count), _map, MPI_Graphdims_get, at every rank for every node;
 *   - distributed graphs built both ways, weighted and unweighted, with
 *     edges given by their source, by their destination and all by one rank:
 *     every rank's neighbours and weights checked;
 *   - MPI_Cart_map, MPI_Topo_test, MPI_Comm_dup keeping a topology and
 *     MPI_Comm_split dropping it;
 *   - every neighbourhood collective, blocking and nonblocking (five in flight
 *     at once with a blocking one among them), on periodic, non-periodic and
 *     mixed grids (periodic dimensions of size 1 and 2 included), the graphs
 *     and the distributed graphs, with contiguous and strided datatypes: every
 *     element of every receive buffer checked, the blocks of MPI_PROC_NULL
 *     neighbours and the gaps between blocks untouched; blocks of 256 KiB
 *     (rendezvous) too;
 *   - the error classes: no topology, bad edges at one rank, the wrong kind
 *     of topology, truncated blocks (blocking, and at MPI_Wait).
 *   topologies   (any number of ranks >= 1, at most MAXN)
 */
#include "mpitest.h"

#define MAXN 64
#define GUARD (-1)
#define UNSENT 999 /* in send buffers where no data must be taken from */

static int rank, size;
static MPI_Datatype strided; /* two ints with one between them (extent 3 ints) */

/* ---- neighbourhoods -------------------------------------------------- */

/* This rank's neighbours in a topology, and for each block it receives,
   which of its sender's blocks lands there. */
typedef struct {
  int nin, nout;
  int sources[MAXN], dests[MAXN];
  int from_block[MAXN];
} Hood;

/* The block of a sender (whose destinations are `dests`) that lands in this
   rank's block k: the m-th of its blocks to this rank, m counting this
   rank's earlier blocks from the same sender (messages between two ranks do
   not overtake each other). */
static int matching_block(const Hood *h, int k, const int *dests, int ndests, int me) {
  int m = 0;
  for (int j = 0; j < k; ++j) m += h->sources[j] == h->sources[k];
  for (int j = 0; j < ndests; ++j) {
    if (dests[j] == me && m-- == 0) return j;
  }
  CHECK(0, "rank %d receives block %d from %d, which sends this rank too few blocks", me, k, h->sources[k]);
  return -1;
}

/* A grid: per dimension the -1 then the +1 neighbour, and a block sent to
   the -1 side arrives on the receiver's +1 side (MPI-3.1 §7.6). */
static void cart_hood(MPI_Comm comm, Hood *h) {
  int ndims = -1;
  CHECK_RC(MPI_Cartdim_get(comm, &ndims));
  CHECK(2 * ndims <= MAXN, "%d dimensions", ndims);
  h->nin = h->nout = 2 * ndims;
  for (int d = 0; d < ndims; ++d) {
    CHECK_RC(MPI_Cart_shift(comm, d, 1, &h->sources[2 * d], &h->sources[2 * d + 1]));
  }
  for (int k = 0; k < h->nin; ++k) {
    h->dests[k] = h->sources[k];
    h->from_block[k] = k ^ 1;
  }
}

static void graph_hood(MPI_Comm comm, Hood *h) {
  int me, n = -1, theirs[MAXN];
  MPI_Comm_rank(comm, &me);
  CHECK_RC(MPI_Graph_neighbors_count(comm, me, &n));
  CHECK(n <= MAXN, "%d neighbours", n);
  CHECK_RC(MPI_Graph_neighbors(comm, me, MAXN, h->sources));
  h->nin = h->nout = n;
  for (int k = 0; k < n; ++k) {
    h->dests[k] = h->sources[k];
    int m = -1;
    CHECK_RC(MPI_Graph_neighbors_count(comm, h->sources[k], &m));
    CHECK_RC(MPI_Graph_neighbors(comm, h->sources[k], MAXN, theirs));
    h->from_block[k] = matching_block(h, k, theirs, m, me);
  }
}

/* A distributed graph: each rank knows only its own neighbours, so the
   senders' destination lists are gathered. */
static void dist_hood(MPI_Comm comm, Hood *h) {
  int me, weighted = -1, sw[MAXN], dw[MAXN];
  MPI_Comm_rank(comm, &me);
  CHECK_RC(MPI_Dist_graph_neighbors_count(comm, &h->nin, &h->nout, &weighted));
  CHECK(h->nin <= MAXN && h->nout <= MAXN, "in %d out %d", h->nin, h->nout);
  CHECK_RC(MPI_Dist_graph_neighbors(comm, h->nin, h->sources, sw, h->nout, h->dests, dw));
  int *outdeg = (int *)mt_alloc((size_t)size * sizeof(int)), *displs = (int *)mt_alloc((size_t)size * sizeof(int));
  CHECK_RC(MPI_Allgather(&h->nout, 1, MPI_INT, outdeg, 1, MPI_INT, comm));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += outdeg[r];
  }
  int *all = (int *)mt_alloc((size_t)total * sizeof(int));
  CHECK_RC(MPI_Allgatherv(h->dests, h->nout, MPI_INT, all, outdeg, displs, MPI_INT, comm));
  for (int k = 0; k < h->nin; ++k) {
    const int s = h->sources[k];
    h->from_block[k] = matching_block(h, k, all + displs[s], outdeg[s], me);
  }
  free(all);
  free(displs);
  free(outdeg);
}

/* ---- the neighbourhood collectives ----------------------------------- */

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, KINDS };
static const char *const kind_names[KINDS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

/* Element i of block `block` that `sender` sends in call `call`. */
static int value(int call, int sender, int block, int i) { return ((call * 64 + sender) * 64 + block) * 64 + i; }

/* One call: its buffers and arguments. */
typedef struct {
  int kind, call, me;
  MPI_Comm comm;
  const Hood *h;
  int *send, *recv;
  int recv_len;
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
  MPI_Aint sbytes[MAXN], rbytes[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN];
} Case;

static int next_call;

static int *ints(int n, int fill) {
  int *p = (int *)mt_alloc((size_t)(n > 0 ? n : 1) * sizeof(int));
  for (int i = 0; i < n; ++i) p[i] = fill;
  return p;
}

/* Blocks of counts[k] ints laid out last block first, one unused int after
   each; returns the ints taken. */
static int reversed_layout(int n, const int *counts, int *displs) {
  int at = 0;
  for (int k = n - 1; k >= 0; --k) {
    displs[k] = at;
    at += counts[k] + 1;
  }
  return at;
}

static void setup(Case *c, int kind, MPI_Comm comm, const Hood *h) {
  const int nin = h->nin, nout = h->nout;
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->call = ++next_call;
  c->comm = comm;
  c->h = h;
  MPI_Comm_rank(comm, &c->me);
  switch (kind) {
    case ALLGATHER: /* one strided element (two ints) out, two ints in per block */
      c->send = ints(3, UNSENT);
      c->send[0] = value(c->call, c->me, 0, 0);
      c->send[2] = value(c->call, c->me, 0, 1);
      c->recv_len = 2 * nin;
      break;
    case ALLGATHERV: /* 1 to 3 ints per sender, blocks last first */
      c->scounts[0] = 1 + c->me % 3;
      c->send = ints(c->scounts[0], 0);
      for (int i = 0; i < c->scounts[0]; ++i) c->send[i] = value(c->call, c->me, 0, i);
      for (int k = 0; k < nin; ++k) c->rcounts[k] = h->sources[k] == MPI_PROC_NULL ? 2 : 1 + h->sources[k] % 3;
      c->recv_len = reversed_layout(nin, c->rcounts, c->rdispls);
      break;
    case ALLTOALL: /* three ints per block */
      c->send = ints(3 * nout, 0);
      for (int j = 0; j < nout; ++j) {
        for (int i = 0; i < 3; ++i) c->send[3 * j + i] = value(c->call, c->me, j, i);
      }
      c->recv_len = 3 * nin;
      break;
    case ALLTOALLV: { /* 1 to 3 ints per block, blocks last first with gaps */
      for (int j = 0; j < nout; ++j) c->scounts[j] = 1 + (j + c->me) % 3;
      c->send = ints(reversed_layout(nout, c->scounts, c->sdispls), UNSENT);
      for (int j = 0; j < nout; ++j) {
        for (int i = 0; i < c->scounts[j]; ++i) c->send[c->sdispls[j] + i] = value(c->call, c->me, j, i);
      }
      for (int k = 0; k < nin; ++k) {
        const int s = h->sources[k];
        c->rcounts[k] = s == MPI_PROC_NULL ? 1 : 1 + (h->from_block[k] + s) % 3;
      }
      c->recv_len = reversed_layout(nin, c->rcounts, c->rdispls);
      break;
    }
    case ALLTOALLW: /* two ints per block, contiguous or strided, in 4-int regions */
      c->send = ints(4 * nout, UNSENT);
      for (int j = 0; j < nout; ++j) {
        const int odd = j % 2;
        c->stypes[j] = odd ? strided : MPI_INT;
        c->scounts[j] = odd ? 1 : 2;
        c->sbytes[j] = (MPI_Aint)(4 * j) * (MPI_Aint)sizeof(int);
        c->send[4 * j] = value(c->call, c->me, j, 0);
        c->send[4 * j + (odd ? 2 : 1)] = value(c->call, c->me, j, 1);
      }
      for (int k = 0; k < nin; ++k) {
        const int even = k % 2 == 0;
        c->rtypes[k] = even ? strided : MPI_INT;
        c->rcounts[k] = even ? 1 : 2;
        c->rbytes[k] = (MPI_Aint)(4 * (nin - 1 - k)) * (MPI_Aint)sizeof(int);
      }
      c->recv_len = 4 * nin;
      break;
  }
  c->recv = ints(c->recv_len, GUARD);
}

/* Starts (request != NULL) or runs the call. */
static void start(Case *c, MPI_Request *request) {
  int rc = MPI_SUCCESS;
  switch (c->kind) {
    case ALLGATHER:
      rc = request ? MPI_Ineighbor_allgather(c->send, 1, strided, c->recv, 2, MPI_INT, c->comm, request)
                   : MPI_Neighbor_allgather(c->send, 1, strided, c->recv, 2, MPI_INT, c->comm);
      break;
    case ALLGATHERV:
      rc = request ? MPI_Ineighbor_allgatherv(c->send, c->scounts[0], MPI_INT, c->recv, c->rcounts, c->rdispls, MPI_INT,
                                              c->comm, request)
                   : MPI_Neighbor_allgatherv(c->send, c->scounts[0], MPI_INT, c->recv, c->rcounts, c->rdispls, MPI_INT,
                                             c->comm);
      break;
    case ALLTOALL:
      rc = request ? MPI_Ineighbor_alltoall(c->send, 3, MPI_INT, c->recv, 3, MPI_INT, c->comm, request)
                   : MPI_Neighbor_alltoall(c->send, 3, MPI_INT, c->recv, 3, MPI_INT, c->comm);
      break;
    case ALLTOALLV:
      rc = request ? MPI_Ineighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->recv, c->rcounts, c->rdispls,
                                             MPI_INT, c->comm, request)
                   : MPI_Neighbor_alltoallv(c->send, c->scounts, c->sdispls, MPI_INT, c->recv, c->rcounts, c->rdispls,
                                            MPI_INT, c->comm);
      break;
    case ALLTOALLW:
      rc = request ? MPI_Ineighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->recv, c->rcounts, c->rbytes,
                                             c->rtypes, c->comm, request)
                   : MPI_Neighbor_alltoallw(c->send, c->scounts, c->sbytes, c->stypes, c->recv, c->rcounts, c->rbytes,
                                            c->rtypes, c->comm);
      break;
  }
  CHECK(rc == MPI_SUCCESS, "%s%s returned %d", request ? "MPI_Ineighbor_" : "MPI_Neighbor_", kind_names[c->kind], rc);
}

/* Every element of the receive buffer: the senders' data where blocks of
   real neighbours go, GUARD everywhere else. */
static void verify(Case *c, const char *where, const char *mode) {
  const Hood *h = c->h;
  int *want = ints(c->recv_len, GUARD);
  for (int k = 0; k < h->nin; ++k) {
    const int s = h->sources[k], b = h->from_block[k];
    if (s == MPI_PROC_NULL) continue;
    switch (c->kind) {
      case ALLGATHER:
        for (int i = 0; i < 2; ++i) want[2 * k + i] = value(c->call, s, 0, i);
        break;
      case ALLGATHERV:
        for (int i = 0; i < c->rcounts[k]; ++i) want[c->rdispls[k] + i] = value(c->call, s, 0, i);
        break;
      case ALLTOALL:
        for (int i = 0; i < 3; ++i) want[3 * k + i] = value(c->call, s, b, i);
        break;
      case ALLTOALLV:
        for (int i = 0; i < c->rcounts[k]; ++i) want[c->rdispls[k] + i] = value(c->call, s, b, i);
        break;
      case ALLTOALLW: {
        const int at = (int)(c->rbytes[k] / (MPI_Aint)sizeof(int));
        want[at] = value(c->call, s, b, 0);
        want[at + (k % 2 == 0 ? 2 : 1)] = value(c->call, s, b, 1);
        break;
      }
    }
  }
  for (int i = 0; i < c->recv_len; ++i) {
    CHECK(c->recv[i] == want[i], "%s, %s %s: element %d is %d, expected %d", where, mode, kind_names[c->kind], i,
          c->recv[i], want[i]);
  }
  free(want);
  free(c->send);
  free(c->recv);
}

/* An alltoall of blocks large enough to go by rendezvous (and, with the
   default tunables, by a single copy), blocking or not: every byte checked,
   those of MPI_PROC_NULL neighbours untouched. */
static void large_alltoall(MPI_Comm comm, const Hood *h, const char *where, int nonblocking) {
  const size_t bytes = 256 * 1024;
  const int call = ++next_call;
  int me;
  MPI_Comm_rank(comm, &me);
  char *send = (char *)mt_alloc(bytes * (size_t)h->nout), *recv = (char *)mt_alloc(bytes * (size_t)h->nin);
  for (int j = 0; j < h->nout; ++j) {
    mt_fill(send + (size_t)j * bytes, bytes, mt_seed((uint64_t)call, (uint64_t)me, (uint64_t)j, 0));
  }
  memset(recv, MT_GUARD, bytes * (size_t)h->nin);
  if (nonblocking) {
    MPI_Request req;
    CHECK_RC(MPI_Ineighbor_alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm, &req));
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_RC(MPI_Neighbor_alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, comm));
  }
  for (int k = 0; k < h->nin; ++k) {
    char what[200];
    snprintf(what, sizeof what, "%s, %s large alltoall, block %d from %d", where,
             nonblocking ? "nonblocking" : "blocking", k, h->sources[k]);
    if (h->sources[k] == MPI_PROC_NULL) {
      mt_untouched(recv + (size_t)k * bytes, bytes, what);
    } else {
      mt_verify(recv + (size_t)k * bytes, bytes,
                mt_seed((uint64_t)call, (uint64_t)h->sources[k], (uint64_t)h->from_block[k], 0), what);
    }
  }
  free(send);
  free(recv);
}

/* Every collective blocking, then all five nonblocking at once with a
   blocking one started while they are in flight, then large blocks. */
static void run_all(MPI_Comm comm, const Hood *h, const char *where) {
  Case cases[KINDS + 1];
  for (int kind = 0; kind < KINDS; ++kind) {
    setup(&cases[kind], kind, comm, h);
    start(&cases[kind], NULL);
    verify(&cases[kind], where, "blocking");
  }
  MPI_Request requests[KINDS];
  for (int kind = 0; kind < KINDS; ++kind) {
    setup(&cases[kind], kind, comm, h);
    start(&cases[kind], &requests[kind]);
  }
  setup(&cases[KINDS], ALLTOALL, comm, h);
  start(&cases[KINDS], NULL);
  CHECK_RC(MPI_Waitall(KINDS, requests, MPI_STATUSES_IGNORE));
  for (int kind = 0; kind <= KINDS; ++kind) {
    verify(&cases[kind], where, kind < KINDS ? "nonblocking" : "blocking among nonblocking");
  }
  large_alltoall(comm, h, where, 0);
  large_alltoall(comm, h, where, 1);
}

static void check_topo(MPI_Comm comm, int want, const char *what) {
  int status = -2;
  CHECK_RC(MPI_Topo_test(comm, &status));
  CHECK(status == want, "%s: MPI_Topo_test gives %d, expected %d", what, status, want);
}

/* ---- grids ------------------------------------------------------------ */

static void test_cart(void) {
  static const int configs[][4] = {{2, 1, 1, 0}, {2, 0, 0, 0}, {3, 1, 0, 1}, {1, 1, 0, 0}}; /* ndims, periods */
  for (size_t t = 0; t < sizeof configs / sizeof configs[0]; ++t) {
    const int ndims = configs[t][0];
    int dims[3] = {0, 0, 0}, periods[3] = {configs[t][1], configs[t][2], configs[t][3]};
    CHECK_RC(MPI_Dims_create(size, ndims, dims));
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart));
    check_topo(cart, MPI_CART, "grid");
    Hood h;
    cart_hood(cart, &h);
    char where[128];
    snprintf(where, sizeof where, "grid %dx%dx%d periods %d%d%d", dims[0], ndims > 1 ? dims[1] : 1,
             ndims > 2 ? dims[2] : 1, periods[0], periods[1], periods[2]);
    run_all(cart, &h, where);
    /* A duplicate keeps the grid, and its collectives stay apart from the original's. */
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(cart, &dup));
    check_topo(dup, MPI_CART, "duplicate of a grid");
    Case a, b;
    MPI_Request req;
    setup(&a, ALLTOALLV, cart, &h);
    setup(&b, ALLTOALLV, dup, &h);
    start(&a, &req);
    start(&b, NULL);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    verify(&a, where, "nonblocking beside its duplicate's");
    verify(&b, where, "blocking on a duplicate");
    CHECK_RC(MPI_Comm_free(&dup));
    CHECK_RC(MPI_Comm_free(&cart));
  }
  /* MPI_Cart_map: ranks are kept, those beyond the grid get MPI_UNDEFINED. */
  int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0}, mapped = -2;
  CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &mapped));
  CHECK(mapped == (rank < dims[0] ? rank : MPI_UNDEFINED), "MPI_Cart_map gives %d", mapped);
  MPI_Comm split;
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &split));
  check_topo(split, MPI_UNDEFINED, "a split of MPI_COMM_WORLD");
  CHECK_RC(MPI_Comm_free(&split));
}

/* ---- graphs ----------------------------------------------------------- */

/* Checks every node's neighbours at this rank against index/edges. */
static void check_graph(MPI_Comm comm, int nnodes, const int *index, const int *edges, const char *what) {
  int n = -1, e = -1;
  CHECK_RC(MPI_Graphdims_get(comm, &n, &e));
  CHECK(n == nnodes && e == index[nnodes - 1], "%s: MPI_Graphdims_get %d nodes %d edges", what, n, e);
  int *gi = ints(n, GUARD), *ge = ints(e, GUARD);
  CHECK_RC(MPI_Graph_get(comm, n, e, gi, ge));
  for (int i = 0; i < n; ++i) CHECK(gi[i] == index[i], "%s: index[%d] is %d, expected %d", what, i, gi[i], index[i]);
  for (int i = 0; i < e; ++i) CHECK(ge[i] == edges[i], "%s: edges[%d] is %d, expected %d", what, i, ge[i], edges[i]);
  for (int node = 0; node < nnodes; ++node) {
    const int first = node == 0 ? 0 : index[node - 1], count = index[node] - first;
    int got = -1, nb[MAXN];
    CHECK_RC(MPI_Graph_neighbors_count(comm, node, &got));
    CHECK(got == count, "%s: node %d has %d neighbours, expected %d", what, node, got, count);
    for (int i = 0; i < MAXN; ++i) nb[i] = GUARD;
    CHECK_RC(MPI_Graph_neighbors(comm, node, MAXN, nb));
    for (int i = 0; i < count; ++i) {
      CHECK(nb[i] == edges[first + i], "%s: node %d neighbour %d is %d, expected %d", what, node, i, nb[i],
            edges[first + i]);
    }
    CHECK(count == MAXN || nb[count] == GUARD, "%s: node %d: more neighbours written than it has", what, node);
  }
  free(gi);
  free(ge);
}

/* A graph over MPI_COMM_WORLD: created, checked, its collectives run. */
static void graph_case(int nnodes, const int *index, const int *edges, const char *what) {
  MPI_Comm g;
  int mapped = -2;
  CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &mapped));
  CHECK(mapped == (rank < nnodes ? rank : MPI_UNDEFINED), "%s: MPI_Graph_map gives %d", what, mapped);
  CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
  if (rank >= nnodes) {
    CHECK(g == MPI_COMM_NULL, "%s: rank %d is beyond the graph's %d nodes but got a communicator", what, rank, nnodes);
    return;
  }
  CHECK(g != MPI_COMM_NULL, "%s: no communicator", what);
  check_topo(g, MPI_GRAPH, what);
  check_graph(g, nnodes, index, edges, what);
  if (nnodes == size) {
    Hood h;
    graph_hood(g, &h);
    run_all(g, &h, what);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(g, &dup));
    check_topo(dup, MPI_GRAPH, "duplicate of a graph");
    check_graph(dup, nnodes, index, edges, "duplicate of a graph");
    Case c;
    setup(&c, ALLTOALL, dup, &h);
    start(&c, NULL);
    verify(&c, what, "blocking on a duplicate");
    CHECK_RC(MPI_Comm_free(&dup));
  }
  CHECK_RC(MPI_Comm_free(&g));
}

static void test_graph(void) {
  int *index = ints(size, 0), *edges = ints(2 * size, 0);
  /* A ring: node i's neighbours are i-1 and i+1 (at 1 and 2 ranks, the
     same rank twice). */
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  graph_case(size, index, edges, "ring graph");
  /* A star: node 0 with every other, they with node 0 only. */
  index[0] = size - 1;
  for (int i = 1; i < size; ++i) {
    index[i] = size - 1 + i;
    edges[i - 1] = i;
    edges[size - 1 + i - 1] = 0;
  }
  graph_case(size, index, edges, "star graph");
  /* A ring of all ranks but the last. */
  if (size > 1) {
    const int n = size - 1;
    for (int i = 0; i < n; ++i) {
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + n - 1) % n;
      edges[2 * i + 1] = (i + 1) % n;
    }
    graph_case(n, index, edges, "ring graph of all ranks but one");
  }
  free(index);
  free(edges);
}

/* ---- distributed graphs ---------------------------------------------- */

static int mod(int a) { return ((a % size) + size) % size; }
static int weight(int from, int to) { return 100 * from + to; }

/* Whether (got[i], got_w[i]) is, in any order, (want[i], want_w[i]). */
static void check_pairs(int n, const int *got, const int *got_w, const int *want, const int *want_w, int weighted,
                        const char *what) {
  int used[MAXN] = {0};
  for (int i = 0; i < n; ++i) {
    int found = 0;
    for (int j = 0; j < n && !found; ++j) {
      if (!used[j] && got[j] == want[i] && (!weighted || got_w[j] == want_w[i])) found = used[j] = 1;
    }
    CHECK(found, "%s: neighbour %d (weight %d) missing", what, want[i], weighted ? want_w[i] : 0);
  }
}

/* The graph every distributed graph below is: node i has edges from i-1
   and i-2 and to i+1 and i+2 (modulo the size), each weighing
   weight(from, to). */
static void check_dist(MPI_Comm g, int weighted, const char *what) {
  int in = -1, out = -1, w = -1;
  check_topo(g, MPI_DIST_GRAPH, what);
  CHECK_RC(MPI_Dist_graph_neighbors_count(g, &in, &out, &w));
  CHECK(in == 2 && out == 2 && w == weighted, "%s: indegree %d outdegree %d weighted %d", what, in, out, w);
  int src[2], sw[2], dst[2], dw[2];
  CHECK_RC(MPI_Dist_graph_neighbors(g, 2, src, sw, 2, dst, dw));
  const int want_src[2] = {mod(rank - 1), mod(rank - 2)}, want_dst[2] = {mod(rank + 1), mod(rank + 2)};
  const int want_sw[2] = {weight(want_src[0], rank), weight(want_src[1], rank)};
  const int want_dw[2] = {weight(rank, want_dst[0]), weight(rank, want_dst[1])};
  check_pairs(2, src, sw, want_src, want_sw, weighted, what);
  check_pairs(2, dst, dw, want_dst, want_dw, weighted, what);
  Hood h;
  dist_hood(g, &h);
  run_all(g, &h, what);
}

static void test_dist_graph(void) {
  MPI_Comm g;
  const int src[2] = {mod(rank - 1), mod(rank - 2)}, dst[2] = {mod(rank + 1), mod(rank + 2)};
  const int sw[2] = {weight(src[0], rank), weight(src[1], rank)}, dw[2] = {weight(rank, dst[0]), weight(rank, dst[1])};
  /* Adjacent: each rank its own neighbours, in the order it gives them. */
  CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &g));
  int got_src[2], got_sw[2], got_dst[2], got_dw[2];
  CHECK_RC(MPI_Dist_graph_neighbors(g, 2, got_src, got_sw, 2, got_dst, got_dw));
  for (int i = 0; i < 2; ++i) {
    CHECK(got_src[i] == src[i] && got_sw[i] == sw[i] && got_dst[i] == dst[i] && got_dw[i] == dw[i],
          "adjacent: neighbour %d is from %d (%d) to %d (%d)", i, got_src[i], got_sw[i], got_dst[i], got_dw[i]);
  }
  check_dist(g, 1, "adjacent weighted dist graph");
  CHECK_RC(MPI_Comm_free(&g));
  CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &g));
  check_dist(g, 0, "adjacent unweighted dist graph");
  CHECK_RC(MPI_Comm_free(&g));

  /* Every edge given by rank 0, weighted; the others give none. */
  int *sources = ints(size, 0), *degrees = ints(size, 2), *dests = ints(2 * size, 0), *weights = ints(2 * size, 0);
  for (int s = 0; s < size; ++s) {
    sources[s] = s;
    for (int j = 0; j < 2; ++j) {
      dests[2 * s + j] = mod(s + 1 + j);
      weights[2 * s + j] = weight(s, dests[2 * s + j]);
    }
  }
  if (rank == 0) {
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, size, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &g));
  } else {
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g));
  }
  check_dist(g, 1, "dist graph given by rank 0");
  CHECK_RC(MPI_Comm_free(&g));

  /* Each rank gives its in-edges (their source is another rank), unweighted. */
  const int mine_src[2] = {mod(rank - 1), mod(rank - 2)}, one[2] = {1, 1}, me2[2] = {rank, rank};
  CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 2, mine_src, one, me2, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g));
  check_dist(g, 0, "dist graph given by destinations");
  MPI_Comm dup;
  CHECK_RC(MPI_Comm_dup(g, &dup));
  check_dist(dup, 0, "duplicate of a dist graph");
  CHECK_RC(MPI_Comm_free(&dup));
  CHECK_RC(MPI_Comm_free(&g));

  /* Each rank gives the out-edges of the next rank, weighted. */
  const int next = mod(rank + 1), two = 2;
  const int next_dst[2] = {mod(next + 1), mod(next + 2)};
  const int next_w[2] = {weight(next, next_dst[0]), weight(next, next_dst[1])};
  CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &next, &two, next_dst, next_w, MPI_INFO_NULL, 0, &g));
  check_dist(g, 1, "dist graph given by the previous rank");
  CHECK_RC(MPI_Comm_free(&g));
  free(sources);
  free(degrees);
  free(dests);
  free(weights);
}

/* ---- errors ----------------------------------------------------------- */

static void test_errors(void) {
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x[8] = {0}, y[8] = {0};
  MPI_Request req = MPI_REQUEST_NULL;
  /* No topology. */
  CHECK_CLASS(MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Ineighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_TOPOLOGY);
  CHECK(req == MPI_REQUEST_NULL, "a failed MPI_Ineighbor_alltoall set a request");
  CHECK_CLASS(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, x), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, x, x + 1, x + 2), MPI_ERR_TOPOLOGY);

  /* MPI_Graph_create: the same bad arguments at every rank. */
  int *index = ints(size, 0), *edges = ints(size, 0);
  for (int i = 0; i < size; ++i) {
    index[i] = i + 1;
    edges[i] = i;
  }
  MPI_Comm g = MPI_COMM_NULL;
  edges[size - 1] = size;
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g), MPI_ERR_RANK);
  edges[size - 1] = -1;
  CHECK_CLASS(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, x), MPI_ERR_RANK);
  edges[size - 1] = size - 1;
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &g), MPI_ERR_ARG);
  index[0] = -1;
  CHECK_CLASS(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g), MPI_ERR_ARG);
  index[0] = 1;
  CHECK(g == MPI_COMM_NULL, "a failed MPI_Graph_create made a communicator");

  /* Dist graphs: one rank's bad edge fails the call at every rank. */
  const int src[1] = {mod(rank - 1)}, dst[1] = {mod(rank + 1)}, one = 1;
  const int bad_src[1] = {size}, bad_dst[1] = {-5}, minus = -1;
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, rank == 0 ? bad_src : src, MPI_UNWEIGHTED, 1, dst,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, rank == size - 1 ? bad_dst : dst, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g),
              MPI_ERR_RANK);
  CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, rank == 0 ? &minus : &one, dst, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g),
              MPI_ERR_ARG);
  CHECK_CLASS(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_WEIGHTS_EMPTY, 1, dst, MPI_WEIGHTS_EMPTY,
                                             MPI_INFO_NULL, 0, &g),
              MPI_ERR_ARG);
  if (size > 1) {
    const int w = 7;
    CHECK_CLASS(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, dst, rank == 0 ? MPI_UNWEIGHTED : &w,
                                      MPI_INFO_NULL, 0, &g),
                MPI_ERR_ARG);
  }
  CHECK(g == MPI_COMM_NULL, "a failed dist graph creation made a communicator");

  /* The wrong kind of topology, and a node that is not there. */
  for (int i = 0; i < size; ++i) {
    index[i] = i + 1;
    edges[i] = i;
  }
  CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g));
  CHECK_RC(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Graph_neighbors(g, size, 8, y), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Dist_graph_neighbors(g, 1, x, MPI_UNWEIGHTED, 1, y, MPI_UNWEIGHTED), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Cart_coords(g, 0, 1, x), MPI_ERR_TOPOLOGY);
  CHECK_RC(MPI_Comm_free(&g));

  /* Neighbourhood collectives' own arguments, and truncated blocks. */
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  CHECK_RC(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Graphdims_get(ring, x, x + 1), MPI_ERR_TOPOLOGY);
  CHECK_CLASS(MPI_Neighbor_alltoall(x, -1, MPI_INT, y, 1, MPI_INT, ring), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Neighbor_alltoall(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, ring), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ineighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, ring, NULL), MPI_ERR_REQUEST);
  CHECK_CLASS(MPI_Neighbor_alltoall(x, 2, MPI_INT, y, 1, MPI_INT, ring), MPI_ERR_TRUNCATE);
  CHECK_RC(MPI_Ineighbor_allgather(x, 3, MPI_INT, y, 2, MPI_INT, ring, &req));
  CHECK_CLASS(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the failed request");
  /* And the communicator works on. */
  Hood h;
  cart_hood(ring, &h);
  Case c;
  setup(&c, ALLTOALLW, ring, &h);
  start(&c, NULL);
  verify(&c, "ring after errors", "blocking");
  CHECK_RC(MPI_Comm_free(&ring));
  free(index);
  free(edges);
  CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXN, "at most %d ranks", MAXN);
  CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &strided));
  CHECK_RC(MPI_Type_commit(&strided));
  test_cart();
  test_graph();
  test_dist_graph();
  test_errors();
  CHECK_RC(MPI_Type_free(&strided));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("topologies ok: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
