/*
 * comm_churn: collectives on many communicators that overlap, come and go,
 * and reuse each other's context ids (issue 29, bug 1). Every element of
 * every result is checked against values that name the round, the rank and
 * the index, so data left behind by an earlier communicator's collective is
 * caught wherever it turns up.
 *
 *   comm_churn [rounds]   (default 120)
 *
 * First the two cases the bug was found with: at 4 ranks, an in-place
 * Allreduce on a split {0,2} (or a dup of the world) that is then freed, and
 * an in-place Allreduce on a new split {0,1,2},{3}; at 10 ranks, half in an
 * Allgather of a struct type on their half, half in another collective. Then
 * `rounds` rounds that each pick (the same at every rank, from one seeded
 * sequence) one of eight communicator slots: an empty slot gets a new
 * communicator (split with random colors, dup, create, create_group or idup
 * of the world or of a live slot), a full one runs a few collectives chosen
 * at random over sizes that take every data path, and is sometimes freed.
 */
#include <stddef.h>

#include "mpitest.h"

static int world_rank, world_size;

/* The value rank `r` contributes at index `i` in round `round` (small: 16
 * ranks' sums fit an int). */
static int value(int round, int r, int i) { return (round * 31 + r * 1009 + i * 7) % 100003; }

/* One sequence at every rank: the same choices everywhere. */
static uint64_t rng_state = 12345;
static unsigned pick(unsigned n) {
  rng_state = mt_mix(rng_state);
  return (unsigned)(rng_state % n);
}

static void reuse_case(int dup) {
  enum { N = 4096 };
  int* buf = malloc(N * sizeof(int));
  MPI_Comm a = MPI_COMM_NULL, b;
  if (dup) {
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  } else {
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2 == 0 ? 0 : MPI_UNDEFINED, world_rank, &a));
  }
  if (a != MPI_COMM_NULL) {
    for (int i = 0; i < N; i++) buf[i] = 1;
    CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, a));
    CHECK_RC(MPI_Comm_free(&a));
  }
  CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, world_rank == 3, world_rank, &b));
  int br, bs;
  MPI_Comm_rank(b, &br);
  MPI_Comm_size(b, &bs);
  for (int i = 0; i < N; i++) buf[i] = br;
  CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, b));
  for (int i = 0; i < N; i++) {
    CHECK(buf[i] == bs * (bs - 1) / 2, "%s case: element %d is %d after the Allreduce, expected %d",
          dup ? "dup" : "split", i, buf[i], bs * (bs - 1) / 2);
  }
  CHECK_RC(MPI_Comm_free(&b));
  free(buf);
}

typedef struct {
  int a;
  double b;
  char c[3];
} Pod;

static void struct_allgather_case(void) {
  MPI_Datatype raw, pod;
  int lengths[3] = {1, 1, 3};
  MPI_Aint displs[3] = {offsetof(Pod, a), offsetof(Pod, b), offsetof(Pod, c)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  CHECK_RC(MPI_Type_create_struct(3, lengths, displs, types, &raw));
  CHECK_RC(MPI_Type_create_resized(raw, 0, sizeof(Pod), &pod));
  CHECK_RC(MPI_Type_commit(&pod));
  for (int round = 0; round < 20; round++) {
    MPI_Comm half;
    const int lower = world_rank < world_size / 2;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, lower, world_rank, &half));
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    const int count = round % 2 ? 300 : 3;
    Pod* in = calloc((size_t)count, sizeof(Pod));
    Pod* out = calloc((size_t)count * (size_t)hs, sizeof(Pod));
    for (int i = 0; i < count; i++) {
      in[i].a = value(round, hr, i);
      in[i].b = hr + 0.5;
      in[i].c[0] = 'x';
    }
    if (lower) {
      CHECK_RC(MPI_Allgather(in, count, pod, out, count, pod, half));
      for (int r = 0; r < hs; r++) {
        for (int i = 0; i < count; i++) {
          const Pod* p = &out[r * count + i];
          CHECK(p->a == value(round, r, i) && p->b == r + 0.5 && p->c[0] == 'x',
                "struct Allgather round %d: element %d of rank %d's block is wrong", round, i, r);
        }
      }
    } else if (round % 3 == 0) {
      CHECK_RC(MPI_Barrier(half));
    } else {
      int x = hr;
      CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, half));
      CHECK(x == hs * (hs - 1) / 2, "Allreduce on the other half gave %d", x);
    }
    CHECK_RC(MPI_Comm_free(&half));
    free(in);
    free(out);
  }
  CHECK_RC(MPI_Type_free(&pod));
  CHECK_RC(MPI_Type_free(&raw));
}

/* Element counts that take the cells, the slots (in one and several
 * steps) and single-copy reads. */
static const int kCounts[] = {1, 5, 400, 3000, 20000};

static void run_collective(MPI_Comm c, int round, unsigned which, int count) {
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  const size_t all = (size_t)count * (size_t)n;
  int* in = malloc(all * sizeof(int));
  int* out = malloc((all + (size_t)count) * sizeof(int)); /* case 8 uses count past `all` */
  const int root = round % n;
  const char* name = "";
  switch (which) {
    case 0: { /* Bcast */
      name = "MPI_Bcast";
      for (int i = 0; i < count; i++) in[i] = r == root ? value(round, root, i) : -1;
      CHECK_RC(MPI_Bcast(in, count, MPI_INT, root, c));
      for (int i = 0; i < count; i++) CHECK(in[i] == value(round, root, i), "%s: element %d is %d", name, i, in[i]);
      break;
    }
    case 1: /* Allreduce, in place or not */
    case 2: { /* Reduce */
      name = which == 1 ? "MPI_Allreduce" : "MPI_Reduce";
      for (int i = 0; i < count; i++) in[i] = out[i] = value(round, r, i);
      if (which == 1 && round % 2) {
        CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, MPI_SUM, c));
      } else if (which == 1) {
        CHECK_RC(MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, c));
      } else {
        CHECK_RC(MPI_Reduce(in, out, count, MPI_INT, MPI_SUM, root, c));
      }
      if (which == 1 || r == root) {
        for (int i = 0; i < count; i++) {
          int sum = 0;
          for (int s = 0; s < n; s++) sum += value(round, s, i);
          CHECK(out[i] == sum, "%s (%d ranks, %d ints): element %d is %d, expected %d", name, n, count, i, out[i], sum);
        }
      }
      break;
    }
    case 3: { /* Allgather */
      name = "MPI_Allgather";
      for (int i = 0; i < count; i++) in[i] = value(round, r, i);
      CHECK_RC(MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, c));
      for (int s = 0; s < n; s++) {
        for (int i = 0; i < count; i++) {
          CHECK(out[s * count + i] == value(round, s, i), "%s: element %d of rank %d's block is %d", name, i, s,
                out[s * count + i]);
        }
      }
      break;
    }
    case 4: { /* Alltoall: block for rank s is value(round, r * n + s, i) */
      name = "MPI_Alltoall";
      for (int s = 0; s < n; s++) {
        for (int i = 0; i < count; i++) in[s * count + i] = value(round, r * n + s, i);
      }
      CHECK_RC(MPI_Alltoall(in, count, MPI_INT, out, count, MPI_INT, c));
      for (int s = 0; s < n; s++) {
        for (int i = 0; i < count; i++) {
          CHECK(out[s * count + i] == value(round, s * n + r, i), "%s: element %d from rank %d is %d", name, i, s,
                out[s * count + i]);
        }
      }
      break;
    }
    case 5: { /* Gather, then Scatter back */
      name = "MPI_Gather/MPI_Scatter";
      for (int i = 0; i < count; i++) in[i] = value(round, r, i);
      CHECK_RC(MPI_Gather(in, count, MPI_INT, out, count, MPI_INT, root, c));
      if (r == root) {
        for (int s = 0; s < n; s++) {
          for (int i = 0; i < count; i++) {
            CHECK(out[s * count + i] == value(round, s, i), "MPI_Gather: element %d of rank %d is wrong", i, s);
            out[s * count + i] = value(round + 1, s, i);
          }
        }
      }
      CHECK_RC(MPI_Scatter(out, count, MPI_INT, in, count, MPI_INT, root, c));
      for (int i = 0; i < count; i++) CHECK(in[i] == value(round + 1, r, i), "MPI_Scatter: element %d is %d", i, in[i]);
      break;
    }
    case 6: { /* Scan and Exscan */
      name = "MPI_Scan";
      for (int i = 0; i < count; i++) in[i] = value(round, r, i);
      CHECK_RC(MPI_Scan(in, out, count, MPI_INT, MPI_SUM, c));
      for (int i = 0; i < count; i++) {
        int sum = 0;
        for (int s = 0; s <= r; s++) sum += value(round, s, i);
        CHECK(out[i] == sum, "MPI_Scan: element %d is %d, expected %d", i, out[i], sum);
      }
      CHECK_RC(MPI_Exscan(in, out, count, MPI_INT, MPI_SUM, c));
      for (int i = 0; r > 0 && i < count; i++) {
        int sum = 0;
        for (int s = 0; s < r; s++) sum += value(round, s, i);
        CHECK(out[i] == sum, "MPI_Exscan: element %d is %d, expected %d", i, out[i], sum);
      }
      break;
    }
    case 7: { /* Reduce_scatter_block */
      name = "MPI_Reduce_scatter_block";
      for (size_t i = 0; i < all; i++) in[i] = value(round, r, (int)i);
      CHECK_RC(MPI_Reduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, c));
      for (int i = 0; i < count; i++) {
        int sum = 0;
        for (int s = 0; s < n; s++) sum += value(round, s, r * count + i);
        CHECK(out[i] == sum, "%s: element %d is %d, expected %d", name, i, out[i], sum);
      }
      break;
    }
    case 8: { /* Iallreduce and Ibcast in flight together */
      name = "MPI_Iallreduce/MPI_Ibcast";
      MPI_Request req[2];
      for (int i = 0; i < count; i++) {
        in[i] = value(round, r, i);
        out[count + i] = r == root ? value(round, root + 7, i) : -1;
      }
      CHECK_RC(MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, c, &req[0]));
      CHECK_RC(MPI_Ibcast(out + count, count, MPI_INT, root, c, &req[1]));
      CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
      for (int i = 0; i < count; i++) {
        int sum = 0;
        for (int s = 0; s < n; s++) sum += value(round, s, i);
        CHECK(out[i] == sum, "MPI_Iallreduce: element %d is %d, expected %d", i, out[i], sum);
        CHECK(out[count + i] == value(round, root + 7, i), "MPI_Ibcast: element %d is %d", i, out[count + i]);
      }
      break;
    }
    default:
      CHECK_RC(MPI_Barrier(c));
  }
  free(in);
  free(out);
}

/* A new communicator in *slot (MPI_COMM_NULL where this rank is not a
 * member) made from `parent` by the method picked. Only the parent's
 * members call. */
static void create(MPI_Comm parent, unsigned method, unsigned salt, MPI_Comm* slot) {
  int pr, pn;
  MPI_Comm_rank(parent, &pr);
  MPI_Comm_size(parent, &pn);
  switch (method) {
    case 0: { /* split: up to three colors, some ranks left out */
      const unsigned h = (unsigned)(mt_mix(salt * 131u + (unsigned)world_rank) % 4u);
      CHECK_RC(MPI_Comm_split(parent, h == 3 ? MPI_UNDEFINED : (int)h, (int)(salt % 7) - pr, slot));
      break;
    }
    case 1:
      CHECK_RC(MPI_Comm_dup(parent, slot));
      break;
    case 2:
    case 3: { /* create / create_group over the parent's even or odd ranks */
      MPI_Group pg, g;
      int ranks[64], k = 0;
      for (int i = (int)(salt % 2); i < pn; i += 2) ranks[k++] = i;
      MPI_Comm_group(parent, &pg);
      CHECK_RC(MPI_Group_incl(pg, k, ranks, &g));
      if (method == 2) {
        CHECK_RC(MPI_Comm_create(parent, g, slot));
      } else if (pr % 2 == (int)(salt % 2)) {
        CHECK_RC(MPI_Comm_create_group(parent, g, (int)salt, slot));
      } else {
        *slot = MPI_COMM_NULL;
      }
      MPI_Group_free(&g);
      MPI_Group_free(&pg);
      break;
    }
    default: {
      MPI_Request req;
      CHECK_RC(MPI_Comm_idup(parent, slot, &req));
      CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 120;
  CHECK(world_size <= 64, "at most 64 ranks");

  if (world_size == 4) {
    reuse_case(0);
    reuse_case(1);
  }
  struct_allgather_case();

  enum { kSlots = 8 };
  /* in_use: the slot holds a communicator somewhere (the same at every
   * rank); comm: this rank's handle, MPI_COMM_NULL when not a member. */
  int in_use[kSlots] = {0};
  MPI_Comm comm[kSlots];
  for (int s = 0; s < kSlots; s++) comm[s] = MPI_COMM_NULL;
  int made = 0, ran = 0;
  for (int round = 0; round < rounds; round++) {
    const unsigned s = pick(kSlots);
    if (!in_use[s]) {
      /* The parent: the world, or another live slot (its members only). */
      const unsigned from = pick(kSlots + 2);
      const int parent_slot = from < kSlots && in_use[from] && from != s ? (int)from : -1;
      const unsigned method = pick(5), salt = pick(1000);
      const MPI_Comm parent = parent_slot < 0 ? MPI_COMM_WORLD : comm[parent_slot];
      if (parent != MPI_COMM_NULL) create(parent, method, salt, &comm[s]);
      in_use[s] = 1;
      made++;
      continue;
    }
    const unsigned calls = 1 + pick(3);
    for (unsigned k = 0; k < calls; k++) {
      const unsigned which = pick(10);
      const int count = kCounts[pick(sizeof kCounts / sizeof kCounts[0])];
      if (comm[s] != MPI_COMM_NULL) run_collective(comm[s], round * 4 + (int)k, which, count);
      ran++;
    }
    if (pick(3) == 0) {
      if (comm[s] != MPI_COMM_NULL) CHECK_RC(MPI_Comm_free(&comm[s]));
      in_use[s] = 0;
    }
  }
  for (int s = 0; s < kSlots; s++) {
    if (comm[s] != MPI_COMM_NULL) CHECK_RC(MPI_Comm_free(&comm[s]));
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (world_rank == 0) printf("comm_churn ok: %d ranks, %d communicators, %d collective rounds\n", world_size, made, ran);
  MPI_Finalize();
  return 0;
}
