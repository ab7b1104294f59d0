/* Every MPF function and error code (man 3 mpf): arguments, handles, roles,
 * truncation that loses nothing, the conversation table running out, and
 * messages of every size looped through a conversation and around a ring.
 *
 *   api [resources]    resources: the job runs with mpf_conversations=8 and
 *                      checks that the ninth conversation is refused
 */
#include "mpftest.h"

static void before_init(void) {
  mpf_lnvc_t h;
  size_t bytes = 0;
  CHECK_RC(mpf_rank(), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_size(), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_open_send("x", &h), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_open_receive("x", MPF_FCFS, &h), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_send(0, "", 0), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_receive(0, NULL, &bytes), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_check_receive(0), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_close_send(0), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_close_receive(0), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_finalize(), MPF_ERR_NOT_INITIALIZED);
}

static void error_strings(void) {
  const int codes[] = {MPF_SUCCESS,      MPF_ERR_NOT_INITIALIZED, MPF_ERR_NAME, MPF_ERR_PROTOCOL,
                       MPF_ERR_HANDLE,   MPF_ERR_ROLE,            MPF_ERR_TRUNCATE, MPF_ERR_RESOURCES,
                       MPF_ERR_ARG,      MPF_ERR_INITIALIZED,     MPF_ERR_INTERN};
  const int n = (int)(sizeof codes / sizeof codes[0]);
  for (int i = 0; i < n; ++i) {
    const char* text = mpf_error_string(codes[i]);
    CHECK(text != NULL && text[0] != '\0', "no text for code %d", codes[i]);
    for (int j = 0; j < i; ++j) CHECK(strcmp(text, mpf_error_string(codes[j])) != 0, "codes %d and %d share a text",
                                      codes[i], codes[j]);
  }
  CHECK(strstr(mpf_error_string(MPF_ERR_RESOURCES), "mpf_conversations") != NULL, "RESOURCES names no tunable");
  CHECK(strstr(mpf_error_string(-999), "unknown") != NULL, "an unknown code is not called unknown");
}

static void bad_arguments(void) {
  char name[80];
  mpf_lnvc_t s, r, b;
  size_t bytes = 4;
  char buf[4];
  CHECK_RC(mpf_open_send(NULL, &s), MPF_ERR_NAME);
  CHECK_RC(mpf_open_send("", &s), MPF_ERR_NAME);
  memset(name, 'n', sizeof name);
  name[MPF_MAX_NAME + 1] = '\0';
  CHECK_RC(mpf_open_send(name, &s), MPF_ERR_NAME);
  CHECK_RC(mpf_open_receive(name, MPF_FCFS, &s), MPF_ERR_NAME);
  name[MPF_MAX_NAME] = '\0'; /* 63 bytes: the longest name */
  snprintf(name, 8, "api.%d", mpf_rank() % 10);
  name[strlen(name)] = 'n';
  CHECK_RC(mpf_open_send(name, &s), MPF_SUCCESS);
  CHECK_RC(mpf_open_send("x", NULL), MPF_ERR_ARG);
  CHECK_RC(mpf_open_receive("x", 0, &r), MPF_ERR_PROTOCOL);
  CHECK_RC(mpf_open_receive("x", 3, &r), MPF_ERR_PROTOCOL);
  CHECK_RC(mpf_open_receive(name, MPF_FCFS, &r), MPF_SUCCESS);
  /* The paper forbids one receiving process both protocols on a conversation. */
  CHECK_RC(mpf_open_receive(name, MPF_BROADCAST, &b), MPF_ERR_PROTOCOL);
  /* Roles. */
  CHECK_RC(mpf_send(r, buf, 1), MPF_ERR_ROLE);
  CHECK_RC(mpf_receive(s, buf, &bytes), MPF_ERR_ROLE);
  CHECK_RC(mpf_check_receive(s), MPF_ERR_ROLE);
  CHECK_RC(mpf_close_send(r), MPF_ERR_ROLE);
  CHECK_RC(mpf_close_receive(s), MPF_ERR_ROLE);
  /* Pointers. */
  CHECK_RC(mpf_send(s, NULL, 1), MPF_ERR_ARG);
  CHECK_RC(mpf_receive(r, buf, NULL), MPF_ERR_ARG);
  CHECK_RC(mpf_receive(r, NULL, &bytes), MPF_ERR_ARG);
  /* Handles. */
  CHECK_RC(mpf_send(-1, buf, 1), MPF_ERR_HANDLE);
  CHECK_RC(mpf_send(100000, buf, 1), MPF_ERR_HANDLE);
  CHECK_RC(mpf_check_receive(-7), MPF_ERR_HANDLE);
  CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  CHECK_RC(mpf_close_receive(r), MPF_ERR_HANDLE);
  CHECK_RC(mpf_receive(r, buf, &bytes), MPF_ERR_HANDLE);
  /* After the FCFS connection closed, BROADCAST is allowed. */
  CHECK_RC(mpf_open_receive(name, MPF_BROADCAST, &b), MPF_SUCCESS);
  CHECK(b != r, "a closed handle was reused");
  CHECK_RC(mpf_close_receive(b), MPF_SUCCESS);
  CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  CHECK_RC(mpf_send(s, buf, 1), MPF_ERR_HANDLE);
}

/* Messages of every size through one conversation to itself (the paper's
 * base program), FCFS and BROADCAST, with truncation on the way. */
static void loop_sizes(int protocol) {
  static const size_t sizes[] = {0, 1, 7, 56, 64, 65, 1000, 4096, 65536, 1u << 20};
  char name[32];
  mpf_lnvc_t s, r;
  unsigned char* buf = malloc(1u << 20);
  unsigned char* in = malloc(1u << 20);
  CHECK(buf != NULL && in != NULL, "out of memory");
  snprintf(name, sizeof name, "base.%d.%d", protocol, mpf_rank());
  CHECK_RC(mpf_open_send(name, &s), MPF_SUCCESS);
  CHECK_RC(mpf_open_receive(name, protocol, &r), MPF_SUCCESS);
  CHECK_RC(mpf_check_receive(r), 0);
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const size_t size = sizes[i];
    size_t bytes;
    ft_fill(buf, size, ft_seed(mpf_rank(), i, size));
    CHECK_RC(mpf_send(s, buf, size), MPF_SUCCESS);
    CHECK(mpf_check_receive(r) > 0, "no message waiting after a send of %zu bytes", size);
    if (size > 0) {
      /* Too long for the buffer: the message stays and says how long it is. */
      bytes = size - 1;
      CHECK_RC(mpf_receive(r, in, &bytes), MPF_ERR_TRUNCATE);
      CHECK(bytes == size, "truncated receive reports %zu bytes, message has %zu", bytes, size);
      CHECK(mpf_check_receive(r) > 0, "a truncated message of %zu bytes was lost", size);
    }
    bytes = 1u << 20;
    memset(in, 0xee, size);
    CHECK_RC(mpf_receive(r, in, &bytes), MPF_SUCCESS);
    CHECK(bytes == size, "received %zu bytes, sent %zu", bytes, size);
    ft_verify(in, size, ft_seed(mpf_rank(), i, size), "base loop");
    CHECK_RC(mpf_check_receive(r), 0);
  }
  /* Several queued before any is read, in order. */
  for (int i = 0; i < 100; ++i) CHECK_RC(mpf_send(s, &i, sizeof i), MPF_SUCCESS);
  for (int i = 0; i < 100; ++i) {
    int got = -1;
    size_t bytes = sizeof got;
    CHECK_RC(mpf_receive(r, &got, &bytes), MPF_SUCCESS);
    CHECK(got == i && bytes == sizeof got, "message %d came as %d (%zu bytes)", i, got, bytes);
  }
  CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  free(buf);
  free(in);
}

/* Each process sends to the next one's conversation and reads its own. */
static void ring(void) {
  const int me = mpf_rank(), n = mpf_size();
  char name[32];
  mpf_lnvc_t to, from;
  snprintf(name, sizeof name, "ring.%d", me);
  CHECK_RC(mpf_open_receive(name, MPF_FCFS, &from), MPF_SUCCESS);
  snprintf(name, sizeof name, "ring.%d", (me + 1) % n);
  CHECK_RC(mpf_open_send(name, &to), MPF_SUCCESS);
  for (int round = 0; round < 50; ++round) {
    unsigned char msg[300], in[300];
    size_t bytes = sizeof in;
    ft_fill(msg, sizeof msg, ft_seed(me, (uint64_t)round, sizeof msg));
    CHECK_RC(mpf_send(to, msg, sizeof msg), MPF_SUCCESS);
    CHECK_RC(mpf_receive(from, in, &bytes), MPF_SUCCESS);
    CHECK(bytes == sizeof in, "ring message of %zu bytes", bytes);
    ft_verify(in, bytes, ft_seed((me + n - 1) % n, (uint64_t)round, sizeof msg), "ring");
  }
  ft_barrier("ring.done"); /* nobody closes while a neighbour may still send */
  CHECK_RC(mpf_close_send(to), MPF_SUCCESS);
  CHECK_RC(mpf_close_receive(from), MPF_SUCCESS);
}

static void resources(void) {
  mpf_lnvc_t h[16];
  int opened = 0, rc = MPF_SUCCESS;
  char name[32];
  /* Only rank 0, so that the count is exact: the table has 8 entries. */
  if (mpf_rank() == 0) {
    while (opened < 16) {
      snprintf(name, sizeof name, "table.%d", opened);
      rc = mpf_open_send(name, &h[opened]);
      if (rc != MPF_SUCCESS) break;
      ++opened;
    }
    CHECK(rc == MPF_ERR_RESOURCES && opened == 8, "the table took %d conversations, then said %d", opened, rc);
    /* The same name again needs no new entry. */
    CHECK_RC(mpf_open_receive("table.0", MPF_FCFS, &h[15]), MPF_SUCCESS);
    CHECK_RC(mpf_close_receive(h[15]), MPF_SUCCESS);
    /* Closing one frees its entry. */
    CHECK_RC(mpf_close_send(h[3]), MPF_SUCCESS);
    CHECK_RC(mpf_open_send("table.new", &h[3]), MPF_SUCCESS);
    for (int i = 0; i < opened; ++i) CHECK_RC(mpf_close_send(h[i]), MPF_SUCCESS);
  }
}

int main(int argc, char** argv) {
  before_init();
  error_strings();
  CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
  CHECK_RC(mpf_init(&argc, &argv), MPF_ERR_INITIALIZED);
  CHECK(mpf_size() >= 1 && mpf_rank() >= 0 && mpf_rank() < mpf_size(), "rank %d of %d", mpf_rank(), mpf_size());
  if (argc > 1 && strcmp(argv[1], "resources") == 0) {
    resources();
  } else {
    bad_arguments();
    loop_sizes(MPF_FCFS);
    loop_sizes(MPF_BROADCAST);
    ring();
  }
  const int me = mpf_rank();
  CHECK_RC(mpf_finalize(), MPF_SUCCESS);
  CHECK_RC(mpf_finalize(), MPF_ERR_NOT_INITIALIZED);
  CHECK_RC(mpf_init(NULL, NULL), MPF_ERR_INITIALIZED);
  CHECK_RC(mpf_rank(), MPF_ERR_NOT_INITIALIZED);
  if (me == 0) printf("api ok\n");
  return 0;
}
