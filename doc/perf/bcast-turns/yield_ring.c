/*
 * A ring of processes passing a turn, without MPI: how fast the next
 * process in line gets a CPU when waiting processes yield, sleep, or mix
 * the two (the measurements behind the board's turns, lib/coll/board.hpp).
 *
 *   cc -O2 -o yield_ring yield_ring.c
 *   ./yield_ring NPROCS TURNS WINDOW [block]
 *
 * Process i takes turns i, i + NPROCS, ... A process whose turn is at most
 * WINDOW turns off yields (sched_yield) until it comes; one further off
 * sleeps on its futex, and the process that ends turn t wakes the one
 * whose turn is t + WINDOW + 1. WINDOW >= NPROCS - 1: everyone yields.
 * Processes are bound round-robin over CPUs 0 and 1 (as mpfrun binds
 * ranks that outnumber the CPUs), or with `block` the first half on CPU 0.
 * Prints the time per turn.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
  _Atomic long turn;
  struct {
    _Atomic int sleeping; /* the futex word; 1 while the process sleeps */
    char pad[60];
  } proc[];
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void take_turns(struct shared *s, int me, int n, long turns, long window, int block) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(block ? me * 2 / n : me % 2, &cpus);
  sched_setaffinity(0, sizeof cpus, &cpus);
  for (long mine = me; mine < turns; mine += n) {
    for (long t; (t = atomic_load(&s->turn)) != mine;) {
      if (mine - t <= window) {
        sched_yield();
        continue;
      }
      /* Say we sleep, then look again: the waker stores the turn, then
       * looks at our flag. */
      atomic_store(&s->proc[me].sleeping, 1);
      if (mine - atomic_load(&s->turn) > window) {
        syscall(SYS_futex, (int *)&s->proc[me].sleeping, FUTEX_WAIT, 1, NULL, NULL, 0);
      }
      atomic_store(&s->proc[me].sleeping, 0);
    }
    atomic_store(&s->turn, mine + 1);
    const int next = (int)((mine + 1 + window) % n);
    if (atomic_exchange(&s->proc[next].sleeping, 0)) {
      syscall(SYS_futex, (int *)&s->proc[next].sleeping, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s NPROCS TURNS WINDOW [block]\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]);
  const long turns = atol(argv[2]), window = atol(argv[3]);
  const int block = argc > 4;
  if (n < 2 || turns < n || window < 0) {
    fprintf(stderr, "%s: NPROCS >= 2, TURNS >= NPROCS, WINDOW >= 0\n", argv[0]);
    return 2;
  }
  struct shared *s = mmap(NULL, sizeof *s + (size_t)n * sizeof s->proc[0], PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (s == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  const double start = now();
  for (int i = 0; i < n; ++i) {
    if (fork() == 0) {
      take_turns(s, i, n, turns, window, block);
      _exit(0);
    }
  }
  for (int i = 0; i < n; ++i) wait(NULL);
  printf("%d processes, window %ld%s: %.2f us per turn\n", n, window, block ? ", block" : "",
         (now() - start) / (double)turns * 1e6);
  return 0;
}
