/*
 * mpf_fcfs.c: the "fcfs" benchmark of the MPF paper (Malony, Reed and
 * McGuire, section 4): one process sends messages to a conversation that
 * N-1 FCFS (first come, first served) receivers read, so that each message
 * goes to exactly one of them, whichever asks first.
 *
 * Rank 0 sends --messages messages of --size bytes to the conversation
 * "fcfs.data", which every other process has joined as an FCFS receiver,
 * then one stop message per receiver. The conversation is FIFO, so the stop
 * messages come after all data: a receiver that gets a stop message knows
 * that every data message has been taken (by it or by another receiver).
 * Each receiver then reports the ids of the messages it got to rank 0,
 * through a second conversation, "fcfs.report", and rank 0 checks that
 * every message was delivered exactly once.
 *
 * What it shows:
 *   - FCFS receivers sharing the work of one queue;
 *   - a handshake before timing: each receiver joins, then says so to rank 0
 *     through "fcfs.report" (rank 0's own FCFS inbox);
 *   - when it is safe to close: a receiver closes its send connection to
 *     "fcfs.report" right after its report, because rank 0 has that
 *     conversation open and so the report stays queued for it.
 *
 * Run:
 *   mpfrun -n 4 ./mpf_fcfs [--messages K] [--size BYTES]
 *
 *   --messages K    data messages to send (default 50000)
 *   --size BYTES    bytes per data message, at least 4 (default 1024)
 *
 * With one process, rank 0 is its own (only) FCFS receiver: after each send
 * it takes whatever is waiting. A message must then fit in the
 * conversation's queue (mpf_queue_bytes, 2 MiB by default, less 64 bytes):
 * a larger one is read from the sender's buffer while mpf_send waits, and
 * the only process that could read it is the one waiting.
 *
 * Checks: every data message arrives with its length and contents intact
 * (its id in the first 4 bytes, then a pattern made from the id); the ids a
 * receiver gets increase (FIFO: an FCFS receiver sees an ordered part of the
 * stream); each id from 0 to K-1 was received exactly once over all
 * receivers. On success rank 0 prints a line starting "mpf_fcfs ok" with
 * the throughput in messages/s and bytes/s, measured from the first send to
 * the last receiver's report.
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
static const char *const program = "mpf_fcfs";

static void usage(void) {
  if (mpf_rank() == 0) fprintf(stderr, "usage: %s [--messages K] [--size BYTES]\n", program);
  stop_for_arguments();
}

/* ---- The messages ---------------------------------------------------- */

/* A data message: its id (4 bytes, native order: all processes run on this
 * machine), then bytes that depend on the id and their position. A stop
 * message is just the id STOP. */
#define STOP UINT32_C(0xffffffff)

static unsigned char pattern(uint32_t id, size_t i) {
  uint32_t x = id * UINT32_C(2654435761) + (uint32_t)i * UINT32_C(40503);
  return (unsigned char)(x >> 11);
}

static void fill(unsigned char *message, size_t size, uint32_t id) {
  memcpy(message, &id, sizeof id);
  for (size_t i = sizeof id; i < size; ++i) message[i] = pattern(id, i);
}

/* A message on "fcfs.report": this header, then `count` ids (uint32_t). */
enum { READY = 1, IDS = 2, LAST_IDS = 3 };
struct report {
  int32_t kind; /* READY: the receiver has joined "fcfs.data"; IDS, LAST_IDS: ids it got */
  int32_t rank;
  int32_t count;
};
#define IDS_PER_REPORT 8192

/* ---- A receiver ------------------------------------------------------- */

/* What one receiver got: the ids, in the order they came. */
struct receiver {
  uint32_t *ids;
  long count;
};

/* Takes one message from the data conversation into `r`. Returns 0 for a
 * stop message, 1 for a data message (which it checks). */
static int take(struct receiver *r, mpf_lnvc_t data, unsigned char *buffer, size_t size, long messages) {
  size_t bytes = size;
  uint32_t id;
  CHECK(mpf_receive(data, buffer, &bytes));
  if (bytes < sizeof id) fail("a message of %zu bytes", bytes);
  memcpy(&id, buffer, sizeof id);
  if (id == STOP && bytes == sizeof id) return 0;
  if (bytes != size) fail("message %u has %zu bytes, not %zu", (unsigned)id, bytes, size);
  if (id >= (uint32_t)messages) fail("message id %u, but only %ld were sent", (unsigned)id, messages);
  if (r->count > 0 && id <= r->ids[r->count - 1]) {
    fail("message %u came after message %u: FIFO order broken", (unsigned)id, (unsigned)r->ids[r->count - 1]);
  }
  for (size_t i = sizeof id; i < size; ++i) {
    if (buffer[i] != pattern(id, i)) fail("byte %zu of message %u is wrong", i, (unsigned)id);
  }
  r->ids[r->count++] = id; /* ids increase, so there are at most `messages` */
  return 1;
}

/* Rank r > 0: joins, says so, takes messages until its stop message, then
 * reports their ids. */
static void run_receiver(size_t size, long messages) {
  mpf_lnvc_t data, report;
  struct receiver r;
  struct report header;
  unsigned char *buffer = malloc(size);
  unsigned char *out = malloc(sizeof header + IDS_PER_REPORT * sizeof(uint32_t));
  r.ids = malloc((size_t)messages * sizeof(uint32_t) + 1);
  r.count = 0;
  if (buffer == NULL || out == NULL || r.ids == NULL) fail("out of memory");

  CHECK(mpf_open_receive("fcfs.data", MPF_FCFS, &data));
  CHECK(mpf_open_send("fcfs.report", &report));
  header.kind = READY;
  header.rank = mpf_rank();
  header.count = 0;
  CHECK(mpf_send(report, &header, sizeof header));

  while (take(&r, data, buffer, size, messages)) {
  }
  /* The stop message was the last one for this receiver: leave. The other
   * receivers are still connected, so nothing queued for them is lost. */
  CHECK(mpf_close_receive(data));

  /* The report, in pieces of at most IDS_PER_REPORT ids; the last piece says
   * so (and is sent even when there are no ids at all). */
  for (long first = 0;; first += IDS_PER_REPORT) {
    long count = r.count - first < IDS_PER_REPORT ? r.count - first : IDS_PER_REPORT;
    header.kind = first + count == r.count ? LAST_IDS : IDS;
    header.count = (int32_t)count;
    memcpy(out, &header, sizeof header);
    memcpy(out + sizeof header, r.ids + first, (size_t)count * sizeof(uint32_t));
    CHECK(mpf_send(report, out, sizeof header + (size_t)count * sizeof(uint32_t)));
    if (header.kind == LAST_IDS) break;
  }
  CHECK(mpf_close_send(report));
  free(buffer);
  free(out);
  free(r.ids);
}

/* ---- Rank 0 ----------------------------------------------------------- */

/* Counts one receipt of each id in `ids`; a second one is an error. */
static void tally(unsigned char *seen, const uint32_t *ids, long count, long messages, int rank) {
  for (long i = 0; i < count; ++i) {
    if (ids[i] >= (uint32_t)messages) fail("rank %d reports id %u of %ld", rank, (unsigned)ids[i], messages);
    if (seen[ids[i]]) fail("message %u was delivered twice (again to rank %d)", (unsigned)ids[i], rank);
    seen[ids[i]] = 1;
  }
}

static void run_sender(size_t size, long messages) {
  const int n = mpf_size();
  const int receivers = n > 1 ? n - 1 : 1;
  mpf_lnvc_t data, report, self = -1;
  unsigned char *message = malloc(size);
  unsigned char *seen = calloc((size_t)messages + 1, 1);
  unsigned char *received = malloc(size); /* when alone: what it receives itself */
  unsigned char *in = malloc(sizeof(struct report) + IDS_PER_REPORT * sizeof(uint32_t));
  uint32_t *ids = malloc(IDS_PER_REPORT * sizeof(uint32_t));
  long *got = calloc((size_t)n, sizeof(long)); /* messages per receiver */
  unsigned char *ready = calloc((size_t)n, 1);
  struct receiver mine = {NULL, 0};
  long least, most;
  double start, elapsed;
  if (message == NULL || received == NULL || seen == NULL || in == NULL || ids == NULL || got == NULL ||
      ready == NULL) {
    fail("out of memory");
  }

  CHECK(mpf_open_send("fcfs.data", &data));
  CHECK(mpf_open_receive("fcfs.report", MPF_FCFS, &report));
  if (n == 1) {
    /* Alone: be the receiver too. */
    CHECK(mpf_open_receive("fcfs.data", MPF_FCFS, &self));
    mine.ids = malloc((size_t)messages * sizeof(uint32_t) + 1);
    if (mine.ids == NULL) fail("out of memory");
  }

  /* Wait until every receiver has joined, so that the time is that of the
   * transfers and not of the start of the job. (Messages sent earlier would
   * not be lost, only wait for the first receiver.) */
  for (int i = 1; i < n; ++i) {
    struct report header;
    size_t bytes = sizeof header;
    CHECK(mpf_receive(report, &header, &bytes));
    if (bytes != sizeof header || header.kind != READY || header.rank < 1 || header.rank >= n || ready[header.rank]) {
      fail("expected a first READY message from each receiver");
    }
    ready[header.rank] = 1;
  }

  start = seconds();
  for (long id = 0; id < messages; ++id) {
    fill(message, size, (uint32_t)id);
    CHECK(mpf_send(data, message, size));
    if (n == 1) {
      /* Only this process receives, so a message that check_receive sees
       * waiting cannot be taken by anybody else. */
      while (CHECK(mpf_check_receive(self)) > 0) {
        if (!take(&mine, self, received, size, messages)) fail("a stop message that nobody sent");
      }
    }
  }
  for (int i = 1; i < n; ++i) {
    const uint32_t stop = STOP;
    CHECK(mpf_send(data, &stop, sizeof stop));
  }

  /* Collect the reports: each receiver's pieces come in order (FIFO per
   * sender), the pieces of different receivers interleave. */
  for (int done = 1; done < n;) {
    struct report header;
    size_t bytes = sizeof(struct report) + IDS_PER_REPORT * sizeof(uint32_t);
    CHECK(mpf_receive(report, in, &bytes));
    if (bytes < sizeof header) fail("a report of %zu bytes", bytes);
    memcpy(&header, in, sizeof header);
    if ((header.kind != IDS && header.kind != LAST_IDS) || header.rank < 1 || header.rank >= n || header.count < 0 ||
        bytes != sizeof header + (size_t)header.count * sizeof(uint32_t) || ready[header.rank] != 1) {
      fail("a malformed report (kind %d from rank %d, %zu bytes)", (int)header.kind, (int)header.rank, bytes);
    }
    if (header.count > IDS_PER_REPORT) fail("a report of %d ids", (int)header.count);
    memcpy(ids, in + sizeof header, (size_t)header.count * sizeof(uint32_t));
    tally(seen, ids, header.count, messages, header.rank);
    got[header.rank] += header.count;
    if (header.kind == LAST_IDS) {
      ready[header.rank] = 2; /* a report after the last one is malformed */
      ++done;
    }
  }
  if (n == 1) {
    tally(seen, mine.ids, mine.count, messages, 0);
    got[0] = mine.count;
  }
  elapsed = seconds() - start;

  /* Exactly once: no id twice (tally) and none missing. */
  for (long id = 0; id < messages; ++id) {
    if (!seen[id]) fail("message %ld was never delivered", id);
  }
  least = most = got[n > 1 ? 1 : 0];
  for (int i = n > 1 ? 1 : 0; i < n; ++i) {
    if (got[i] < least) least = got[i];
    if (got[i] > most) most = got[i];
  }

  if (self >= 0) CHECK(mpf_close_receive(self));
  CHECK(mpf_close_send(data));
  CHECK(mpf_close_receive(report));
  printf("%s ok: %ld messages of %zu bytes to %d FCFS receiver%s, each delivered exactly once "
         "(%ld to %ld per receiver), %.4g messages/s, %.4g bytes/s, %.3f s\n",
         program, messages, size, receivers, receivers == 1 ? "" : "s", least, most, (double)messages / elapsed,
         (double)messages * (double)size / elapsed, elapsed);
  free(message);
  free(seen);
  free(received);
  free(in);
  free(ids);
  free(got);
  free(ready);
  free(mine.ids);
}

int main(int argc, char **argv) {
  long messages = 50000, size = 1024;

  CHECK(mpf_init(&argc, &argv));
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc) {
      messages = integer(argv[++i], "--messages", 1, 10000000);
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
