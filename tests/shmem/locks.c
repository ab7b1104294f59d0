/* Distributed locks (OpenSHMEM 1.5 chapter 9.12): shmem_set_lock and
 * shmem_clear_lock give mutual exclusion, on a global lock and on a lock in
 * the symmetric heap: inside the lock each PE increments a counter on PE 0
 * without atomics (get, add, put), many times, and the final count is exact.
 * shmem_test_lock returns 0 when it takes the lock and nonzero while another
 * PE holds it; taking the lock by test_lock also excludes the others.
 *
 *   locks [rounds]    increments per PE and lock (default 200)
 */
#include "shmemtest.h"

/* Symmetric by the standard; zero is "cleared". */
long lock;
static long counter;

/* `rounds` non-atomic increments of PE 0's counter under `l`. */
static void count_under(long *l, int rounds, int use_test_lock, const char *what) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  counter = 0;
  shmem_barrier_all();
  for (int r = 0; r < rounds; ++r) {
    if (use_test_lock) {
      while (shmem_test_lock(l) != 0) {
      }
    } else {
      shmem_set_lock(l);
    }
    long v = shmem_long_g(&counter, 0);
    /* A second read: no one else may change the counter while the lock is held. */
    long again = shmem_long_g(&counter, 0);
    CHECK(again == v, "%s: PE 0's counter changed from %ld to %ld while I held the lock", what, v, again);
    shmem_long_p(&counter, v + 1, 0);
    shmem_clear_lock(l); /* completes the put first */
  }
  shmem_barrier_all();
  if (me == 0)
    CHECK(counter == (long)rounds * n, "%s: PE 0's counter is %ld after %d locked increments by each of %d PEs, expected %ld",
          what, counter, rounds, n, (long)rounds * n);
  shmem_barrier_all();
}

/* PE 0 takes the lock with test_lock; while it holds it, every other PE's
 * test_lock fails; once it is cleared, each takes it in turn. */
static void test_lock(long *l, const char *what) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_barrier_all();
  if (me == 0) {
    int rc = shmem_test_lock(l);
    CHECK(rc == 0, "%s: shmem_test_lock of a cleared lock returned %d, expected 0", what, rc);
  }
  shmem_barrier_all();
  if (me != 0) {
    int rc = shmem_test_lock(l);
    CHECK(rc != 0, "%s: shmem_test_lock returned 0 while PE 0 held the lock", what);
  }
  shmem_barrier_all();
  if (me == 0) shmem_clear_lock(l);
  /* Each PE in turn: take it by test_lock, and it is held for the others. */
  for (int pe = 0; pe < n; ++pe) {
    shmem_barrier_all();
    if (me == pe) {
      int rc = shmem_test_lock(l);
      CHECK(rc == 0, "%s: shmem_test_lock of the cleared lock by PE %d returned %d", what, pe, rc);
    }
    shmem_barrier_all();
    if (me != pe) {
      int rc = shmem_test_lock(l);
      CHECK(rc != 0, "%s: shmem_test_lock returned 0 while PE %d held the lock", what, pe);
    }
    shmem_barrier_all();
    if (me == pe) shmem_clear_lock(l);
  }
  shmem_barrier_all();
  /* set_lock after test_lock: the lock is usable again. */
  shmem_set_lock(l);
  shmem_clear_lock(l);
  shmem_barrier_all();
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  shmem_init();
  if (rounds < 1) rounds = 1;
  long *heap_lock = shmem_calloc(1, sizeof(long));
  CHECK(heap_lock != NULL, "shmem_calloc(1, %zu) returned NULL", sizeof(long));
  count_under(&lock, rounds, 0, "the global lock");
  count_under(heap_lock, rounds, 0, "a heap lock");
  test_lock(&lock, "the global lock");
  test_lock(heap_lock, "a heap lock");
  count_under(&lock, rounds, 1, "the global lock taken by shmem_test_lock");
  count_under(heap_lock, rounds / 2 + 1, 1, "a heap lock taken by shmem_test_lock");
  shmem_free(heap_lock);
  st_done("locks");
  shmem_finalize();
  return 0;
}
