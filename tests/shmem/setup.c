/* Library setup, exit and query routines (OpenSHMEM 1.5 chapter 9.1): init
 * and finalize, my_pe and n_pes, the version and name, thread levels, which
 * PEs and addresses are accessible, shmem_ptr, and the predefined teams.
 *
 *   setup                       shmem_init
 *   setup single|funneled|serialized|multiple
 *                               shmem_init_thread requesting that level
 */
#include "shmemtest.h"

static long global_words[4];

static int thread_level(const char *name) {
  if (strcmp(name, "single") == 0) return SHMEM_THREAD_SINGLE;
  if (strcmp(name, "funneled") == 0) return SHMEM_THREAD_FUNNELED;
  if (strcmp(name, "serialized") == 0) return SHMEM_THREAD_SERIALIZED;
  if (strcmp(name, "multiple") == 0) return SHMEM_THREAD_MULTIPLE;
  fprintf(stderr, "setup: unknown thread level '%s' (single, funneled, serialized or multiple)\n", name);
  exit(2);
}

static int valid_level(int level) {
  return level == SHMEM_THREAD_SINGLE || level == SHMEM_THREAD_FUNNELED || level == SHMEM_THREAD_SERIALIZED ||
         level == SHMEM_THREAD_MULTIPLE;
}

static void check_levels(void) {
  /* The standard orders the levels: SINGLE < FUNNELED < SERIALIZED < MULTIPLE. */
  CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
            SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
        "thread levels are not ordered: %d %d %d %d", SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED,
        SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE);
}

static void identity(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  int major = -1, minor = -1;
  char name[SHMEM_MAX_NAME_LEN];
  CHECK(n >= 1, "shmem_n_pes returned %d", n);
  CHECK(me >= 0 && me < n, "shmem_my_pe returned %d with %d PEs", me, n);
  shmem_info_get_version(&major, &minor);
  CHECK(major == 1 && minor == 5, "shmem_info_get_version gave %d.%d, expected 1.5", major, minor);
  CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
        "shmem_info_get_version gave %d.%d, the header says %d.%d", major, minor, SHMEM_MAJOR_VERSION,
        SHMEM_MINOR_VERSION);
  memset(name, 'x', sizeof name);
  shmem_info_get_name(name);
  CHECK(memchr(name, '\0', sizeof name) != NULL, "shmem_info_get_name wrote no terminating NUL within %d bytes",
        SHMEM_MAX_NAME_LEN);
  CHECK(name[0] != '\0', "shmem_info_get_name gave an empty name");
  CHECK(strlen(name) < SHMEM_MAX_NAME_LEN, "shmem_info_get_name gave %zu characters", strlen(name));
}

static void accessible(void) {
  const int n = shmem_n_pes();
  long on_stack = 0;
  long *heap = shmem_malloc(sizeof(long));
  CHECK(heap != NULL, "shmem_malloc(%zu) returned NULL", sizeof(long));
  for (int pe = 0; pe < n; ++pe) {
    CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d) is %d with %d PEs, expected 1",
          pe, shmem_pe_accessible(pe), n);
    CHECK(shmem_addr_accessible(heap, pe) == 1, "shmem_addr_accessible(heap block, %d) is %d, expected 1", pe,
          shmem_addr_accessible(heap, pe));
    CHECK(shmem_addr_accessible(global_words, pe) == 1,
          "shmem_addr_accessible(global variable, %d) is %d, expected 1", pe,
          shmem_addr_accessible(global_words, pe));
    CHECK(shmem_addr_accessible(&on_stack, pe) == 0,
          "shmem_addr_accessible(stack variable, %d) is %d, expected 0", pe,
          shmem_addr_accessible(&on_stack, pe));
  }
  CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) is %d, expected 0", shmem_pe_accessible(-1));
  CHECK(shmem_pe_accessible(n) == 0, "shmem_pe_accessible(%d) with %d PEs is %d, expected 0", n, n,
        shmem_pe_accessible(n));
  shmem_free(heap);
}

/* Every PE of the node (SHMEM_TEAM_SHARED) gives a pointer to its heap block;
 * a store through it is seen by that PE after a barrier. */
static void pointers(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const int node_pes = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  long *slots = shmem_calloc((size_t)n, sizeof(long));
  CHECK(slots != NULL, "shmem_calloc(%d, %zu) returned NULL", n, sizeof(long));
  long *self = shmem_ptr(slots, me);
  CHECK(self != NULL, "shmem_ptr of my own heap block is NULL");
  for (int i = 0; i < node_pes; ++i) {
    int pe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
    CHECK(pe >= 0 && pe < n, "PE %d of SHMEM_TEAM_SHARED is world PE %d", i, pe);
    long *there = shmem_ptr(slots, pe);
    CHECK(there != NULL, "shmem_ptr(heap block, PE %d on my node) is NULL", pe);
    there[me] = 1000 + me;
  }
  shmem_barrier_all();
  for (int i = 0; i < node_pes; ++i) {
    int pe = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
    CHECK_EQ(slots[pe], 1000 + pe, "my heap slot written by a store through shmem_ptr on the writer's PE");
  }
  shmem_barrier_all();
  /* Global variables: NULL (not reachable by loads and stores) or a pointer
   * that works. */
  global_words[0] = 0;
  shmem_barrier_all();
  long *g = shmem_ptr(global_words, st_right());
  if (g != NULL) {
    g[0] = 2000 + me;
  } else {
    shmem_long_p(&global_words[0], 2000 + me, st_right());
  }
  shmem_barrier_all();
  CHECK_EQ(global_words[0], 2000 + st_left(), "my global word written by my left neighbour");
  shmem_free(slots);
}

static void predefined_teams(void) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "shmem_team_my_pe(SHMEM_TEAM_WORLD)");
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n, "shmem_team_n_pes(SHMEM_TEAM_WORLD)");
  int shared_me = shmem_team_my_pe(SHMEM_TEAM_SHARED);
  int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  CHECK(shared_n >= 1 && shared_n <= n, "shmem_team_n_pes(SHMEM_TEAM_SHARED) is %d with %d PEs", shared_n, n);
  CHECK(shared_me >= 0 && shared_me < shared_n, "shmem_team_my_pe(SHMEM_TEAM_SHARED) is %d of %d", shared_me,
        shared_n);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shared_me, SHMEM_TEAM_WORLD), me,
           "my SHMEM_TEAM_SHARED number translated to SHMEM_TEAM_WORLD");
  /* The jobs run on one node: SHMEM_TEAM_SHARED holds every PE. */
  CHECK_EQ(shared_n, n, "shmem_team_n_pes(SHMEM_TEAM_SHARED) on one node");
}

int main(int argc, char **argv) {
  int requested = -1, provided = -1, queried = -1;
  if (argc > 1) {
    requested = thread_level(argv[1]);
    int rc = shmem_init_thread(requested, &provided);
    CHECK(rc == 0, "shmem_init_thread(%d) returned %d, expected 0", requested, rc);
    CHECK(valid_level(provided), "shmem_init_thread(%d) provided %d, not a thread level", requested, provided);
    CHECK(provided <= requested, "shmem_init_thread(%d) provided %d, more than requested", requested, provided);
    shmem_query_thread(&queried);
    CHECK(queried == provided, "shmem_query_thread gave %d, shmem_init_thread provided %d", queried, provided);
  } else {
    shmem_init();
    shmem_query_thread(&queried);
    CHECK(valid_level(queried), "shmem_query_thread after shmem_init gave %d, not a thread level", queried);
  }
  check_levels();
  identity();
  accessible();
  pointers();
  predefined_teams();
  st_done("setup");
  shmem_finalize();
  return 0;
}
