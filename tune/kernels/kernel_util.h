/*
 * kernel_util.h: the MPI kernels' binding of kernel_core.h (options, sizes,
 * measurement, output lines: see there). Plain MPI, point-to-point only, so
 * that it runs on an MPI without collectives and the same kernels build
 * against any MPI implementation: ku_init calls MPI_Init, ku_finish
 * MPI_Finalize, rank and size are those of MPI_COMM_WORLD, rank 0 shares its
 * decisions by MPI_Send, and `# library:` is MPI_Get_library_version.
 */
#ifndef MPF_TUNE_KERNEL_UTIL_H
#define MPF_TUNE_KERNEL_UTIL_H

#include <mpi.h>

#include "kernel_core.h"

enum { KU_TAG_CONTROL = 32000 };

static inline void ku_api_init(int *argc, char ***argv, int *rank, int *size) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

static inline void ku_api_print_library(void) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  /* One line: the lines of the version string separated by "; ". */
  printf("# library: ");
  for (int i = 0; i < len && version[i] != '\0'; ++i) {
    const char c = version[i];
    if (c == '\n' || c == '\r') {
      if (i + 1 < len && version[i + 1] != '\0' && version[i + 1] != '\n') printf("; ");
    } else {
      putchar(c == '\t' ? ' ' : c);
    }
  }
  printf("\n");
}

static inline void ku_api_finalize(void) { MPI_Finalize(); }

static inline void ku_api_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

/* Point-to-point: no collective needed. */
static inline void ku_share_int(struct ku_kernel *k, int *value) {
  if (k->rank == 0) {
    for (int r = 1; r < k->size; ++r) MPI_Send(value, 1, MPI_INT, r, KU_TAG_CONTROL, MPI_COMM_WORLD);
  } else {
    MPI_Recv(value, 1, MPI_INT, 0, KU_TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

#endif
