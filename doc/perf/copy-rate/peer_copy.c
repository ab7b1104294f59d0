/* How fast one process can move cached data to another, two processes at
 * once (one per CPU), each moving BYTES to the other:
 *
 *   cma-read       process_vm_readv of the peer's buffer (single copy)
 *   cma-write      process_vm_writev into the peer's buffer
 *   shared         memcpy into a shared segment, then the peer's memcpy out
 *   shared-stream  the same, copied in with streaming (non-temporal) stores
 *
 * Every buffer is reused from one round to the next, as a benchmark's are,
 * so `shared` writes lines the peer read in the round before. Prints the
 * mean time of each copy per round, and memcpy of BYTES within one process
 * for scale.
 *
 *   cc -O2 -o peer_copy peer_copy.c && ./peer_copy 1048576 cma-read
 */
#define _GNU_SOURCE
#include <emmintrin.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 200 };

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Both processes count in; generation g is over when the count reaches 2g. */
static atomic_int *arrivals;
static void barrier(int *generation) {
  ++*generation;
  atomic_fetch_add(arrivals, 1);
  while (atomic_load(arrivals) < 2 * *generation) sched_yield();
}

static void copy_streaming(void *to, const void *from, long bytes) {
  __m128i *d = to;
  const __m128i *s = from;
  for (long i = 0; i < bytes / 16; ++i) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
  _mm_sfence();
}

static void *map_shared(long bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  return p;
}

static void cma(int write, pid_t peer, unsigned char *local, unsigned char *remote, long bytes) {
  struct iovec l = {local, (size_t)bytes}, r = {remote, (size_t)bytes};
  ssize_t done = write ? process_vm_writev(peer, &l, 1, &r, 1, 0) : process_vm_readv(peer, &l, 1, &r, 1, 0);
  if (done != bytes) {
    perror(write ? "process_vm_writev" : "process_vm_readv");
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 3 || atol(argv[1]) < 16 || atol(argv[1]) % 16 != 0) {
    fprintf(stderr, "usage: %s BYTES (a multiple of 16) cma-read|cma-write|shared|shared-stream\n", argv[0]);
    return 2;
  }
  const long bytes = atol(argv[1]);
  const char *mode = argv[2];
  const int by_cma = strncmp(mode, "cma-", 4) == 0, streaming = strcmp(mode, "shared-stream") == 0;
  if (!by_cma && !streaming && strcmp(mode, "shared") != 0) {
    fprintf(stderr, "%s: unknown way '%s'\n", argv[0], mode);
    return 2;
  }
  arrivals = map_shared(4096);
  unsigned char *segment = map_shared(2 * bytes);
  /* Allocated before the fork: the same addresses in both processes;
     written after it, so that each has pages of its own. */
  unsigned char *in = malloc(bytes), *out = malloc(bytes);
  memset(segment, 0, 2 * bytes);
  const pid_t parent = getpid(), child = fork();
  const int me = child == 0;
  memset(in, 1, bytes);
  memset(out, 2, bytes);
  const pid_t peer = me ? parent : child;
  cpu_set_t cpu;
  CPU_ZERO(&cpu);
  CPU_SET(me, &cpu);
  sched_setaffinity(0, sizeof cpu, &cpu);
  int generation = 0;
  double first = 0, second = 0, t;
  barrier(&generation);
  for (int round = 0; round < ROUNDS; ++round) {
    t = now_us();
    if (by_cma) {
      cma(mode[4] == 'w', peer, mode[4] == 'w' ? in : out, mode[4] == 'w' ? out : in, bytes);
    } else if (streaming) {
      copy_streaming(segment + me * bytes, in, bytes);
    } else {
      memcpy(segment + me * bytes, in, bytes);
    }
    first += now_us() - t;
    barrier(&generation);
    if (!by_cma) {
      t = now_us();
      memcpy(out, segment + (1 - me) * bytes, bytes);
      second += now_us() - t;
    }
    barrier(&generation);
  }
  t = now_us();
  for (int round = 0; round < ROUNDS; ++round) memcpy(out, in, bytes);
  const double local = (now_us() - t) / ROUNDS;
  if (by_cma) {
    printf("process %d: %s %.1f us (memcpy in one process %.1f)\n", me, mode, first / ROUNDS, local);
  } else {
    printf("process %d: %s: in %.1f us, the peer's out %.1f us (memcpy in one process %.1f)\n", me, mode,
           first / ROUNDS, second / ROUNDS, local);
  }
  barrier(&generation);
  if (!me) wait(NULL);
  return 0;
}
