/*
 * rma_window.h: the windows the one-sided kernels measure on, shared by
 * kernel_rma_latency, kernel_rma_bw, kernel_rma_sync and kernel_rma_exchange.
 * Plain MPI-3.
 *
 *   allocate  MPI_Win_allocate: the MPI places the memory (shared memory on
 *             a node, where one exists)
 *   create    MPI_Win_create on memory from malloc: the program's own
 *             process memory, which other processes cannot map
 */
#ifndef MPF_TUNE_RMA_WINDOW_H
#define MPF_TUNE_RMA_WINDOW_H

#include "kernel_util.h"

enum { RMA_ALLOCATE, RMA_CREATE, RMA_FLAVORS };
static const char *const rma_flavor_names[RMA_FLAVORS] = {"allocate", "create"};

struct rma_window {
  MPI_Win win;
  unsigned char *base;
  int flavor;
};

/* A window of `bytes` on MPI_COMM_WORLD with displacement unit 1, zeroed. */
static inline void rma_window_open(struct ku_kernel *k, struct rma_window *w, int flavor, long bytes) {
  w->flavor = flavor;
  if (flavor == RMA_ALLOCATE) {
    MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
  } else {
    w->base = ku_alloc(k, bytes);
    MPI_Win_create(w->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
  }
  memset(w->base, 0, (size_t)bytes);
  MPI_Barrier(MPI_COMM_WORLD);
}

static inline void rma_window_close(struct rma_window *w) {
  MPI_Win_free(&w->win);
  if (w->flavor == RMA_CREATE) free(w->base);
  w->base = NULL;
}

/* "allocate.put": an op name of the kernels' output lines. */
static inline const char *rma_op_name(char *out, size_t size, int flavor, const char *op) {
  snprintf(out, size, "%s.%s", rma_flavor_names[flavor], op);
  return out;
}

/* --flavors allocate,create: the kernels' own option (both by default). */
static inline int rma_flavor_option(int selected[RMA_FLAVORS], const char *arg, const char *value) {
  if (strcmp(arg, "--flavors") != 0) return 0;
  if (value == NULL || *value == '\0') return -1;
  for (int f = 0; f < RMA_FLAVORS; ++f) selected[f] = 0;
  for (const char *p = value;;) {
    const size_t len = strcspn(p, ",");
    int found = 0;
    for (int f = 0; f < RMA_FLAVORS; ++f) {
      if (strlen(rma_flavor_names[f]) == len && strncmp(p, rma_flavor_names[f], len) == 0) found = selected[f] = 1;
    }
    if (!found) return -1;
    if (p[len] == '\0') return 2;
    p += len + 1;
  }
}

#endif
