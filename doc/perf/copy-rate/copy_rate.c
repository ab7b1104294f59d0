/*
 * How fast this machine copies memory, with one or two processes copying
 * at once: the floor under large collectives, which must move every byte
 * at least once (doc/perf/copy-rate/README.md).
 *
 *   cc -O2 -o copy_rate copy_rate.c
 *   ./copy_rate PIECE_BYTES TOTAL_MIB PROCS [hot]
 *
 * Each process (bound to CPU 0, 1, 0, ...) copies TOTAL_MIB in pieces of
 * PIECE_BYTES into a 256 MiB buffer, piece after piece, from sources spread
 * over another 256 MiB buffer (cold: not in any cache), or with `hot` from
 * one piece that stays cached (as a staged broadcast's source does).
 * Prints each process's rate.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { POOL = 256 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void copy(int me, long piece, long total, int hot) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(me % 2, &cpus);
  sched_setaffinity(0, sizeof cpus, &cpus);
  char *src = malloc(POOL), *dst = malloc(POOL);
  if (src == NULL || dst == NULL) {
    perror("malloc");
    _exit(1);
  }
  memset(src, 1, POOL);
  memset(dst, 2, POOL);
  const double start = now();
  long at = 0;
  for (long done = 0; done < total; done += piece) {
    memcpy(dst + at, hot ? src : src + (at * 7) % (POOL - piece), (size_t)piece);
    at = at + 2 * piece > POOL ? 0 : at + piece;
  }
  printf("process %d: %.2f GB/s\n", me, (double)total / (now() - start) / 1e9);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s PIECE_BYTES TOTAL_MIB PROCS [hot]\n", argv[0]);
    return 2;
  }
  const long piece = atol(argv[1]), total = atol(argv[2]) << 20;
  const int procs = atoi(argv[3]), hot = argc > 4;
  if (piece < 1 || piece > POOL / 2 || total < piece || procs < 1) {
    fprintf(stderr, "%s: 1 <= PIECE_BYTES <= 128 MiB, TOTAL_MIB >= PIECE_BYTES, PROCS >= 1\n", argv[0]);
    return 2;
  }
  for (int p = 0; p < procs; ++p) {
    if (fork() == 0) {
      copy(p, piece, total, hot);
      _exit(0);
    }
  }
  for (int p = 0; p < procs; ++p) wait(NULL);
  return 0;
}
