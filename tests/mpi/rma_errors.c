/*
 * rma_errors: every error class one-sided communication raises, returned
 * (MPI_ERRORS_RETURN on the window and on MPI_COMM_WORLD), each message
 * naming the call, the rank and the bad value; and the fatal handler's
 * message for an access outside the window.
 *
 *   rma_errors return        (2 ranks) every class; prints "rma_errors ok"
 * It runs with rma_regions=64 (a dynamic window's attach table runs out).
 * Last, every rank makes its descriptors unreachable through /proc (as a
 * non-dumpable process's are): a window then cannot be mapped by the
 * members that did not create it, and creating one fails on every member
 * with an error, not a crash.
 *
 *   rma_errors fatal-range   (2 ranks) rank 0 puts past rank 1's window with
 *                            the default handler: the job ends with code 48
 *                            (MPI_ERR_RMA_RANGE) and the library's message
 */
#define _GNU_SOURCE /* syscall() */
#include "mpitest.h"
#include "../common/refuse_cma.h"

enum { WIN_BYTES = 4096 };

static int rank;
static char last_message[MPI_MAX_ERROR_STRING];
static int handler_calls;
static MPI_Win handler_win;

static void on_error(MPI_Win *win, int *code, ...) {
  va_list ap;
  va_start(ap, code);
  const char *call = va_arg(ap, const char *);
  const char *detail = va_arg(ap, const char *);
  va_end(ap);
  snprintf(last_message, sizeof last_message, "%s: %s", call, detail);
  handler_win = *win;
  ++handler_calls;
}

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

/* The call returns `cls` and the handler saw a message containing `text`. */
#define CHECK_WIN_ERROR(call, cls, text)                                                                  \
  do {                                                                                                  \
    last_message[0] = '\0';                                                                             \
    CHECK_CLASS(call, cls);                                                                             \
    CHECK(strstr(last_message, text) != NULL, "%s: message '%s' lacks '%s'", #call, last_message, text); \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int n;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  CHECK(n == 2, "run with 2 ranks");
  CHECK(argc == 2, "usage: rma_errors return|fatal-range");
  int *buf = mt_alloc(WIN_BYTES);
  memset(buf, 0, WIN_BYTES);
  MPI_Win win;

  if (strcmp(argv[1], "fatal-range") == 0) {
    CHECK_RC(MPI_Win_create(buf, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK_RC(MPI_Win_fence(0, win));
    if (rank == 0) {
      const double value = 1;
      MPI_Put(&value, 1, MPI_DOUBLE, 1, WIN_BYTES, 1, MPI_DOUBLE, win);
      printf("MPI_Put past the window returned under MPI_ERRORS_ARE_FATAL\n");
    }
    MPI_Win_fence(0, win);
    MPI_Finalize();
    return 0;
  }
  CHECK(strcmp(argv[1], "return") == 0, "unknown mode %s", argv[1]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int value = 0, result = 0;

  /* Creation. */
  CHECK_CLASS(MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
  CHECK_CLASS(MPI_Win_create(buf, WIN_BYTES, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
  CHECK_CLASS(MPI_Win_create(buf, WIN_BYTES, 1, MPI_INFO_NULL, (MPI_Comm)999, &win), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Win_create(buf, WIN_BYTES, 1, (MPI_Info)777, MPI_COMM_WORLD, &win), MPI_ERR_INFO);
  void *base = NULL;
  /* More memory than any node has: the shared window cannot be made. */
  CHECK_CLASS(MPI_Win_allocate_shared((MPI_Aint)1 << 62, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win),
              MPI_ERR_RMA_SHARED);
  CHECK_CLASS(MPI_Win_allocate((MPI_Aint)1 << 62, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_NO_MEM);
  CHECK_CLASS(MPI_Win_free(&(MPI_Win){12345}), MPI_ERR_WIN);
  CHECK_CLASS(MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);

  CHECK_RC(MPI_Win_create(buf, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Errhandler handler;
  CHECK_RC(MPI_Win_create_errhandler(on_error, &handler));
  CHECK_RC(MPI_Win_set_errhandler(win, handler));
  MPI_Errhandler got;
  CHECK_RC(MPI_Win_get_errhandler(win, &got));
  CHECK(got == handler, "MPI_Win_get_errhandler returned %d, not %d", got, handler);

  /* No epoch open. */
  CHECK_WIN_ERROR(MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                  "no access epoch at rank 1 is open");
  CHECK(handler_win == win && handler_calls > 0, "the window's handler got window %d", handler_win);
  CHECK_WIN_ERROR(MPI_Win_unlock(1, win), MPI_ERR_RMA_SYNC, "holds no lock at rank 1");
  CHECK_WIN_ERROR(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "no access epoch (MPI_Win_start) is open");
  CHECK_WIN_ERROR(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "no exposure epoch (MPI_Win_post) is open");
  CHECK_WIN_ERROR(MPI_Win_flush(1, win), MPI_ERR_RMA_SYNC, "no passive-target epoch");
  CHECK_WIN_ERROR(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all was not called");

  /* Assertions and lock types. */
  CHECK_WIN_ERROR(MPI_Win_fence(1, win), MPI_ERR_ASSERT, "assertion 1");
  CHECK_WIN_ERROR(MPI_Win_lock(99, 1, 0, win), MPI_ERR_LOCKTYPE, "lock type 99");
  CHECK_WIN_ERROR(MPI_Win_lock(MPI_LOCK_SHARED, 5, 0, win), MPI_ERR_RANK, "rank 5 is not in window");

  /* Passive target: nested locks, and locks beside active target. */
  CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
  CHECK_WIN_ERROR(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win), MPI_ERR_RMA_SYNC, "holds a lock at rank 1 already");
  CHECK_WIN_ERROR(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "holds a lock (MPI_Win_lock) already");
  CHECK_WIN_ERROR(MPI_Win_fence(0, win), MPI_ERR_RMA_CONFLICT, "do not mix");
  MPI_Group world, other;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  const int peer = 1 - rank;
  MPI_Group_incl(world, 1, &peer, &other);
  CHECK_WIN_ERROR(MPI_Win_start(other, 0, win), MPI_ERR_RMA_CONFLICT, "a passive-target epoch (MPI_Win_lock) is open");
  CHECK_WIN_ERROR(MPI_Win_free(&win), MPI_ERR_RMA_SYNC, "a lock (MPI_Win_lock) is held");

  /* The target side of an operation. */
  CHECK_WIN_ERROR(MPI_Put(&value, 1, MPI_INT, 1, WIN_BYTES - 2, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                  "target range [4094, 4098) is outside rank 1's window of 4096 bytes");
  CHECK(strstr(last_message, "MPI_Put") == last_message, "the message names the call: %s", last_message);
  CHECK_WIN_ERROR(MPI_Get(&value, 1, MPI_INT, 1, -4, 1, MPI_INT, win), MPI_ERR_DISP, "negative target displacement -4");
  CHECK_WIN_ERROR(MPI_Put(&value, 1, MPI_INT, 7, 0, 1, MPI_INT, win), MPI_ERR_RANK, "target rank 7");
  CHECK_WIN_ERROR(MPI_Put(&value, 1, MPI_INT, 1, 0, 2, MPI_INT, win), MPI_ERR_TYPE, "type signatures must match");
  CHECK_WIN_ERROR(MPI_Put(&value, -1, MPI_INT, 1, 0, 1, MPI_INT, win), MPI_ERR_COUNT, "negative origin count");
  CHECK_WIN_ERROR(MPI_Put(&value, 1, (MPI_Datatype)4242, 1, 0, 1, MPI_INT, win), MPI_ERR_TYPE, "origin datatype");
  CHECK_WIN_ERROR(MPI_Accumulate(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP, "MPI_NO_OP");
  CHECK_WIN_ERROR(MPI_Accumulate(&value, 1, MPI_INT, 1, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE,
                  "of one predefined type");
  MPI_Op user;
  CHECK_RC(MPI_Op_create(add_ints, 1, &user));
  CHECK_WIN_ERROR(MPI_Accumulate(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, user, win), MPI_ERR_OP,
                  "only the predefined operations");
  CHECK_WIN_ERROR(MPI_Accumulate(&value, 1, MPI_BYTE, 1, 0, 1, MPI_BYTE, MPI_SUM, win), MPI_ERR_OP, "MPI_SUM");
  const double dvalue = 1;
  double dresult;
  CHECK_WIN_ERROR(MPI_Compare_and_swap(&dvalue, &dvalue, &dresult, MPI_DOUBLE, 1, 0, win), MPI_ERR_TYPE,
                  "cannot be compared and swapped");
  CHECK_RC(MPI_Fetch_and_op(&value, &result, MPI_INT, 1, 0, MPI_NO_OP, win));
  CHECK_RC(MPI_Put(&value, 1, MPI_INT, MPI_PROC_NULL, -99, 1, MPI_INT, win));
  CHECK_RC(MPI_Win_unlock(1, win));
  MPI_Op_free(&user);

  /* Active target: nested epochs, fences beside them. */
  CHECK_RC(MPI_Win_post(other, 0, win));
  CHECK_WIN_ERROR(MPI_Win_post(other, 0, win), MPI_ERR_RMA_SYNC, "is open already");
  CHECK_WIN_ERROR(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "an exposure epoch (MPI_Win_post) is open");
  CHECK_RC(MPI_Win_start(other, 0, win));
  CHECK_WIN_ERROR(MPI_Win_start(other, 0, win), MPI_ERR_RMA_SYNC, "is open already");
  CHECK_WIN_ERROR(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_CONFLICT, "MPI_Win_start");
  CHECK_WIN_ERROR(MPI_Win_post((MPI_Group)4242, 0, win), MPI_ERR_RMA_SYNC, "open already");
  CHECK_RC(MPI_Win_complete(win));
  CHECK_RC(MPI_Win_wait(win));
  CHECK_WIN_ERROR(MPI_Win_start((MPI_Group)4242, 0, win), MPI_ERR_GROUP, "invalid group");

  /* A fence epoch in use conflicts with a lock; an unused one gives way. */
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK_RC(MPI_Put(&value, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
  CHECK_WIN_ERROR(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_CONFLICT, "in the fence epoch");
  CHECK_RC(MPI_Win_fence(0, win));
  CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  CHECK_RC(MPI_Win_unlock(peer, win));

  /* Flavors. */
  MPI_Aint size;
  int disp_unit;
  /* MPI-4.0's shared query of another flavor: a peer's process memory is not mapped here. */
  CHECK_RC(MPI_Win_shared_query(win, peer, &size, &disp_unit, &base));
  CHECK(size == 0 && base == NULL, "another rank's process memory queried as %ld bytes at %p", (long)size, base);
  CHECK_RC(MPI_Win_shared_query(win, rank, &size, &disp_unit, &base));
  CHECK(size == WIN_BYTES && base == buf, "this rank's own memory queried as %ld bytes at %p", (long)size, base);
  CHECK_WIN_ERROR(MPI_Win_attach(win, buf, 16), MPI_ERR_RMA_FLAVOR, "was not made by MPI_Win_create_dynamic");
  CHECK_WIN_ERROR(MPI_Win_detach(win, buf), MPI_ERR_RMA_FLAVOR, "was not made by MPI_Win_create_dynamic");
  CHECK_RC(MPI_Win_free(&win));

  /* Dynamic windows: attaching and reaching what is attached. */
  CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_RC(MPI_Win_set_errhandler(win, handler));
  CHECK_RC(MPI_Win_attach(win, buf, 1024));
  CHECK_WIN_ERROR(MPI_Win_attach(win, (char *)buf + 512, 1024), MPI_ERR_RMA_ATTACH, "overlaps memory attached");
  CHECK_WIN_ERROR(MPI_Win_detach(win, (char *)buf + 8), MPI_ERR_RMA_ATTACH, "no memory is attached at address");
  static char regions[65][16];
  int attached = 0, rc = MPI_SUCCESS;
  while (attached < 65 && (rc = MPI_Win_attach(win, regions[attached], 16)) == MPI_SUCCESS) ++attached;
  CHECK(rc == MPI_ERR_RMA_ATTACH && attached == 63, "attached %d regions, then %d", attached, rc);
  CHECK(strstr(last_message, "the most it takes (the rma_regions tunable") != NULL, "message: %s", last_message);
  MPI_Aint address[2];
  MPI_Get_address(buf, &address[rank]);
  CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 1, MPI_AINT, address, 1, MPI_AINT, MPI_COMM_WORLD));
  CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  CHECK_RC(MPI_Put(&value, 1, MPI_INT, peer, address[peer] + 64, 1, MPI_INT, win));
  CHECK_WIN_ERROR(MPI_Put(&value, 1, MPI_INT, peer, address[peer] + 1022, 1, MPI_INT, win), MPI_ERR_RMA_RANGE,
                  "lies in no memory rank");
  CHECK_RC(MPI_Win_unlock(peer, win));
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < attached; ++i) CHECK_RC(MPI_Win_detach(win, regions[i]));
  CHECK_RC(MPI_Win_detach(win, buf));
  CHECK_RC(MPI_Win_free(&win));

  /* A window made with no_locks=true refuses locks. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "true");
  CHECK_RC(MPI_Win_create(buf, WIN_BYTES, 1, info, MPI_COMM_WORLD, &win));
  CHECK_RC(MPI_Win_set_errhandler(win, handler));
  CHECK_WIN_ERROR(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC, "no_locks=true");
  CHECK_RC(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK(strstr(last_message, "MPI_Win_call_errhandler") != NULL, "message: %s", last_message);
  CHECK_RC(MPI_Win_free(&win));
  MPI_Info_free(&info);

  refuse_cma();
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_CLASS(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_OTHER);
  MPI_Errhandler_free(&handler);
  MPI_Group_free(&other);
  MPI_Group_free(&world);
  free(buf);
  if (rank == 0) printf("rma_errors ok\n");
  MPI_Finalize();
  return 0;
}
