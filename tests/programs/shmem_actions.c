/* OpenSHMEM programs that go wrong in the ways the library and mpfinspect
 * name: hangs (word, barrier, lock) for mpfinspect --deadlock, and bad
 * input that ends the job with one line (tests/shmem/errors.cmake). */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long lock;
static long counters[4];

int main(int argc, char** argv) {
  const char* action = argc > 1 ? argv[1] : "";
  if (strcmp(action, "before-init") == 0) {
    printf("%d\n", shmem_my_pe());
    return 0;
  }
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();
  long* words = shmem_calloc(4, sizeof(long));
  long stack_word = 0;
  if (strcmp(action, "word") == 0) {
    /* Every PE waits for a word nobody writes. */
    shmem_long_wait_until(&words[1], SHMEM_CMP_EQ, 7);
  } else if (strcmp(action, "barrier") == 0) {
    /* PE 1 waits on a word while the others wait for it in the barrier. */
    if (me == 1) shmem_long_wait_until(&words[2], SHMEM_CMP_GT, 0);
    shmem_barrier_all();
  } else if (strcmp(action, "lock") == 0) {
    /* PE 0 takes the lock and waits forever; the others want the lock. */
    if (me == 0) shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 0) {
      shmem_long_wait_until(&words[0], SHMEM_CMP_NE, 0);
    } else {
      shmem_set_lock(&lock);
    }
  } else if (strcmp(action, "pe-out-of-range") == 0) {
    shmem_long_p(&words[0], 1, npes);
  } else if (strcmp(action, "not-symmetric") == 0) {
    shmem_long_put(&stack_word, &words[0], 1, (me + 1) % npes);
  } else if (strcmp(action, "heap-exhausted") == 0) {
    /* The standard's answer is a null pointer; the library says why. */
    void* huge = shmem_malloc((size_t)1 << 40);
    if (huge != NULL) return 1;
    shmem_barrier_all();
    if (me == 0) printf("heap-exhausted ok\n");
  } else if (strcmp(action, "invalid-team") == 0) {
    shmem_team_sync(SHMEM_TEAM_INVALID);
  } else if (strcmp(action, "lock-not-symmetric") == 0) {
    shmem_set_lock(&stack_word);
  } else if (strcmp(action, "mismatched-malloc") == 0) {
    shmem_malloc(me == 0 ? 64 : 128);
  } else if (strcmp(action, "bad-comparison") == 0) {
    shmem_long_wait_until(&words[0], 42, 0);
  } else if (strcmp(action, "destroyed-context") == 0) {
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) return 1;
    shmem_ctx_destroy(ctx);
    shmem_ctx_long_p(ctx, &words[0], 1, 0);
  } else if (strcmp(action, "misaligned-atomic") == 0) {
    shmem_long_atomic_add((long*)((char*)&counters[1] + 4), 1, 0);
  } else if (strcmp(action, "clear-not-held") == 0) {
    shmem_clear_lock(&lock);
  } else if (strcmp(action, "lock-twice") == 0) {
    shmem_set_lock(&lock);
    shmem_set_lock(&lock);
  } else if (strcmp(action, "free-not-a-block") == 0) {
    shmem_free(&words[1]);
  } else {
    fprintf(stderr, "unknown action '%s'\n", action);
    return 2;
  }
  shmem_finalize();
  return 0;
}
