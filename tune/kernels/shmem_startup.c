/*
 * OpenSHMEM start-up kernel: the empty OpenSHMEM program. Timing a whole job
 * of it (launch, shmem_init, shmem_finalize, teardown) measures what a user
 * waits for before and after any real work, as the startup kernel does for
 * MPI. PE 0 prints mpftune's end line before shmem_finalize, so that a job
 * that fails in finalize or at exit is told from one that failed to start.
 * Plain OpenSHMEM, so the same source builds against any OpenSHMEM.
 */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  if (shmem_my_pe() == 0) {
    printf("mpfbench-end kernel=shmem_startup check=off\n");
    fflush(stdout);
  }
  shmem_finalize();
  return 0;
}
