/*
 * tool_interface: the MPI tool information interface (MPI-3.1 §14.3).
 *
 *   tool_interface NTUNABLES NCOUNTERS EAGER_LIMIT SHORT_LIMIT RNDV_MODE   (1 or 2 ranks)
 *
 * NTUNABLES and NCOUNTERS are counted in the library's tables by the build;
 * the other three are the values the job was given (mpfrun --set, or MPF_*
 * for a program started alone). Checks:
 *   - control variables before MPI_Init, during the job and after
 *     MPI_Finalize: one per tunable, each value what the job was given, none
 *     writable; the string length protocol; enumerations;
 *   - performance variables: a counter read through a handle counts exactly
 *     the messages sent while the handle was started (short, eager and
 *     rendezvous, one at a time from rank 0 to rank 1, or to itself alone);
 *     continuous ones cannot be started; none can be written or reset;
 *     none can be bound before MPI_Init;
 *   - categories list every variable exactly once;
 *   - MPI_T_init_thread / MPI_T_finalize are reference counted;
 *   - every bad index, name, handle, session and NULL argument gets its error.
 * Rank 0 prints "tool_interface ok: ...".
 */
#include "mpitest.h"

#define N_MESSAGES 20
#define TAG_DATA 11
#define TAG_ACK 12
#define TAG_EARLY 13
#define TAG_SYNC 14
#define N_EARLY 4
#define EARLY_BYTES 32

static int rank = -1, size = 0;
static int n_tunables, n_counters;
static unsigned long long eager_limit, short_limit;
static const char *rndv_mode;

/* MPI_T calls return their error code and call no error handler. */
#define CHECK_T(call, expected) CHECK_CLASS(call, expected)

static int cvar_index(const char *name) {
  int index = -1;
  CHECK_RC(MPI_T_cvar_get_index(name, &index));
  CHECK(index >= 0 && index < n_tunables, "cvar %s has index %d", name, index);
  return index;
}

static unsigned long long read_size_cvar(const char *name) {
  const int index = cvar_index(name);
  MPI_Datatype type = MPI_DATATYPE_NULL;
  CHECK_RC(MPI_T_cvar_get_info(index, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL));
  CHECK(type == MPI_UNSIGNED_LONG_LONG, "cvar %s: datatype %d, expected MPI_UNSIGNED_LONG_LONG", name, type);
  MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
  int count = -1;
  CHECK_RC(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count));
  CHECK(count == 1, "cvar %s: count %d", name, count);
  unsigned long long value = 0;
  CHECK_RC(MPI_T_cvar_read(handle, &value));
  CHECK_RC(MPI_T_cvar_handle_free(&handle));
  CHECK(handle == MPI_T_CVAR_HANDLE_NULL, "MPI_T_cvar_handle_free left the handle %d", handle);
  return value;
}

/* Every control variable: its description, and a value of its datatype. */
static void check_cvars(const char *when) {
  int num = -1;
  CHECK_RC(MPI_T_cvar_get_num(&num));
  CHECK(num == n_tunables, "%s: %d control variables, but the table has %d tunables", when, num, n_tunables);
  for (int i = 0; i < num; ++i) {
    char name[64], desc[2048];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, binding = -1, scope = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = -1;
    CHECK_RC(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &binding, &scope));
    CHECK(name_len == (int)strlen(name) + 1 && name_len > 1, "cvar %d: name '%s', name_len %d", i, name, name_len);
    CHECK(desc_len == (int)strlen(desc) + 1 && desc_len > 1, "cvar %s: empty or cut description (%d)", name, desc_len);
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "cvar %s: verbosity %d",
          name, verbosity);
    CHECK(binding == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_CONSTANT, "cvar %s: binding %d, scope %d", name,
          binding, scope);
    CHECK(type == MPI_INT || type == MPI_UNSIGNED_LONG_LONG || type == MPI_CHAR, "cvar %s: datatype %d", name, type);
    CHECK(enumtype == MPI_T_ENUM_NULL || type == MPI_INT, "cvar %s: an enumeration of datatype %d", name, type);
    int again = -1;
    CHECK_RC(MPI_T_cvar_get_index(name, &again));
    CHECK(again == i, "MPI_T_cvar_get_index(%s) is %d, not %d", name, again, i);

    MPI_T_cvar_handle handle;
    int count = -1;
    CHECK_RC(MPI_T_cvar_handle_alloc(i, NULL, &handle, &count));
    if (type == MPI_CHAR) {
      char *text = mt_alloc((size_t)count);
      CHECK_RC(MPI_T_cvar_read(handle, text));
      CHECK(count >= 1 && (int)strlen(text) == count - 1, "cvar %s: count %d for '%s'", name, count, text);
      free(text);
    } else if (type == MPI_INT) {
      int value = -1;
      CHECK_RC(MPI_T_cvar_read(handle, &value));
      CHECK(count == 1, "cvar %s: count %d", name, count);
      if (enumtype != MPI_T_ENUM_NULL) {
        int items = -1;
        CHECK_RC(MPI_T_enum_get_info(enumtype, &items, NULL, NULL));
        CHECK(value >= 0 && value < items, "cvar %s: value %d outside its %d words", name, value, items);
      }
    } else {
      unsigned long long value = 0;
      CHECK_RC(MPI_T_cvar_read(handle, &value));
      CHECK(count == 1, "cvar %s: count %d", name, count);
    }
    /* Fixed when the job starts: a write is refused, never pretended. */
    char junk[8] = {0};
    CHECK_T(MPI_T_cvar_write(handle, junk), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_RC(MPI_T_cvar_handle_free(&handle));
  }
  CHECK(read_size_cvar("eager_limit") == eager_limit, "%s: cvar eager_limit is %llu, the job was given %llu", when,
        read_size_cvar("eager_limit"), eager_limit);
  CHECK(read_size_cvar("short_limit") == short_limit, "%s: cvar short_limit is %llu, the job was given %llu", when,
        read_size_cvar("short_limit"), short_limit);
}

/* The string protocol (§14.3.3), the enumeration of rndv_mode, and every
   bad argument of the cvar calls. */
static void check_cvar_details(void) {
  const int index = cvar_index("eager_limit");
  char name[64];
  int len = 0;
  memset(name, 'x', sizeof name);
  CHECK_RC(MPI_T_cvar_get_info(index, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(len == (int)strlen("eager_limit") + 1 && name[0] == 'x', "length 0: len %d, buffer written", len);
  len = 6;
  CHECK_RC(MPI_T_cvar_get_info(index, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(strcmp(name, "eager") == 0 && len == (int)strlen("eager_limit") + 1, "buffer of 6: '%s', len %d", name, len);
  len = 100;
  CHECK_RC(MPI_T_cvar_get_info(index, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(len == (int)strlen("eager_limit") + 1, "NULL buffer: len %d", len);

  /* rndv_mode: an enumeration of its words, read as the index of the job's. */
  const int mode = cvar_index("rndv_mode");
  MPI_T_enum e = MPI_T_ENUM_NULL;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  CHECK_RC(MPI_T_cvar_get_info(mode, NULL, NULL, NULL, &type, &e, NULL, NULL, NULL, NULL));
  CHECK(type == MPI_INT && e != MPI_T_ENUM_NULL, "rndv_mode: datatype %d, enum %d", type, e);
  int items = -1;
  char enum_name[64];
  len = sizeof enum_name;
  CHECK_RC(MPI_T_enum_get_info(e, &items, enum_name, &len));
  CHECK(items == 4 && strcmp(enum_name, "rndv_mode") == 0, "rndv_mode's enumeration: %d items, '%s'", items,
        enum_name);
  MPI_T_cvar_handle handle;
  int count = 0, value = -1;
  CHECK_RC(MPI_T_cvar_handle_alloc(mode, NULL, &handle, &count));
  CHECK_RC(MPI_T_cvar_read(handle, &value));
  int item_value = -1;
  char word[16];
  len = sizeof word;
  CHECK_RC(MPI_T_enum_get_item(e, value, &item_value, word, &len));
  CHECK(item_value == value && strcmp(word, rndv_mode) == 0, "rndv_mode reads %d = '%s', the job was given '%s'",
        value, word, rndv_mode);
  CHECK_T(MPI_T_enum_get_item(e, items, &item_value, word, &len), MPI_T_ERR_INVALID_ITEM);
  CHECK_T(MPI_T_enum_get_item(e, -1, &item_value, word, &len), MPI_T_ERR_INVALID_ITEM);
  CHECK_T(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &items, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_write(handle, &value), MPI_T_ERR_CVAR_SET_NEVER);
  CHECK_RC(MPI_T_cvar_handle_free(&handle));

  /* Bad arguments. */
  int out = -1;
  CHECK_T(MPI_T_cvar_get_index("no_such_tunable", &out), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_cvar_get_index(NULL, &out), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_get_index("eager_limit", NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_get_info(n_tunables, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
          MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_handle_alloc(n_tunables, NULL, &handle, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_cvar_handle_alloc(index, NULL, NULL, &count), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_handle_alloc(index, NULL, &handle, NULL), MPI_T_ERR_INVALID);
  CHECK_RC(MPI_T_cvar_handle_alloc(index, NULL, &handle, &count));
  CHECK_T(MPI_T_cvar_read(handle, NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_write(handle, NULL), MPI_T_ERR_INVALID);
  MPI_T_cvar_handle stale = handle;
  CHECK_RC(MPI_T_cvar_handle_free(&handle));
  unsigned long long v = 0;
  CHECK_T(MPI_T_cvar_read(stale, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_cvar_handle_free(NULL), MPI_T_ERR_INVALID);
  /* A handle of another kind is not a cvar handle. */
  MPI_T_pvar_session session;
  CHECK_RC(MPI_T_pvar_session_create(&session));
  CHECK_T(MPI_T_cvar_read((MPI_T_cvar_handle)session, &v), MPI_T_ERR_INVALID_HANDLE);
  CHECK_RC(MPI_T_pvar_session_free(&session));
}

/* Categories: every variable in exactly one; names and indices agree. */
static int check_categories(void) {
  int num = -1;
  CHECK_RC(MPI_T_category_get_num(&num));
  CHECK(num > 0, "%d categories", num);
  int *cvar_seen = calloc((size_t)n_tunables, sizeof(int));
  int *pvar_seen = calloc((size_t)n_counters, sizeof(int));
  CHECK(cvar_seen != NULL && pvar_seen != NULL, "out of memory");
  for (int c = 0; c < num; ++c) {
    char name[64], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, ncvars = -1, npvars = -1, nsub = -1;
    CHECK_RC(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &ncvars, &npvars, &nsub));
    CHECK(name_len > 1 && desc_len > 1 && ncvars >= 0 && npvars >= 0 && nsub == 0,
          "category %d '%s': %d cvars, %d pvars, %d subcategories", c, name, ncvars, npvars, nsub);
    int again = -1;
    CHECK_RC(MPI_T_category_get_index(name, &again));
    CHECK(again == c, "MPI_T_category_get_index(%s) is %d, not %d", name, again, c);
    int cvars[64], pvars[64];
    CHECK(ncvars <= 64 && npvars <= 64, "category %s is larger than this test thought", name);
    CHECK_RC(MPI_T_category_get_cvars(c, ncvars, cvars));
    for (int i = 0; i < ncvars; ++i) {
      CHECK(cvars[i] >= 0 && cvars[i] < n_tunables, "category %s lists cvar %d", name, cvars[i]);
      cvar_seen[cvars[i]]++;
    }
    CHECK_RC(MPI_T_category_get_pvars(c, npvars, pvars));
    for (int i = 0; i < npvars; ++i) {
      CHECK(pvars[i] >= 0 && pvars[i] < n_counters, "category %s lists pvar %d", name, pvars[i]);
      pvar_seen[pvars[i]]++;
    }
    /* A shorter array gets the first ones, and nothing past its end. */
    if (ncvars > 1) {
      int first[2] = {-1, -7};
      CHECK_RC(MPI_T_category_get_cvars(c, 1, first));
      CHECK(first[0] == cvars[0] && first[1] == -7, "category %s, len 1: %d %d", name, first[0], first[1]);
    }
    CHECK_RC(MPI_T_category_get_categories(c, 0, NULL));
  }
  for (int i = 0; i < n_tunables; ++i) CHECK(cvar_seen[i] == 1, "cvar %d is in %d categories", i, cvar_seen[i]);
  for (int i = 0; i < n_counters; ++i) CHECK(pvar_seen[i] == 1, "pvar %d is in %d categories", i, pvar_seen[i]);
  free(cvar_seen);
  free(pvar_seen);
  int stamp = -1, stamp2 = -2, index = -1;
  CHECK_RC(MPI_T_category_changed(&stamp));
  CHECK_RC(MPI_T_category_changed(&stamp2));
  CHECK(stamp == stamp2, "the categories changed (%d, %d)", stamp, stamp2);
  CHECK_T(MPI_T_category_get_index("no_such_layer", &index), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_category_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_category_get_pvars(0, 3, NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_category_changed(NULL), MPI_T_ERR_INVALID);
  return num;
}

/* ---- Performance variables ------------------------------------------------- */

enum { SHORT_SENT, SHORT_BYTES, EAGER_SENT, EAGER_BYTES, RNDV_SENT, RNDV_BYTES, RECEIVED, RECEIVED_BYTES, NWATCHED };
static const char *const watched_names[NWATCHED] = {"short_sent", "short_bytes", "eager_sent", "eager_bytes",
                                                    "rndv_sent",  "rndv_bytes",  "received",   "received_bytes"};

static unsigned long long read_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  unsigned long long value = 0;
  CHECK_RC(MPI_T_pvar_read(session, handle, &value));
  return value;
}

static MPI_T_pvar_handle alloc_pvar(MPI_T_pvar_session session, const char *name, int var_class) {
  int index = -1, count = -1;
  CHECK_RC(MPI_T_pvar_get_index(name, var_class, &index));
  MPI_T_pvar_handle handle = MPI_T_PVAR_HANDLE_NULL;
  CHECK_RC(MPI_T_pvar_handle_alloc(session, index, NULL, &handle, &count));
  CHECK(count == 1 && handle != MPI_T_PVAR_HANDLE_NULL, "pvar %s: count %d, handle %d", name, count, handle);
  return handle;
}

/* `n` messages of `bytes` from rank 0 to rank 1, one at a time: each is
   received (and acknowledged with an empty message) before the next goes, so
   none waits unmatched and each takes the protocol its size chooses. Alone,
   rank 0 sends them to itself, into a receive posted first. */
static void send_messages(int n, size_t bytes) {
  char *buf = mt_alloc(bytes);
  memset(buf, 7, bytes);
  for (int i = 0; i < n; ++i) {
    if (size == 1) {
      MPI_Request req;
      CHECK_RC(MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req));
      CHECK_RC(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD));
      CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else if (rank == 0) {
      CHECK_RC(MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD));
      CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (rank == 1) {
      CHECK_RC(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD));
    }
  }
  free(buf);
}

#define CHECK_COUNT(handles, which, expected)                                                                \
  do {                                                                                                      \
    const unsigned long long got_ = read_pvar(session, (handles)[which]);                                   \
    const unsigned long long want_ = (unsigned long long)(expected);                                        \
    CHECK(got_ == want_, "pvar %s read %llu through its handle, expected %llu", watched_names[which], got_, \
          want_);                                                                                           \
  } while (0)

/* Returns the finalize_ns handle of `session`, read after MPI_Finalize. */
static MPI_T_pvar_handle check_pvars(MPI_T_pvar_session session) {
  int num = -1;
  CHECK_RC(MPI_T_pvar_get_num(&num));
  CHECK(num == n_counters, "%d performance variables, but rank counters has %d", num, n_counters);
  for (int i = 0; i < num; ++i) {
    char name[64], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, var_class = -1, binding = -1;
    int readonly = -1, continuous = -1, atomic = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum e = -1;
    CHECK_RC(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &e, desc, &desc_len, &binding,
                                 &readonly, &continuous, &atomic));
    CHECK(name_len > 1 && desc_len > 1 && type == MPI_UNSIGNED_LONG_LONG && e == MPI_T_ENUM_NULL &&
              binding == MPI_T_BIND_NO_OBJECT && readonly == 1 && atomic == 0,
          "pvar %d '%s': datatype %d enum %d binding %d readonly %d atomic %d", i, name, type, e, binding, readonly,
          atomic);
    CHECK(continuous == (var_class != MPI_T_PVAR_CLASS_COUNTER), "pvar %s: class %d, continuous %d", name, var_class,
          continuous);
    int again = -1;
    CHECK_RC(MPI_T_pvar_get_index(name, var_class, &again));
    CHECK(again == i, "MPI_T_pvar_get_index(%s) is %d, not %d", name, again, i);
  }
  int index = -1;
  CHECK_T(MPI_T_pvar_get_index("short_sent", MPI_T_PVAR_CLASS_TIMER, &index), MPI_T_ERR_INVALID_NAME);
  CHECK_T(MPI_T_pvar_get_index("no_such_counter", MPI_T_PVAR_CLASS_COUNTER, &index), MPI_T_ERR_INVALID_NAME);

  MPI_T_pvar_handle h[NWATCHED];
  for (int i = 0; i < NWATCHED; ++i) {
    h[i] = alloc_pvar(session, watched_names[i], MPI_T_PVAR_CLASS_COUNTER);
    CHECK_COUNT(h, i, 0); /* a counter's handle starts stopped, at 0 */
  }
  MPI_T_pvar_handle hwm = alloc_pvar(session, "unexpected_hwm_bytes", MPI_T_PVAR_CLASS_HIGHWATERMARK);
  MPI_T_pvar_handle init_ns = alloc_pvar(session, "init_ns", MPI_T_PVAR_CLASS_GENERIC);
  MPI_T_pvar_handle finalize_ns = alloc_pvar(session, "finalize_ns", MPI_T_PVAR_CLASS_GENERIC);
  CHECK(read_pvar(session, init_ns) > 0, "init_ns is 0 after MPI_Init");
  CHECK(read_pvar(session, finalize_ns) == 0, "finalize_ns is not 0 before MPI_Finalize");

  /* Continuous ones cannot be started or stopped; ALL_HANDLES skips them. */
  CHECK_T(MPI_T_pvar_start(session, hwm), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_T(MPI_T_pvar_stop(session, init_ns), MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK_RC(MPI_T_pvar_start(session, h[SHORT_SENT]));
  CHECK_RC(MPI_T_pvar_start(session, h[SHORT_SENT])); /* already started: no change */
  CHECK_RC(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES));
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));

  const size_t short_size = (size_t)short_limit;
  const size_t eager_size = (size_t)short_limit + 1;
  const size_t rndv_size = (size_t)eager_limit + 1;
  send_messages(N_MESSAGES, short_size);
  send_messages(N_MESSAGES, eager_size);
  send_messages(N_MESSAGES, rndv_size);
  CHECK_RC(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));

  const int receiver = size == 1 ? 0 : 1;
  if (rank == 0) {
    CHECK_COUNT(h, SHORT_SENT, N_MESSAGES);
    CHECK_COUNT(h, SHORT_BYTES, N_MESSAGES * short_size);
    CHECK_COUNT(h, EAGER_SENT, N_MESSAGES);
    CHECK_COUNT(h, EAGER_BYTES, N_MESSAGES * eager_size);
    CHECK_COUNT(h, RNDV_SENT, N_MESSAGES);
    CHECK_COUNT(h, RNDV_BYTES, N_MESSAGES * rndv_size);
  }
  if (rank == receiver) {
    CHECK_COUNT(h, RECEIVED, 3 * N_MESSAGES);
    CHECK_COUNT(h, RECEIVED_BYTES, N_MESSAGES * (short_size + eager_size + rndv_size));
  }
  if (size == 2 && rank == 0) { /* the acknowledgements */
    CHECK_COUNT(h, RECEIVED, 3 * N_MESSAGES);
    CHECK_COUNT(h, RECEIVED_BYTES, 0);
  }
  if (size == 2 && rank == 1) {
    CHECK_COUNT(h, SHORT_SENT, 3 * N_MESSAGES);
    CHECK_COUNT(h, SHORT_BYTES, 0);
    CHECK_COUNT(h, EAGER_SENT, 0);
  }

  /* Stopped, a handle does not count; started again, it adds on. */
  const unsigned long long before = read_pvar(session, h[SHORT_SENT]);
  send_messages(5, short_size);
  CHECK(read_pvar(session, h[SHORT_SENT]) == before, "a stopped handle counted");
  CHECK_RC(MPI_T_pvar_start(session, h[SHORT_SENT]));
  send_messages(3, short_size);
  CHECK_RC(MPI_T_pvar_stop(session, h[SHORT_SENT]));
  if (rank == 0) CHECK_COUNT(h, SHORT_SENT, N_MESSAGES + 3);

  /* Messages that arrive before their receive: rank 1 (or rank 0, alone)
     sends them before the message rank 0 waits for. (A handle of its own:
     the acknowledgements above also arrived before their receives.) */
  MPI_T_pvar_handle unexpected = alloc_pvar(session, "unexpected", MPI_T_PVAR_CLASS_COUNTER);
  CHECK_RC(MPI_T_pvar_start(session, unexpected));
  /* The receive of the message that says they are out is posted first, so
     that message never arrives unexpected itself, however late rank 0 looks. */
  MPI_Request sync = MPI_REQUEST_NULL;
  if (rank == 0) CHECK_RC(MPI_Irecv(NULL, 0, MPI_BYTE, size - 1, TAG_SYNC, MPI_COMM_WORLD, &sync));
  CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
  char early[EARLY_BYTES] = {0};
  if (rank == size - 1) {
    for (int i = 0; i < N_EARLY; ++i) CHECK_RC(MPI_Send(early, EARLY_BYTES, MPI_BYTE, 0, TAG_EARLY, MPI_COMM_WORLD));
    CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD));
  }
  if (rank == 0) {
    CHECK_RC(MPI_Wait(&sync, MPI_STATUS_IGNORE));
    const unsigned long long got = read_pvar(session, unexpected);
    CHECK(got == N_EARLY, "pvar unexpected counted %llu messages, expected %d", got, N_EARLY);
    const unsigned long long mark = read_pvar(session, hwm);
    CHECK(mark >= N_EARLY * EARLY_BYTES, "pvar unexpected_hwm_bytes is %llu with %d messages of %d bytes waiting",
          mark, N_EARLY, EARLY_BYTES);
    for (int i = 0; i < N_EARLY; ++i) {
      CHECK_RC(MPI_Recv(early, EARLY_BYTES, MPI_BYTE, size - 1, TAG_EARLY, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
  }
  CHECK_RC(MPI_T_pvar_stop(session, unexpected));

  /* Read-only: nothing is written or reset. */
  unsigned long long value = 5;
  CHECK_T(MPI_T_pvar_write(session, h[SHORT_SENT], &value), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_reset(session, h[SHORT_SENT]), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_T(MPI_T_pvar_readreset(session, h[SHORT_SENT], &value), MPI_T_ERR_PVAR_NO_WRITE);
  CHECK_RC(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES)); /* read-only ones are skipped */
  if (rank == 0) CHECK_COUNT(h, SHORT_SENT, N_MESSAGES + 3);

  /* Bad handles, sessions and arguments. */
  CHECK_T(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_readreset(session, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_write(session, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_read(session, h[SHORT_SENT], NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_pvar_read(session, MPI_T_PVAR_HANDLE_NULL, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, h[SHORT_SENT], &value), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_start(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
  int count = -1;
  MPI_T_pvar_handle other_handle;
  CHECK_T(MPI_T_pvar_handle_alloc(session, num, NULL, &other_handle, &count), MPI_T_ERR_INVALID_INDEX);
  CHECK_T(MPI_T_pvar_handle_alloc(session, 0, NULL, &other_handle, NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &other_handle, &count),
          MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_session_create(NULL), MPI_T_ERR_INVALID);
  /* A handle belongs to its session. */
  MPI_T_pvar_session other;
  CHECK_RC(MPI_T_pvar_session_create(&other));
  CHECK(other != session, "two sessions with handle %d", other);
  CHECK_T(MPI_T_pvar_read(other, h[SHORT_SENT], &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_start(other, h[SHORT_SENT]), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_handle_free(other, &h[SHORT_SENT]), MPI_T_ERR_INVALID_HANDLE);
  other_handle = alloc_pvar(other, "short_sent", MPI_T_PVAR_CLASS_COUNTER);
  CHECK(read_pvar(other, other_handle) == 0, "a new session's counter does not start at 0");
  /* Freeing a session frees its handles. */
  MPI_T_pvar_session freed = other;
  CHECK_RC(MPI_T_pvar_session_free(&other));
  CHECK(other == MPI_T_PVAR_SESSION_NULL, "MPI_T_pvar_session_free left the session %d", other);
  CHECK_T(MPI_T_pvar_session_free(&freed), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_read(freed, other_handle, &value), MPI_T_ERR_INVALID_SESSION);
  CHECK_T(MPI_T_pvar_handle_free(session, &other_handle), MPI_T_ERR_INVALID_HANDLE);
  /* A freed handle is gone. */
  MPI_T_pvar_handle gone = h[EAGER_SENT];
  CHECK_RC(MPI_T_pvar_handle_free(session, &h[EAGER_SENT]));
  CHECK(h[EAGER_SENT] == MPI_T_PVAR_HANDLE_NULL, "MPI_T_pvar_handle_free left the handle");
  CHECK_T(MPI_T_pvar_read(session, gone, &value), MPI_T_ERR_INVALID_HANDLE);
  return finalize_ns;
}

/* Every MPI_T error code is an error class of its own, with its text. */
static void check_error_texts(void) {
  CHECK(MPI_T_ERR_MEMORY > MPI_SUCCESS && MPI_T_ERR_INVALID <= MPI_ERR_LASTCODE,
        "MPI_T_ERR_* outside (MPI_SUCCESS, MPI_ERR_LASTCODE]");
  const int codes[] = {MPI_T_ERR_MEMORY,           MPI_T_ERR_NOT_INITIALIZED,   MPI_T_ERR_CANNOT_INIT,
                       MPI_T_ERR_INVALID_INDEX,    MPI_T_ERR_INVALID_ITEM,      MPI_T_ERR_INVALID_HANDLE,
                       MPI_T_ERR_OUT_OF_HANDLES,   MPI_T_ERR_OUT_OF_SESSIONS,   MPI_T_ERR_INVALID_SESSION,
                       MPI_T_ERR_CVAR_SET_NOT_NOW, MPI_T_ERR_CVAR_SET_NEVER,    MPI_T_ERR_PVAR_NO_STARTSTOP,
                       MPI_T_ERR_PVAR_NO_WRITE,    MPI_T_ERR_PVAR_NO_ATOMIC,    MPI_T_ERR_INVALID_NAME,
                       MPI_T_ERR_INVALID};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    int cls = -1, len = -1;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_RC(MPI_Error_class(codes[i], &cls));
    CHECK(cls == codes[i], "MPI_Error_class(%d) is %d", codes[i], cls);
    CHECK_RC(MPI_Error_string(codes[i], text, &len));
    CHECK(strncmp(text, "MPI_T_ERR: ", 11) == 0 && len > 11, "MPI_Error_string(%d) is '%s'", codes[i], text);
  }
}

int main(int argc, char **argv) {
  n_tunables = (int)mt_arg(argc, argv, 1, "NTUNABLES");
  n_counters = (int)mt_arg(argc, argv, 2, "NCOUNTERS");
  eager_limit = (unsigned long long)mt_arg(argc, argv, 3, "EAGER_LIMIT");
  short_limit = (unsigned long long)mt_arg(argc, argv, 4, "SHORT_LIMIT");
  if (argc < 6) mt_fail(__FILE__, __LINE__, "missing argument 5 (RNDV_MODE)");
  rndv_mode = argv[5];

  /* Before MPI_Init: not initialised, then twice (reference counted). */
  int num = -1, provided = -1;
  CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_init_thread(42, &provided), MPI_T_ERR_INVALID);
  CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED); /* the failed calls did not count */
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_SERIALIZED, "MPI_THREAD_MULTIPLE gave %d", provided);

  check_cvars("before MPI_Init");
  check_cvar_details();
  const int n_categories = check_categories();
  /* The counters do not exist yet. */
  MPI_T_pvar_session session;
  CHECK_RC(MPI_T_pvar_session_create(&session));
  CHECK_RC(MPI_T_pvar_get_num(&num));
  MPI_T_pvar_handle early_handle;
  int count = -1;
  CHECK_T(MPI_T_pvar_handle_alloc(session, 0, NULL, &early_handle, &count), MPI_T_ERR_INVALID);
  MPI_T_cvar_handle kept;
  CHECK_RC(MPI_T_cvar_handle_alloc(cvar_index("eager_limit"), NULL, &kept, &count));

  CHECK_RC(MPI_Init(&argc, &argv));
  CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 2, "run on 1 or 2 ranks, not %d", size);
  unsigned long long value = 0;
  CHECK_RC(MPI_T_cvar_read(kept, &value));
  CHECK(value == eager_limit, "after MPI_Init, a handle from before reads eager_limit %llu, not %llu", value,
        eager_limit);
  check_cvars("during the job");
  check_error_texts();
  const MPI_T_pvar_handle finalize_ns = check_pvars(session);
  /* One MPI_T_finalize of two: still initialised. */
  CHECK_RC(MPI_T_finalize());
  CHECK_RC(MPI_T_cvar_get_num(&num));
  CHECK_RC(MPI_Finalize());

  /* After MPI_Finalize: the control variables, and the counters as they were. */
  check_cvars("after MPI_Finalize");
  CHECK_RC(MPI_T_cvar_read(kept, &value));
  CHECK(value == eager_limit, "after MPI_Finalize eager_limit reads %llu", value);
  unsigned long long spent = 0;
  CHECK_RC(MPI_T_pvar_read(session, finalize_ns, &spent));
  CHECK(spent > 0, "finalize_ns is still 0 after MPI_Finalize");
  CHECK_RC(MPI_T_finalize());
  CHECK_T(MPI_T_cvar_get_num(&num), MPI_T_ERR_NOT_INITIALIZED);
  CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  /* Initialised again: the old handles and sessions are gone. */
  CHECK_RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK_T(MPI_T_cvar_read(kept, &value), MPI_T_ERR_INVALID_HANDLE);
  CHECK_T(MPI_T_pvar_read(session, finalize_ns, &spent), MPI_T_ERR_INVALID_SESSION);
  CHECK(read_size_cvar("eager_limit") == eager_limit, "eager_limit changed after MPI_T was initialised again");
  CHECK_RC(MPI_T_finalize());

  if (rank == 0) {
    printf("tool_interface ok: %d ranks, %d control variables (eager_limit %llu), %d performance variables, %d "
           "categories\n",
           size, n_tunables, eager_limit, n_counters, n_categories);
  }
  return 0;
}
