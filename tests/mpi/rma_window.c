/*
 * rma_window: what a window is besides its operations (MPI-3.1 §11.2):
 * its attributes for each flavor, keyvals with copy and delete callbacks,
 * its name, group and hints; memory from MPI_Alloc_mem; and the memory of
 * MPI_Win_allocate_shared, contiguous in rank order (or each part on pages
 * of its own with alloc_shared_noncontig), loaded and stored directly
 * through MPI_Win_shared_query's pointers.
 */
#include "mpitest.h"

static int rank, n;
static int deleted;

static int count_delete(MPI_Win win, int keyval, void *value, void *extra) {
  (void)win;
  (void)keyval;
  (void)extra;
  CHECK(*(int *)value == 77, "the delete callback got value %d", *(int *)value);
  ++deleted;
  return MPI_SUCCESS;
}

static void check_attributes(MPI_Win win, void *base, MPI_Aint size, int disp_unit, int flavor) {
  void *value = NULL;
  int flag = 0;
  CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_BASE, &value, &flag));
  CHECK(flag && value == base, "MPI_WIN_BASE is %p, not %p", value, base);
  CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_SIZE, &value, &flag));
  CHECK(flag && *(MPI_Aint *)value == size, "MPI_WIN_SIZE is %ld, not %ld", (long)*(MPI_Aint *)value, (long)size);
  CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &value, &flag));
  CHECK(flag && *(int *)value == disp_unit, "MPI_WIN_DISP_UNIT is %d", *(int *)value);
  CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &value, &flag));
  CHECK(flag && *(int *)value == flavor, "MPI_WIN_CREATE_FLAVOR is %d, not %d", *(int *)value, flavor);
  CHECK_RC(MPI_Win_get_attr(win, MPI_WIN_MODEL, &value, &flag));
  CHECK(flag && *(int *)value == MPI_WIN_UNIFIED, "MPI_WIN_MODEL is %d", *(int *)value);
}

static void check_shared(int noncontig) {
  const MPI_Aint mine = rank == 0 ? 0 : 100 * rank + 4; /* rank 0 has none */
  MPI_Info info = MPI_INFO_NULL;
  if (noncontig) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
  }
  MPI_Comm node;
  CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  char *base = NULL;
  MPI_Win win;
  CHECK_RC(MPI_Win_allocate_shared(mine, 1, info, node, &base, &win));
  check_attributes(win, base, mine, 1, MPI_WIN_FLAVOR_SHARED);
  char *prev_end = NULL;
  for (int r = 0; r < n; ++r) {
    MPI_Aint size;
    int unit;
    char *p;
    CHECK_RC(MPI_Win_shared_query(win, r, &size, &unit, &p));
    CHECK(size == (r == 0 ? 0 : 100 * r + 4) && unit == 1, "rank %d: size %ld, unit %d", r, (long)size, unit);
    if (r == rank) CHECK(p == base, "rank %d's own base is %p, not %p", r, (void *)p, (void *)base);
    if (r > 1 && !noncontig) CHECK(p == prev_end, "rank %d's part does not follow rank %d's", r, r - 1);
    if (noncontig && size > 0) CHECK(((unsigned long)p & 4095) == 0, "rank %d's part is not on a page", r);
    prev_end = p + size;
  }
  MPI_Aint size;
  int unit;
  char *first;
  CHECK_RC(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &first));
  CHECK(size == 104, "MPI_PROC_NULL names the first rank with memory: size %ld", (long)size);
  /* Loads and stores, ordered by a barrier and MPI_Win_sync. */
  CHECK_RC(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (MPI_Aint i = 0; i < mine; ++i) base[i] = (char)(rank + i);
  CHECK_RC(MPI_Win_sync(win));
  CHECK_RC(MPI_Barrier(node));
  CHECK_RC(MPI_Win_sync(win));
  const int next = rank % (n - 1) + 1;
  char *theirs;
  CHECK_RC(MPI_Win_shared_query(win, next, &size, &unit, &theirs));
  for (MPI_Aint i = 0; i < size; ++i) CHECK(theirs[i] == (char)(next + i), "rank %d's byte %ld", next, (long)i);
  CHECK_RC(MPI_Win_unlock_all(win));
  CHECK_RC(MPI_Win_free(&win));
  CHECK_RC(MPI_Comm_free(&node));
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(n >= 3, "run with at least 3 ranks");

  /* Attributes of each flavor. */
  int local[16];
  MPI_Win win;
  CHECK_RC(MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attributes(win, local, sizeof local, sizeof(int), MPI_WIN_FLAVOR_CREATE);

  /* Keyvals: values, copies (there are none: windows are not duplicated), deletes. */
  int keyval, value = 77, flag = 0;
  CHECK_RC(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &keyval, NULL));
  CHECK_RC(MPI_Win_set_attr(win, keyval, &value));
  int *got = NULL;
  CHECK_RC(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(flag && got == &value, "the attribute reads back as %p", (void *)got);
  CHECK_RC(MPI_Win_delete_attr(win, keyval));
  CHECK(deleted == 1, "MPI_Win_delete_attr ran the delete callback %d times", deleted);
  CHECK_RC(MPI_Win_get_attr(win, keyval, &got, &flag));
  CHECK(!flag, "a deleted attribute is still there");
  CHECK_RC(MPI_Win_set_attr(win, keyval, &value));

  /* Name, group, hints. */
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK_RC(MPI_Win_get_name(win, name, &len));
  CHECK(len == 0 && name[0] == '\0', "a new window is named '%s'", name);
  CHECK_RC(MPI_Win_set_name(win, "halo exchange"));
  CHECK_RC(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "halo exchange") == 0 && len == 13, "the name is '%s'", name);
  MPI_Group group, world;
  int result = -1;
  CHECK_RC(MPI_Win_get_group(win, &group));
  CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &world));
  CHECK_RC(MPI_Group_compare(group, world, &result));
  CHECK(result == MPI_IDENT, "the window's group compares %d with the communicator's", result);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  MPI_Info info;
  char hint[MPI_MAX_INFO_VAL];
  CHECK_RC(MPI_Win_get_info(win, &info));
  CHECK_RC(MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL - 1, hint, &flag));
  CHECK(flag && strcmp(hint, "false") == 0, "no_locks is '%s'", hint);
  CHECK_RC(MPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, hint, &flag));
  CHECK(flag && strcmp(hint, "rar,raw,war,waw") == 0, "accumulate_ordering is '%s'", hint);
  MPI_Info_free(&info);
  MPI_Info_create(&info);
  MPI_Info_set(info, "mpf_test_hint", "kept");
  CHECK_RC(MPI_Win_set_info(win, info));
  MPI_Info_free(&info);
  CHECK_RC(MPI_Win_get_info(win, &info));
  CHECK_RC(MPI_Info_get(info, "mpf_test_hint", MPI_MAX_INFO_VAL - 1, hint, &flag));
  CHECK(flag && strcmp(hint, "kept") == 0, "a hint set with MPI_Win_set_info reads back as '%s'", hint);
  MPI_Info_free(&info);
  CHECK_RC(MPI_Win_free(&win));
  CHECK(deleted == 2, "MPI_Win_free ran the delete callback %d times in all", deleted);
  CHECK_RC(MPI_Win_free_keyval(&keyval));

  void *base = NULL;
  CHECK_RC(MPI_Win_allocate(1000, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  check_attributes(win, base, 1000, 8, MPI_WIN_FLAVOR_ALLOCATE);
  CHECK(((unsigned long)base & 63) == 0, "MPI_Win_allocate's memory is not aligned: %p", base);
  CHECK_RC(MPI_Win_free(&win));
  CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  check_attributes(win, NULL, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
  CHECK_RC(MPI_Win_free(&win));

  /* MPI_Alloc_mem: distinct blocks, aligned, usable, freed once. */
  void *blocks[8];
  for (int i = 0; i < 8; ++i) {
    CHECK_RC(MPI_Alloc_mem(i == 7 ? 3 << 20 : 64 << i, MPI_INFO_NULL, &blocks[i]));
    CHECK(((unsigned long)blocks[i] & 63) == 0, "block %d is not aligned", i);
    memset(blocks[i], i, 64);
    for (int j = 0; j < i; ++j) CHECK(blocks[i] != blocks[j], "blocks %d and %d are the same", i, j);
  }
  /* A window over MPI_Alloc_mem's memory is node memory: every rank maps
   * the others' parts (MPI-4.0's MPI_Win_shared_query on any flavor). */
  CHECK_RC(MPI_Win_create(blocks[3], 512, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  void *peer_part = NULL;
  MPI_Aint peer_size = 0;
  int peer_unit = 0;
  CHECK_RC(MPI_Win_shared_query(win, (rank + 1) % n, &peer_size, &peer_unit, &peer_part));
  CHECK(peer_part != NULL && peer_size == 512, "MPI_Alloc_mem memory of rank %d is not mapped here (%ld bytes at %p)",
        (rank + 1) % n, (long)peer_size, peer_part);
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK(((unsigned char *)peer_part)[0] == 3, "rank %d's part reads %d", (rank + 1) % n,
        ((unsigned char *)peer_part)[0]);
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK_RC(MPI_Win_free(&win));
  for (int i = 0; i < 8; ++i) CHECK_RC(MPI_Free_mem(blocks[i]));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Free_mem(blocks[0]), MPI_ERR_BASE);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

  check_shared(0);
  check_shared(1);
  if (rank == 0) printf("rma_window ok: %d ranks\n", n);
  MPI_Finalize();
  return 0;
}
