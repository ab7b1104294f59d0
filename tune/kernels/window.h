/*
 * window.h: streaming with a window of nonblocking messages, shared by the
 * bandwidth (bw), bidirectional bandwidth (bibw) and message-rate (msgrate)
 * kernels. A window is W messages of one size, each in its own part of a
 * buffer pool (so that --check can give every message its own pattern, and
 * so that no two pending receives share memory). The pool holds at most
 * WINDOW_POOL_BYTES: for large messages the window shrinks to what fits
 * (64 MiB / 4 MiB = 16 messages), which keeps the link saturated.
 */
#ifndef MPF_TUNE_WINDOW_H
#define MPF_TUNE_WINDOW_H

#include "kernel_util.h"

enum { WINDOW_DEFAULT = 64, WINDOW_MAX = 1024, WINDOW_POOL_BYTES = 64 << 20, WINDOW_TAG = 1, WINDOW_ACK_TAG = 2 };

struct window {
  struct ku_kernel *k;
  int window;            /* --window: messages in flight */
  long pool_bytes;       /* size of each pool */
  unsigned char *send;   /* pool of the messages this rank sends */
  unsigned char *recv;   /* pool of the messages this rank receives */
  MPI_Request *requests; /* 2 * window */
  MPI_Status *statuses;  /* 2 * window: MPI_Waitall's (MPICH's MPI_STATUSES_IGNORE makes GCC 12 warn) */
  long seq;              /* window number, for --check patterns */
};

/* --window W (1..1024): the kernel's own option, for ku_kernel.extra. */
static inline int window_option(void *ctx, const char *arg, const char *value) {
  if (strcmp(arg, "--window") != 0) return 0;
  const long w = value ? ku_parse_long(value, 1, WINDOW_MAX) : 0;
  if (w < 1) return -1;
  ((struct window *)ctx)->window = (int)w;
  return 2;
}

static inline void window_setup(struct window *w, struct ku_kernel *k) {
  w->k = k;
  long pool = (long)w->window * ku_max_bytes(k);
  w->pool_bytes = pool < WINDOW_POOL_BYTES ? pool : WINDOW_POOL_BYTES;
  w->send = ku_alloc(k, w->pool_bytes);
  w->recv = ku_alloc(k, w->pool_bytes);
  w->requests = (MPI_Request *)(void *)ku_alloc(k, 2 * (long)w->window * (long)sizeof(MPI_Request));
  w->statuses = (MPI_Status *)(void *)ku_alloc(k, 2 * (long)w->window * (long)sizeof(MPI_Status));
}

static inline void window_free(struct window *w) {
  free(w->send);
  free(w->recv);
  free(w->requests);
  free(w->statuses);
}

/* Messages in flight for this size. */
static inline int window_messages(const struct window *w, long bytes) {
  if (bytes == 0) return w->window;
  const long fit = w->pool_bytes / bytes;
  return fit < w->window ? (int)(fit > 0 ? fit : 1) : w->window;
}

/* This rank's partner: rank r and r + size/2 stream to each other. */
static inline int window_peer(const struct ku_kernel *k) {
  const int half = k->size / 2;
  return k->rank < half ? k->rank + half : k->rank - half;
}

/* Under --check: fills this rank's n outgoing messages of the window, each
 * with its own pattern (sequence w->seq * n + m, this rank), and verifies
 * the n that came from `peer` against the same patterns. Shared by the MPI
 * and the CMA paths, so both move and check the same bytes. */
static inline void window_fill(struct window *w, long bytes, int n) {
  if (!w->k->check) return;
  for (int m = 0; m < n; ++m) ku_fill(w->send + (long)m * bytes, bytes, w->seq * n + m, w->k->rank);
}

static inline void window_verify(struct window *w, long bytes, int n, int peer) {
  if (!w->k->check) return;
  for (int m = 0; m < n; ++m) ku_verify(w->k, "message", w->recv + (long)m * bytes, bytes, w->seq * n + m, peer);
}

/* One direction: ranks of the first half stream windows to their partner in
 * the second half (rank r to r + size/2), which acknowledges each window
 * with an empty message. Returns this rank's seconds. */
static inline double window_stream(void *ctx, long bytes, int iters) {
  struct window *w = ctx;
  struct ku_kernel *k = w->k;
  const int sender = k->rank < k->size / 2, peer = window_peer(k);
  const int n = window_messages(w, bytes);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++w->seq) {
    if (sender) {
      window_fill(w, bytes, n);
      for (int m = 0; m < n; ++m) {
        MPI_Isend(w->send + (long)m * bytes, (int)bytes, MPI_BYTE, peer, WINDOW_TAG, MPI_COMM_WORLD, &w->requests[m]);
      }
      MPI_Waitall(n, w->requests, w->statuses);
      MPI_Recv(NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int m = 0; m < n; ++m) {
        MPI_Irecv(w->recv + (long)m * bytes, (int)bytes, MPI_BYTE, peer, WINDOW_TAG, MPI_COMM_WORLD,
                  &w->requests[m]);
      }
      MPI_Waitall(n, w->requests, w->statuses);
      window_verify(w, bytes, n, peer);
      MPI_Send(NULL, 0, MPI_BYTE, peer, WINDOW_ACK_TAG, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

/* Both directions at once: each rank posts a window of receives from its
 * partner (rank r and r + size/2), sends it a window, and waits for both. */
static inline double window_exchange(void *ctx, long bytes, int iters) {
  struct window *w = ctx;
  struct ku_kernel *k = w->k;
  const int peer = window_peer(k);
  const int n = window_messages(w, bytes);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++w->seq) {
    for (int m = 0; m < n; ++m) {
      MPI_Irecv(w->recv + (long)m * bytes, (int)bytes, MPI_BYTE, peer, WINDOW_TAG, MPI_COMM_WORLD, &w->requests[m]);
    }
    window_fill(w, bytes, n);
    for (int m = 0; m < n; ++m) {
      MPI_Isend(w->send + (long)m * bytes, (int)bytes, MPI_BYTE, peer, WINDOW_TAG, MPI_COMM_WORLD,
                &w->requests[n + m]);
    }
    MPI_Waitall(2 * n, w->requests, w->statuses);
    window_verify(w, bytes, n, peer);
  }
  return MPI_Wtime() - t0;
}

#endif
