/* Symmetric memory management (OpenSHMEM 1.5 chapter 9.3): shmem_malloc,
 * shmem_calloc, shmem_align, shmem_realloc, shmem_free and
 * shmem_malloc_with_hints. Blocks lie at the same offsets on every PE and
 * puts from another PE land in them; size zero allocates nothing; freed
 * space is reused. */
#include "shmemtest.h"

#include <stdint.h>

enum { NBLOCKS = 8 };
static long offsets[NBLOCKS];
static long remote_offsets[NBLOCKS];

/* The left neighbour puts a pattern into `block` on this PE; this PE checks it. */
static void put_lands(void *block, size_t size, uint64_t salt, const char *what) {
  unsigned char *src = malloc(size);
  CHECK(src != NULL, "malloc(%zu) failed", size);
  memset(block, 0, size);
  shmem_barrier_all();
  st_fill(src, size, ((uint64_t)shmem_my_pe() << 32) ^ salt);
  shmem_putmem(block, src, size, st_right());
  shmem_barrier_all();
  st_verify(block, size, ((uint64_t)st_left() << 32) ^ salt, what);
  shmem_barrier_all();
  free(src);
}

static void zero_sizes(void) {
  CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) did not return NULL");
  CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) did not return NULL");
  CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) did not return NULL");
  CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) did not return NULL");
  CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
        "shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) did not return NULL");
  shmem_free(NULL);
}

static void blocks(void) {
  const int n = shmem_n_pes();
  unsigned char *b[NBLOCKS];
  const size_t sizes[NBLOCKS] = {1000, 24, 100, 5000, 800, 256, 256, 256};
  b[0] = shmem_malloc(sizes[0]);
  b[1] = shmem_malloc(sizes[1]);
  b[2] = shmem_align(64, sizes[2]);
  b[3] = shmem_align(4096, sizes[3]);
  b[4] = shmem_calloc(100, 8);
  b[5] = shmem_malloc_with_hints(sizes[5], SHMEM_MALLOC_ATOMICS_REMOTE);
  b[6] = shmem_malloc_with_hints(sizes[6], SHMEM_MALLOC_SIGNAL_REMOTE);
  b[7] = shmem_malloc_with_hints(sizes[7], 0);
  for (int i = 0; i < NBLOCKS; ++i) CHECK(b[i] != NULL, "allocation %d of %zu bytes returned NULL", i, sizes[i]);
  CHECK((uintptr_t)b[0] % sizeof(long double) == 0, "shmem_malloc returned %p, not aligned for long double",
        (void *)b[0]);
  CHECK((uintptr_t)b[2] % 64 == 0, "shmem_align(64, 100) returned %p", (void *)b[2]);
  CHECK((uintptr_t)b[3] % 4096 == 0, "shmem_align(4096, 5000) returned %p", (void *)b[3]);
  for (size_t i = 0; i < 800; ++i) CHECK(b[4][i] == 0, "shmem_calloc(100, 8): byte %zu is %u", i, b[4][i]);
  /* Blocks overlap nothing: fill each with its own byte and read them back. */
  for (int i = 0; i < NBLOCKS; ++i) memset(b[i], 0x10 + i, sizes[i]);
  for (int i = 0; i < NBLOCKS; ++i)
    for (size_t j = 0; j < sizes[i]; ++j)
      CHECK(b[i][j] == 0x10 + i, "block %d byte %zu is 0x%x after filling every block: blocks overlap", i, j,
            b[i][j]);
  /* The same offsets on every PE. */
  for (int i = 0; i < NBLOCKS; ++i) offsets[i] = (long)((char *)b[i] - (char *)b[0]);
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    shmem_long_get(remote_offsets, offsets, NBLOCKS, pe);
    for (int i = 0; i < NBLOCKS; ++i)
      CHECK(remote_offsets[i] == offsets[i], "block %d lies %ld bytes after block 0 on PE %d, %ld bytes here", i,
            remote_offsets[i], pe, offsets[i]);
  }
  for (int i = 0; i < NBLOCKS; ++i) {
    char what[64];
    snprintf(what, sizeof what, "block %d of %zu bytes", i, sizes[i]);
    put_lands(b[i], sizes[i], (uint64_t)i + 1, what);
  }
  /* The hinted blocks serve atomics and signals. */
  long *counter = (long *)b[5];
  uint64_t *signal = (uint64_t *)b[6];
  *counter = 0;
  *signal = 0;
  shmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) shmem_long_atomic_add(counter, shmem_my_pe() + 1, pe);
  shmem_putmem_signal(b[7], "x", 1, signal, 1, SHMEM_SIGNAL_ADD, st_right());
  shmem_barrier_all();
  CHECK_EQ(*counter, (long)n * (n + 1) / 2, "the sum of every PE's atomic add into a hinted block");
  CHECK_EQ(shmem_signal_fetch(signal), 1, "the signal in a block allocated with SHMEM_MALLOC_SIGNAL_REMOTE");
  CHECK(b[7][0] == 'x', "the byte put with the signal is 0x%x, expected 'x'", b[7][0]);
  shmem_barrier_all();
  for (int i = NBLOCKS - 1; i >= 0; --i) shmem_free(b[i]);
}

/* calloc zeroes memory that a freed block left dirty. */
static void calloc_zeroes(void) {
  unsigned char *dirty = shmem_malloc(1 << 16);
  CHECK(dirty != NULL, "shmem_malloc(64 KiB) returned NULL");
  memset(dirty, 0xa5, 1 << 16);
  shmem_free(dirty);
  unsigned char *clean = shmem_calloc(1 << 13, 8);
  CHECK(clean != NULL, "shmem_calloc(8192, 8) returned NULL");
  for (size_t i = 0; i < (1 << 16); ++i) CHECK(clean[i] == 0, "shmem_calloc(8192, 8): byte %zu is 0x%x", i, clean[i]);
  unsigned char *odd = shmem_calloc(3, 1);
  CHECK(odd != NULL && odd[0] == 0 && odd[1] == 0 && odd[2] == 0, "shmem_calloc(3, 1) is not 3 zero bytes");
  shmem_free(odd);
  shmem_free(clean);
}

static void reallocation(void) {
  const int me = shmem_my_pe();
  const uint64_t seed = 0x5eed0000u + (uint64_t)me;
  unsigned char *p = shmem_malloc(100);
  CHECK(p != NULL, "shmem_malloc(100) returned NULL");
  st_fill(p, 100, seed);
  /* A block allocated after it, so that growing cannot simply extend it. */
  unsigned char *after = shmem_malloc(100);
  CHECK(after != NULL, "shmem_malloc(100) returned NULL");
  memset(after, 0x77, 100);
  unsigned char *grown = shmem_realloc(p, 200000);
  CHECK(grown != NULL, "shmem_realloc(block, 200000) returned NULL");
  st_verify(grown, 100, seed, "the first 100 bytes after shmem_realloc grew the block to 200000");
  put_lands(grown + 199000, 1000, 77, "the end of a block grown by shmem_realloc");
  st_fill(grown, 200000, seed);
  unsigned char *shrunk = shmem_realloc(grown, 50);
  CHECK(shrunk != NULL, "shmem_realloc(block, 50) returned NULL");
  st_verify(shrunk, 50, seed, "the first 50 bytes after shmem_realloc shrank the block to 50");
  put_lands(shrunk, 50, 78, "a block shrunk by shmem_realloc");
  for (int i = 0; i < 100; ++i) CHECK(after[i] == 0x77, "byte %d of a neighbouring block changed to 0x%x", i, after[i]);
  CHECK(shmem_realloc(shrunk, 0) == NULL, "shmem_realloc(block, 0) did not return NULL");
  unsigned char *fresh = shmem_realloc(NULL, 64);
  CHECK(fresh != NULL, "shmem_realloc(NULL, 64) returned NULL");
  put_lands(fresh, 64, 79, "a block allocated by shmem_realloc(NULL, 64)");
  /* realloc keeps a hinted block usable for atomics. */
  long *hinted = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
  CHECK(hinted != NULL, "shmem_malloc_with_hints(%zu, SHMEM_MALLOC_ATOMICS_REMOTE) returned NULL", sizeof(long));
  *hinted = 5;
  long *rehinted = shmem_realloc(hinted, 4 * sizeof(long));
  CHECK(rehinted != NULL, "shmem_realloc of a hinted block returned NULL");
  CHECK_EQ(rehinted[0], 5, "the word kept by shmem_realloc of a hinted block");
  shmem_barrier_all();
  shmem_long_atomic_add(&rehinted[0], 1, st_right());
  shmem_barrier_all();
  CHECK_EQ(rehinted[0], 6, "a reallocated hinted word after my left neighbour's atomic add");
  shmem_free(rehinted);
  shmem_free(fresh);
  shmem_free(after);
}

/* Many small blocks: each keeps its contents while others come and go, and
 * puts into them land. */
static void many_small(void) {
  enum { COUNT = 400 };
  static unsigned char *blk[COUNT];
  const int me = shmem_my_pe();
  size_t size[COUNT];
  for (int i = 0; i < COUNT; ++i) {
    size[i] = (size_t)(i % 13 + 1) * 8 + (size_t)(i % 3);
    blk[i] = shmem_malloc(size[i]);
    CHECK(blk[i] != NULL, "small block %d of %zu bytes: shmem_malloc returned NULL", i, size[i]);
    st_fill(blk[i], size[i], (uint64_t)i * 1000 + (uint64_t)me);
  }
  for (int i = 1; i < COUNT; i += 2) shmem_free(blk[i]);
  for (int i = 1; i < COUNT; i += 2) {
    size[i] = (size_t)(i % 7 + 1) * 16;
    blk[i] = shmem_malloc(size[i]);
    CHECK(blk[i] != NULL, "small block %d of %zu bytes, again: shmem_malloc returned NULL", i, size[i]);
    memset(blk[i], 0, size[i]);
  }
  shmem_barrier_all();
  for (int i = 1; i < COUNT; i += 2) {
    unsigned char src[128];
    st_fill(src, size[i], (uint64_t)i * 7 + (uint64_t)me);
    shmem_putmem(blk[i], src, size[i], st_right());
  }
  shmem_barrier_all();
  for (int i = 0; i < COUNT; ++i) {
    char what[64];
    snprintf(what, sizeof what, "small block %d", i);
    if (i % 2 == 0)
      st_verify(blk[i], size[i], (uint64_t)i * 1000 + (uint64_t)me, what);
    else
      st_verify(blk[i], size[i], (uint64_t)i * 7 + (uint64_t)st_left(), what);
  }
  shmem_barrier_all();
  for (int i = COUNT - 1; i >= 0; --i) shmem_free(blk[i]);
}

/* Freed space is reused: 512 rounds of 8 MiB come to 4 GiB. */
static void reuse(void) {
  const size_t size = (size_t)8 << 20;
  for (int round = 0; round < 512; ++round) {
    unsigned char *p = shmem_malloc(size);
    CHECK(p != NULL, "round %d: shmem_malloc(8 MiB) returned NULL: freed blocks are not reused", round);
    p[0] = (unsigned char)round;
    p[size - 1] = (unsigned char)round;
    shmem_free(p);
  }
}

int main(void) {
  shmem_init();
  zero_sizes();
  blocks();
  calloc_zeroes();
  reallocation();
  many_small();
  reuse();
  zero_sizes();
  st_done("memory");
  shmem_finalize();
  return 0;
}
