/*
 * environment: the environment chapter's calls beyond Init and Finalize
 * (issue 29): MPI_Alloc_mem / MPI_Free_mem, MPI_Is_thread_main, and the
 * error classes of MPI-3.1 with their strings.
 *
 *   environment   (any number of ranks)
 */
#include <pthread.h>

#include "mpitest.h"

static void* thread_main_flag(void* out) {
  MPI_Is_thread_main((int*)out);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* Alloc_mem: aligned, writable, distinct, freed once. */
  void* blocks[4];
  const MPI_Aint sizes[4] = {0, 1, 4096, 3 << 20};
  for (int i = 0; i < 4; i++) {
    CHECK_RC(MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &blocks[i]));
    CHECK(blocks[i] != NULL && (uintptr_t)blocks[i] % 16 == 0, "MPI_Alloc_mem(%ld) gave %p", (long)sizes[i],
          blocks[i]);
    memset(blocks[i], 0xab, (size_t)sizes[i]);
    for (int j = 0; j < i; j++) CHECK(blocks[i] != blocks[j], "two allocations share the address %p", blocks[i]);
  }
  MPI_Info info;
  CHECK_RC(MPI_Info_create(&info));
  CHECK_RC(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  void* hinted = NULL;
  CHECK_RC(MPI_Alloc_mem(100, info, &hinted));
  CHECK_RC(MPI_Free_mem(hinted));
  /* MPI_Info_get_string: the length first, then the value, cut to fit. */
  int buflen = 0, found = 0;
  CHECK_RC(MPI_Info_get_string(info, "alloc_shared_noncontig", &buflen, NULL, &found));
  CHECK(found == 1 && buflen == 5, "MPI_Info_get_string length: flag %d buflen %d", found, buflen);
  char value[8];
  buflen = 3;
  CHECK_RC(MPI_Info_get_string(info, "alloc_shared_noncontig", &buflen, value, &found));
  CHECK(strcmp(value, "tr") == 0 && buflen == 5, "MPI_Info_get_string cut: '%s' %d", value, buflen);
  buflen = (int)sizeof value;
  CHECK_RC(MPI_Info_get_string(info, "no_such_key", &buflen, value, &found));
  CHECK(found == 0, "MPI_Info_get_string found a key that is not there");
  /* MPI_Comm_idup_with_info. */
  MPI_Comm dup;
  MPI_Request req;
  CHECK_RC(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &dup, &req));
  CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int result = MPI_UNEQUAL;
  CHECK_RC(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT, "MPI_Comm_idup_with_info made a communicator that compares %d", result);
  CHECK_RC(MPI_Comm_free(&dup));
  CHECK_RC(MPI_Info_free(&info));
  for (int i = 0; i < 4; i++) CHECK_RC(MPI_Free_mem(blocks[i]));
  CHECK_CLASS(MPI_Free_mem(blocks[2]), MPI_ERR_BASE);  /* freed already */
  int on_stack = 0;
  CHECK_CLASS(MPI_Free_mem(&on_stack), MPI_ERR_BASE); /* never allocated */
  void* nothing = NULL;
  CHECK_CLASS(MPI_Alloc_mem(-1, MPI_INFO_NULL, &nothing), MPI_ERR_SIZE);
  CHECK_CLASS(MPI_Alloc_mem(8, 12345, &nothing), MPI_ERR_INFO);

  /* Is_thread_main: this thread, not another. */
  int flag = -1, other = -1;
  CHECK_RC(MPI_Is_thread_main(&flag));
  CHECK(flag == 1, "MPI_Is_thread_main in the main thread says %d", flag);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_main_flag, &other) == 0, "pthread_create failed");
  pthread_join(t, NULL);
  CHECK(other == 0, "MPI_Is_thread_main in another thread says %d", other);
  CHECK(provided == MPI_THREAD_SERIALIZED, "MPI_Init_thread provided %d", provided);

  /* Every error class is its own class and has a string of its own. */
  const int classes[] = {MPI_ERR_ACCESS,      MPI_ERR_AMODE,        MPI_ERR_ASSERT,      MPI_ERR_BAD_FILE,
                         MPI_ERR_BASE,        MPI_ERR_CONVERSION,   MPI_ERR_DISP,        MPI_ERR_DUP_DATAREP,
                         MPI_ERR_FILE_EXISTS, MPI_ERR_FILE_IN_USE,  MPI_ERR_FILE,        MPI_ERR_IO,
                         MPI_ERR_LOCKTYPE,    MPI_ERR_NAME,         MPI_ERR_NO_MEM,      MPI_ERR_NOT_SAME,
                         MPI_ERR_NO_SPACE,    MPI_ERR_NO_SUCH_FILE, MPI_ERR_PORT,        MPI_ERR_QUOTA,
                         MPI_ERR_READ_ONLY,   MPI_ERR_RMA_ATTACH,   MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_RANGE,
                         MPI_ERR_RMA_SHARED,  MPI_ERR_RMA_SYNC,     MPI_ERR_RMA_FLAVOR,  MPI_ERR_SERVICE,
                         MPI_ERR_SIZE,        MPI_ERR_SPAWN,        MPI_ERR_UNSUPPORTED_DATAREP,
                         MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_WIN};
  const int n = (int)(sizeof classes / sizeof classes[0]);
  static char texts[64][MPI_MAX_ERROR_STRING];
  for (int i = 0; i < n; i++) {
    int cls = -1, len = 0;
    CHECK(classes[i] > MPI_SUCCESS && classes[i] <= MPI_ERR_LASTCODE, "class %d outside (0, MPI_ERR_LASTCODE]",
          classes[i]);
    CHECK_RC(MPI_Error_class(classes[i], &cls));
    CHECK(cls == classes[i], "MPI_Error_class(%d) is %d", classes[i], cls);
    CHECK_RC(MPI_Error_string(classes[i], texts[i], &len));
    CHECK(len > 0 && strstr(texts[i], "unknown") == NULL, "error class %d has the string '%s'", classes[i], texts[i]);
    for (int j = 0; j < i; j++) {
      CHECK(classes[i] != classes[j] && strcmp(texts[i], texts[j]) != 0, "classes %d and %d clash", classes[i],
            classes[j]);
    }
  }
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("environment ok\n");
  MPI_Finalize();
  return 0;
}
