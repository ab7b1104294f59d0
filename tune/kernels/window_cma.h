/*
 * window_cma.h: the machine's single-copy floor for the bandwidth kernels.
 * With --cma, kernel_bw and kernel_bibw move every message of a window with
 * one process_vm_readv by its receiver (Cross Memory Attach) instead of MPI,
 * between the same buffer pools, with the same window and the same metric.
 * So `kernel_bw --cma` is "a single process-to-process CMA read" of the
 * issue's goals and `kernel_bibw --cma` is two such reads at once, measured
 * on the buffers the MPI figures are measured on (a pool of 64 MiB misses
 * the cache where a hot 4 MiB buffer would not). MPI carries only the
 * set-up (process ids and pool addresses) and one empty message each way
 * per window, which says when a window is filled and when it has been read.
 * Linux only; elsewhere --cma is a bad option.
 */
#ifndef MPF_TUNE_WINDOW_CMA_H
#define MPF_TUNE_WINDOW_CMA_H

/* process_vm_readv is a GNU extension: this header comes before any other. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "window.h"

#ifdef __linux__
#include <errno.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#define WINDOW_CMA_AVAILABLE 1
#else
#define WINDOW_CMA_AVAILABLE 0
#endif

enum { WINDOW_CMA_READY_TAG = 3 };

struct window_cma {
  struct window window;
  int enabled;             /* --cma */
  long peer_pid;           /* the partner's process */
  unsigned long peer_send; /* the address of the partner's send pool */
};

/* --window W and --cma, for ku_kernel.extra. */
static inline int window_cma_option(void *ctx, const char *arg, const char *value) {
  struct window_cma *c = ctx;
  if (strcmp(arg, "--cma") == 0) {
    c->enabled = 1;
    return WINDOW_CMA_AVAILABLE ? 1 : -1;
  }
  return window_option(&c->window, arg, value);
}

/* The window's pools, and with --cma the partner's process id and send pool
 * address, which its receiver reads from. */
static inline void window_cma_setup(struct window_cma *c, struct ku_kernel *k) {
  window_setup(&c->window, k);
  if (!c->enabled) return;
#if WINDOW_CMA_AVAILABLE
  const int peer = window_peer(k);
  unsigned long mine[2] = {(unsigned long)getpid(), (unsigned long)c->window.send}, theirs[2];
  MPI_Sendrecv(mine, 2, MPI_UNSIGNED_LONG, peer, WINDOW_CMA_READY_TAG, theirs, 2, MPI_UNSIGNED_LONG, peer,
               WINDOW_CMA_READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  c->peer_pid = (long)theirs[0];
  c->peer_send = theirs[1];
#endif
}

/* Read the partner's n messages of `bytes` into this rank's receive pool,
 * one process_vm_readv each (continued when the kernel copies less). */
static inline void window_cma_read(struct window_cma *c, long bytes, int n) {
#if WINDOW_CMA_AVAILABLE
  struct ku_kernel *k = c->window.k;
  for (int m = 0; m < n; ++m) {
    long done = 0;
    while (done < bytes) {
      const long offset = (long)m * bytes + done;
      struct iovec local = {c->window.recv + offset, (size_t)(bytes - done)};
      struct iovec remote = {(void *)(c->peer_send + (unsigned long)offset), (size_t)(bytes - done)};
      const ssize_t got = process_vm_readv((pid_t)c->peer_pid, &local, 1, &remote, 1, 0);
      if (got <= 0) {
        fprintf(stderr, "kernel_%s: rank %d: process_vm_readv of %ld bytes from process %ld failed: %s\n", k->name,
                k->rank, bytes - done, c->peer_pid, got < 0 ? strerror(errno) : "nothing copied");
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      done += got;
    }
  }
#else
  (void)c, (void)bytes, (void)n;
#endif
}

/* One direction: the first half's windows are read by their partners, which
 * say so with an empty message; the sender says a window is filled with
 * another. Returns this rank's seconds. */
static inline double window_cma_stream(void *ctx, long bytes, int iters) {
  struct window_cma *c = ctx;
  struct window *w = &c->window;
  struct ku_kernel *k = w->k;
  const int sender = k->rank < k->size / 2, peer = window_peer(k);
  const int n = window_messages(w, bytes);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++w->seq) {
    if (sender) {
      window_fill(w, bytes, n);
      MPI_Send(NULL, 0, MPI_BYTE, peer, WINDOW_CMA_READY_TAG, MPI_COMM_WORLD);
      MPI_Recv(NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(NULL, 0, MPI_BYTE, peer, WINDOW_CMA_READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      window_cma_read(c, bytes, n);
      window_verify(w, bytes, n, peer);
      MPI_Send(NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* Both directions at once: each rank fills its window, the pair says so,
 * each reads the other's, and the pair says so again (so that no rank
 * refills a pool its partner is still reading). */
static inline double window_cma_exchange(void *ctx, long bytes, int iters) {
  struct window_cma *c = ctx;
  struct window *w = &c->window;
  struct ku_kernel *k = w->k;
  const int peer = window_peer(k);
  const int n = window_messages(w, bytes);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++w->seq) {
    window_fill(w, bytes, n);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, WINDOW_CMA_READY_TAG, NULL, 0, MPI_BYTE, peer, WINDOW_CMA_READY_TAG,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    window_cma_read(c, bytes, n);
    window_verify(w, bytes, n, peer);
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  }
  return MPI_Wtime() - t0;
}

#endif
