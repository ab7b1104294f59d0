/* Messages too large for any queue (man 3 mpf: they stay in the sender's
 * buffer, and mpf_send returns once every receiver has read them), run with
 * mpf_queue_bytes=64KiB so that 100 KiB and more are such messages.
 *
 *   large [forbid_cma]   forbid_cma: the receivers' own Cross Memory Attach
 *                        calls fail (a container's seccomp profile): the
 *                        senders stage a copy in node memory instead
 *
 *  1. FCFS: rank 0 sends large and small messages, interleaved, to the
 *     other processes as FCFS receivers: each message arrives once, whole,
 *     and each receiver sees them in send order.
 *  2. BROADCAST: every receiver reads every large message.
 *  3. A large message sent before anyone receives waits for the first
 *     receiver (the sender waits with it).
 *  4. A receive buffer too small for a large message: MPF_ERR_TRUNCATE, the
 *     message stays.
 */
#define _GNU_SOURCE
#include <time.h>

#include "mpftest.h"
#include "../common/refuse_cma.h"

#define LARGE (3u << 20)
#define COUNT 12

static size_t size_of(int i) { return i % 3 == 2 ? 100 : (size_t)(100000 + i * 70001) % LARGE; }

int main(int argc, char** argv) {
  CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
  const int me = mpf_rank(), n = mpf_size();
  unsigned char* buf = malloc(LARGE);
  mpf_lnvc_t s, r;
  CHECK(n >= 2 && buf != NULL, "needs 2 processes or more");
  if (argc > 1 && strcmp(argv[1], "forbid_cma") == 0 && me != 0) forbid_cma_calls();

  /* 1 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("large.fcfs", &s), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_open_receive("large.fcfs", MPF_FCFS, &r), MPF_SUCCESS);
  }
  ft_barrier("large.1");
  if (me == 0) {
    int got = 0, stop = -1;
    for (int i = 0; i < COUNT; ++i) {
      ft_fill(buf, size_of(i), ft_seed(0, (uint64_t)i, size_of(i)));
      memcpy(buf, &i, sizeof i);
      CHECK_RC(mpf_send(s, buf, size_of(i)), MPF_SUCCESS);
    }
    for (int i = 1; i < n; ++i) CHECK_RC(mpf_send(s, &stop, sizeof stop), MPF_SUCCESS);
    CHECK_RC(mpf_open_receive("large.count", MPF_FCFS, &r), MPF_SUCCESS);
    for (int i = 1; i < n; ++i) {
      int count;
      size_t bytes = sizeof count;
      CHECK_RC(mpf_receive(r, &count, &bytes), MPF_SUCCESS);
      got += count;
    }
    CHECK(got == COUNT, "%d of %d messages arrived", got, COUNT);
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  } else {
    int last = -1, count = 0;
    mpf_lnvc_t report;
    CHECK_RC(mpf_open_send("large.count", &report), MPF_SUCCESS);
    for (;;) {
      int i;
      size_t bytes = LARGE;
      CHECK_RC(mpf_receive(r, buf, &bytes), MPF_SUCCESS);
      memcpy(&i, buf, sizeof i);
      if (i < 0) break;
      CHECK(i > last && i < COUNT, "message %d after %d", i, last);
      CHECK(bytes == size_of(i), "message %d has %zu bytes, sent %zu", i, bytes, size_of(i));
      {
        /* The first bytes carry the index; the rest is the pattern. */
        unsigned char expected[sizeof(int)];
        ft_fill(expected, sizeof expected, ft_seed(0, (uint64_t)i, bytes));
        memcpy(buf, expected, sizeof i);
      }
      ft_verify(buf, bytes, ft_seed(0, (uint64_t)i, bytes), "large FCFS message");
      last = i;
      ++count;
    }
    CHECK_RC(mpf_send(report, &count, sizeof count), MPF_SUCCESS);
    ft_barrier("large.1.reported");
    CHECK_RC(mpf_close_send(report), MPF_SUCCESS);
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }
  if (me == 0) {
    ft_barrier("large.1.reported");
    CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  }

  /* 2 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("large.bc", &s), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_open_receive("large.bc", MPF_BROADCAST, &r), MPF_SUCCESS);
  }
  ft_barrier("large.2");
  for (int i = 0; i < 4; ++i) {
    const size_t size = LARGE - (size_t)i * 1000;
    if (me == 0) {
      ft_fill(buf, size, ft_seed(0, (uint64_t)i, size));
      CHECK_RC(mpf_send(s, buf, size), MPF_SUCCESS);
    } else {
      size_t bytes = LARGE;
      CHECK_RC(mpf_receive(r, buf, &bytes), MPF_SUCCESS);
      CHECK(bytes == size, "BROADCAST message %d has %zu bytes", i, bytes);
      ft_verify(buf, size, ft_seed(0, (uint64_t)i, size), "large BROADCAST message");
    }
  }
  ft_barrier("large.2.read");
  if (me == 0) {
    CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }

  /* 3 and 4: rank 1 joins a while after rank 0 started sending. */
  if (me == 0) {
    CHECK_RC(mpf_open_send("large.late", &s), MPF_SUCCESS);
    ft_fill(buf, LARGE, ft_seed(0, 3, LARGE));
    CHECK_RC(mpf_send(s, buf, LARGE), MPF_SUCCESS); /* returns once rank 1 has read it */
    CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  } else if (me == 1) {
    const struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    CHECK_RC(mpf_open_receive("large.late", MPF_FCFS, &r), MPF_SUCCESS);
    size_t bytes = LARGE / 2;
    CHECK_RC(mpf_receive(r, buf, &bytes), MPF_ERR_TRUNCATE);
    CHECK(bytes == LARGE, "a truncated large message reports %zu bytes", bytes);
    bytes = LARGE;
    CHECK_RC(mpf_receive(r, buf, &bytes), MPF_SUCCESS);
    CHECK(bytes == LARGE, "the late receiver got %zu bytes", bytes);
    ft_verify(buf, LARGE, ft_seed(0, 3, LARGE), "the late large message");
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }

  free(buf);
  CHECK_RC(mpf_finalize(), MPF_SUCCESS);
  if (me == 0) printf("large ok\n");
  return 0;
}
