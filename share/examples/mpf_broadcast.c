/*
 * mpf_broadcast.c: the "broadcast" benchmark of the MPF paper (Malony, Reed
 * and McGuire, section 4): one process sends messages to a conversation
 * that N-1 BROADCAST receivers read, so that every receiver gets a copy of
 * every message, and the receivers copy them out concurrently.
 *
 * Rank 0 sends --messages messages of --size bytes to "bcast.data". A
 * BROADCAST receiver gets the messages sent after it joined, so the
 * receivers must all have joined before the first send: each receiver
 * joins "bcast.data", then tells rank 0 through the FCFS conversation
 * "bcast.report", and rank 0 waits for all N-1 before it starts. Each
 * receiver knows how many messages to expect; when it has them all it
 * reports to rank 0 through "bcast.report" again.
 *
 * What it shows:
 *   - BROADCAST receivers, and joining before the messages are sent;
 *   - that every BROADCAST receiver sees the whole stream, in order;
 *   - a sender waiting only when the queue is full: rank 0 sends faster than
 *     the slowest receiver reads, and the conversation's queue (2 MiB by
 *     default, the tunable mpf_queue_bytes) keeps it from running ahead.
 *
 * Run:
 *   mpfrun -n 4 ./mpf_broadcast [--messages K] [--size BYTES]
 *
 *   --messages K    messages to send (default 10000)
 *   --size BYTES    bytes per message, at least 4 (default 1024)
 *
 * With one process, rank 0 is its own (only) BROADCAST receiver: after each
 * send it reads what is waiting. A message must then fit in the
 * conversation's queue (mpf_queue_bytes, 2 MiB by default, less 64 bytes):
 * a larger one is read from the sender's buffer while mpf_send waits, and
 * the only process that could read it is the one waiting.
 *
 * Checks: every receiver gets every message, in order (message i carries id
 * i in its first 4 bytes), with its length and contents (a pattern made
 * from the id), and nothing more; each receiver reports its count and a
 * checksum of what it got, which rank 0 compares with what it sent. On
 * success rank 0 prints a line starting "mpf_broadcast ok" with the
 * aggregate throughput: bytes delivered to all receivers per second, from
 * the first send to the last receiver's report.
 */
#define _POSIX_C_SOURCE 200112L

#include <mpf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the examples share: CHECK, fail(), seconds(), integer(). */
#include "mpf_example.h"

/* The name the messages start with (mpf_example.h). */
static const char *const program = "mpf_broadcast";

static void usage(void) {
  if (mpf_rank() == 0) fprintf(stderr, "usage: %s [--messages K] [--size BYTES]\n", program);
  stop_for_arguments();
}

/* ---- The messages ---------------------------------------------------- */

/* A data message: its id (4 bytes, native order: all processes run on this
 * machine), then bytes that depend on the id and their position. */
static unsigned char pattern(uint32_t id, size_t i) {
  uint32_t x = id * UINT32_C(2654435761) + (uint32_t)i * UINT32_C(40503);
  return (unsigned char)(x >> 11);
}

static void fill(unsigned char *message, size_t size, uint32_t id) {
  memcpy(message, &id, sizeof id);
  for (size_t i = sizeof id; i < size; ++i) message[i] = pattern(id, i);
}

/* A running checksum of a stream of messages (FNV-1a over their bytes): the
 * sender and each receiver compute it over the same stream. */
static uint64_t checksum(uint64_t sum, const unsigned char *message, size_t size) {
  for (size_t i = 0; i < size; ++i) sum = (sum ^ message[i]) * UINT64_C(1099511628211);
  return sum;
}
#define CHECKSUM_START UINT64_C(14695981039346656037)

/* A message on "bcast.report". */
enum { READY = 1, DONE = 2 };
struct report {
  int32_t kind; /* READY: joined "bcast.data"; DONE: got every message */
  int32_t rank;
  int64_t messages; /* DONE: messages received */
  uint64_t sum;     /* DONE: their checksum */
};

/* Reads message `id` from a BROADCAST connection and checks it; returns the
 * checksum with it added. */
static uint64_t take(mpf_lnvc_t data, unsigned char *buffer, size_t size, uint32_t id, uint64_t sum) {
  size_t bytes = size;
  uint32_t got;
  CHECK(mpf_receive(data, buffer, &bytes));
  if (bytes != size) fail("message %u has %zu bytes, not %zu", (unsigned)id, bytes, size);
  memcpy(&got, buffer, sizeof got);
  if (got != id) fail("message %u came where message %u was due", (unsigned)got, (unsigned)id);
  for (size_t i = sizeof id; i < size; ++i) {
    if (buffer[i] != pattern(id, i)) fail("byte %zu of message %u is wrong", i, (unsigned)id);
  }
  return checksum(sum, buffer, size);
}

/* Rank r > 0. */
static void run_receiver(size_t size, long messages) {
  mpf_lnvc_t data, report;
  struct report r;
  unsigned char *buffer = malloc(size);
  uint64_t sum = CHECKSUM_START;
  if (buffer == NULL) fail("out of memory");

  /* Join first, then tell rank 0: from then on every message is ours too. */
  CHECK(mpf_open_receive("bcast.data", MPF_BROADCAST, &data));
  CHECK(mpf_open_send("bcast.report", &report));
  memset(&r, 0, sizeof r);
  r.kind = READY;
  r.rank = mpf_rank();
  CHECK(mpf_send(report, &r, sizeof r));

  for (long id = 0; id < messages; ++id) sum = take(data, buffer, size, (uint32_t)id, sum);
  /* Rank 0 sends nothing more: a message still waiting would be a copy too
   * many. (Every message sent so far is ours, so check_receive is exact for
   * a BROADCAST receiver.) */
  if (CHECK(mpf_check_receive(data)) != 0) fail("a message more than the %ld sent", messages);
  CHECK(mpf_close_receive(data));

  r.kind = DONE;
  r.messages = messages;
  r.sum = sum;
  CHECK(mpf_send(report, &r, sizeof r));
  CHECK(mpf_close_send(report)); /* rank 0 has "bcast.report" open: the report stays */
  free(buffer);
}

/* Rank 0. */
static void run_sender(size_t size, long messages) {
  const int n = mpf_size();
  const int receivers = n > 1 ? n - 1 : 1;
  mpf_lnvc_t data, report, self = -1;
  unsigned char *message = malloc(size);
  unsigned char *received = malloc(size); /* when alone: what it receives itself */
  unsigned char *state = calloc((size_t)n, 1);
  uint64_t sum = CHECKSUM_START, own_sum = CHECKSUM_START;
  double start, elapsed;
  if (message == NULL || received == NULL || state == NULL) fail("out of memory");

  CHECK(mpf_open_send("bcast.data", &data));
  CHECK(mpf_open_receive("bcast.report", MPF_FCFS, &report));
  if (n == 1) CHECK(mpf_open_receive("bcast.data", MPF_BROADCAST, &self));

  /* Every receiver has joined once its READY is here. */
  for (int i = 1; i < n; ++i) {
    struct report r;
    size_t bytes = sizeof r;
    CHECK(mpf_receive(report, &r, &bytes));
    if (bytes != sizeof r || r.kind != READY || r.rank < 1 || r.rank >= n || state[r.rank] != 0) {
      fail("expected a first READY message from each receiver");
    }
    state[r.rank] = READY;
  }

  start = seconds();
  for (long id = 0; id < messages; ++id) {
    fill(message, size, (uint32_t)id);
    sum = checksum(sum, message, size);
    CHECK(mpf_send(data, message, size));
    if (n == 1) own_sum = take(self, received, size, (uint32_t)id, own_sum);
  }
  for (int i = 1; i < n; ++i) {
    struct report r;
    size_t bytes = sizeof r;
    CHECK(mpf_receive(report, &r, &bytes));
    if (bytes != sizeof r || r.kind != DONE || r.rank < 1 || r.rank >= n || state[r.rank] != READY) {
      fail("expected one DONE message from each receiver");
    }
    state[r.rank] = DONE;
    if (r.messages != messages || r.sum != sum) {
      fail("rank %d got %lld messages with checksum %016llx; sent %ld with checksum %016llx", (int)r.rank,
           (long long)r.messages, (unsigned long long)r.sum, messages, (unsigned long long)sum);
    }
  }
  elapsed = seconds() - start;
  if (n == 1) {
    if (CHECK(mpf_check_receive(self)) != 0) fail("a message more than the %ld sent", messages);
    if (own_sum != sum) fail("the messages received do not add up to those sent");
    CHECK(mpf_close_receive(self));
  }

  CHECK(mpf_close_send(data));
  CHECK(mpf_close_receive(report));
  printf("%s ok: %ld messages of %zu bytes to %d BROADCAST receiver%s, all in order and intact, "
         "%.4g bytes/s delivered (%.4g messages/s sent), %.3f s\n",
         program, messages, size, receivers, receivers == 1 ? "" : "s",
         (double)receivers * (double)messages * (double)size / elapsed, (double)messages / elapsed, elapsed);
  free(message);
  free(received);
  free(state);
}

int main(int argc, char **argv) {
  long messages = 10000, size = 1024;

  CHECK(mpf_init(&argc, &argv));
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc) {
      messages = integer(argv[++i], "--messages", 1, 100000000);
    } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      size = integer(argv[++i], "--size", (long)sizeof(uint32_t), 1L << 30);
    } else {
      usage();
    }
  }

  if (mpf_rank() == 0) {
    run_sender((size_t)size, messages);
  } else {
    run_receiver((size_t)size, messages);
  }
  CHECK(mpf_finalize());
  return 0;
}
