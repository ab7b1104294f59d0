/*
 * How fast this machine copies memory, with one or two processes copying
 * at once: the floor under large collectives, which must move every byte
 * at least once (doc/perf/copy-rate/README.md).
 *
 *   cc -O2 -o copy_rate copy_rate.c
 *   ./copy_rate PIECE_BYTES TOTAL_MIB PROCS [hot] [stream]
 *
 * Each process (bound to CPU 0, 1, 0, ...) copies TOTAL_MIB in pieces of
 * PIECE_BYTES into a 256 MiB buffer, piece after piece, from sources spread
 * over another 256 MiB buffer (cold: not in any cache), or with `hot` from
 * one piece that stays cached (as a staged broadcast's source does). With
 * `stream`, the copies write with streaming (non-temporal) stores, as
 * lib/common/streaming_copy.hpp does, instead of memcpy: the destination
 * lines are not read in first. Prints each process's rate.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { POOL = 256 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* PIECE_BYTES is a multiple of 64 and both buffers come from malloc
 * (16-byte aligned): whole blocks only. */
static void copy_streaming(char *dst, const char *src, size_t bytes) {
#if defined(__SSE2__)
  for (size_t i = 0; i + 64 <= bytes; i += 64) {
    for (int k = 0; k < 4; ++k) {
      _mm_stream_si128((__m128i *)(dst + i + 16 * k), _mm_loadu_si128((const __m128i *)(src + i + 16 * k)));
    }
  }
  _mm_sfence();
#else
  memcpy(dst, src, bytes);
#endif
}

static void copy(int me, long piece, long total, int hot, int stream) {
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
    const char *from = hot ? src : src + (at * 7) % (POOL - piece) / 64 * 64;
    if (stream) {
      copy_streaming(dst + at, from, (size_t)piece);
    } else {
      memcpy(dst + at, from, (size_t)piece);
    }
    at = at + 2 * piece > POOL ? 0 : at + piece;
  }
  printf("process %d: %.2f GB/s\n", me, (double)total / (now() - start) / 1e9);
  fflush(stdout);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s PIECE_BYTES TOTAL_MIB PROCS [hot] [stream]\n", argv[0]);
    return 2;
  }
  const long piece = atol(argv[1]), total = atol(argv[2]) << 20;
  const int procs = atoi(argv[3]);
  int hot = 0, stream = 0;
  for (int i = 4; i < argc; ++i) {
    if (strcmp(argv[i], "hot") == 0) {
      hot = 1;
    } else if (strcmp(argv[i], "stream") == 0) {
      stream = 1;
    } else {
      fprintf(stderr, "%s: unknown word '%s' (hot, stream)\n", argv[0], argv[i]);
      return 2;
    }
  }
  if (piece < 64 || piece % 64 != 0 || piece > POOL / 2 || total < piece || procs < 1) {
    fprintf(stderr, "%s: PIECE_BYTES a multiple of 64 in [64, 128 MiB], TOTAL_MIB >= PIECE_BYTES, PROCS >= 1\n",
            argv[0]);
    return 2;
  }
  for (int p = 0; p < procs; ++p) {
    if (fork() == 0) {
      copy(p, piece, total, hot, stream);
      _exit(0);
    }
  }
  for (int p = 0; p < procs; ++p) wait(NULL);
  return 0;
}
