/* Many PEs on few cores (the job runs 64 PEs on 2 CPUs): rounds of
 * barrier_all, each checked by puts that must have landed; a wait_until
 * chain several times around the ring; a contended atomic fetch_add counter
 * on PE 0 (exact total, every fetched value distinct); and a distributed lock
 * guarding non-atomic increments of a counter on PE 0.
 *
 *   stress [rounds]    default 20
 */
#include "shmemtest.h"

static long chain_flag;
static long lock;
static long locked_count;
static long counter;

/* Round r: each PE puts r into its slot on PE (me + r) % n; after the
 * barrier its slot from PE (me - r) % n says r. Rounds never repeat a number. */
static void barriers(int first, int last, long *slots) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (int r = first; r <= last; ++r) {
    shmem_long_p(&slots[me], r, (me + r) % n);
    shmem_barrier_all();
    const int from = ((me - r) % n + n) % n;
    CHECK(slots[from] == r, "barrier round %d: the slot PE %d put is %ld, expected %d", r, from, slots[from], r);
  }
  shmem_barrier_all();
}

/* Lap after lap, each PE waits for its left neighbour's value and passes it on. */
static void chain(int laps) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (long lap = 0; lap < laps; ++lap) {
    if (me == 0) {
      shmem_long_atomic_set(&chain_flag, lap * n + 1, st_right());
      shmem_long_wait_until(&chain_flag, SHMEM_CMP_EQ, (lap + 1) * n);
    } else {
      shmem_long_wait_until(&chain_flag, SHMEM_CMP_EQ, lap * n + me);
      shmem_long_atomic_set(&chain_flag, lap * n + me + 1, st_right());
    }
  }
  if (me == 0) CHECK_EQ(chain_flag, (long)laps * n, "PE 0's flag after the chain's laps");
  shmem_barrier_all();
}

/* Every PE takes `count` tickets from PE 0's counter; PE 0 reads every PE's
 * tickets and finds each of 0 .. n * count - 1 exactly once. */
static void tickets(int count) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long *mine = shmem_malloc((size_t)count * sizeof(long));
  CHECK(mine != NULL, "shmem_malloc(%zu) returned NULL", (size_t)count * sizeof(long));
  counter = 0;
  shmem_barrier_all();
  for (int i = 0; i < count; ++i) {
    mine[i] = shmem_long_atomic_fetch_add(&counter, 1, 0);
    CHECK(mine[i] >= 0 && mine[i] < (long)n * count, "ticket %d is %ld, outside 0..%ld", i, mine[i],
          (long)n * count - 1);
    CHECK(i == 0 || mine[i] > mine[i - 1], "ticket %d is %ld after %ld: PE 0's counter went down", i, mine[i],
          mine[i - 1]);
  }
  shmem_barrier_all();
  if (me == 0) {
    CHECK(counter == (long)n * count, "PE 0's counter is %ld after %d fetch_adds by each of %d PEs, expected %ld",
          counter, count, n, (long)n * count);
    unsigned char *seen = calloc((size_t)n * count, 1);
    long *theirs = malloc((size_t)count * sizeof(long));
    CHECK(seen != NULL && theirs != NULL, "malloc failed");
    for (int pe = 0; pe < n; ++pe) {
      shmem_long_get(theirs, mine, (size_t)count, pe);
      for (int i = 0; i < count; ++i) {
        CHECK(theirs[i] >= 0 && theirs[i] < (long)n * count, "PE %d's ticket %d is %ld", pe, i, theirs[i]);
        CHECK(!seen[theirs[i]], "ticket %ld was fetched twice (the second time by PE %d)", theirs[i], pe);
        seen[theirs[i]] = 1;
      }
    }
    free(theirs);
    free(seen);
  }
  shmem_barrier_all();
  shmem_free(mine);
}

static void locked(int count) {
  const int n = shmem_n_pes();
  locked_count = 0;
  shmem_barrier_all();
  for (int i = 0; i < count; ++i) {
    shmem_set_lock(&lock);
    long v = shmem_long_g(&locked_count, 0);
    shmem_long_p(&locked_count, v + 1, 0);
    shmem_clear_lock(&lock);
  }
  shmem_barrier_all();
  if (shmem_my_pe() == 0)
    CHECK(locked_count == (long)n * count, "PE 0's locked counter is %ld after %d increments by each of %d PEs, expected %ld",
          locked_count, count, n, (long)n * count);
  shmem_barrier_all();
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  if (rounds < 1) rounds = 1;
  shmem_init();
  long *slots = shmem_calloc((size_t)shmem_n_pes(), sizeof(long));
  CHECK(slots != NULL, "shmem_calloc(%d, %zu) returned NULL", shmem_n_pes(), sizeof(long));
  barriers(1, 5 * rounds, slots);
  chain(rounds / 5 + 2);
  tickets(5 * rounds);
  locked(rounds);
  barriers(5 * rounds + 1, 6 * rounds, slots);
  shmem_free(slots);
  st_done("stress");
  shmem_finalize();
  return 0;
}
