/* An OpenSHMEM program built with oshcc (as C) and oshcxx (as C++) and
 * started by oshrun: every PE says who it is. */
#include <shmem.h>
#include <stdio.h>

int main(void) {
  shmem_init();
  printf("shmem PE %d of %d\n", shmem_my_pe(), shmem_n_pes());
  shmem_finalize();
  return 0;
}
