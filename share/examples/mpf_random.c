/*
 * mpf_random.c: the "random" benchmark of the MPF paper (Malony, Reed and
 * McGuire, section 4): every process sends to and receives from every
 * other one. Each process has its own FCFS conversation, "random.<rank>",
 * as its inbox; it sends --messages messages of --size bytes, each to a
 * process chosen at random, and after each send it reads every message
 * waiting in its inbox.
 *
 * Ending: a process cannot know how many messages will come to it, so when
 * it has sent its share it sends a FINISHED marker to every other process,
 * saying how many messages it sent there. Messages of one sender stay in
 * order on a conversation, so a process that has the markers of all n-1
 * others has all their messages. Every process then reports its counts to
 * rank 0, which checks that the messages received add up to those sent.
 *
 * What it shows:
 *   - one FCFS conversation per process as an inbox that anybody sends to;
 *   - mpf_check_receive to read only what is there: with a single receiver
 *     on the conversation, a message it says is waiting cannot be taken by
 *     anybody else;
 *   - ending without a global count: per-sender FIFO order and markers;
 *   - a start barrier: READY messages to rank 0 over an FCFS conversation,
 *     and one GO message back over a BROADCAST conversation that everyone
 *     joined before saying READY.
 *
 * Run:
 *   mpfrun -n 8 ./mpf_random [--messages M] [--size BYTES] [--seed S]
 *
 *   --messages M    messages each process sends (default 4000)
 *   --size BYTES    bytes per message, at least 16 (default 256)
 *   --seed S        seed of the random destinations (default 1)
 *
 * A caution that comes with blocking sends: a send waits while its
 * destination's queue is full (mpf_queue_bytes, 2 MiB by default, with 64
 * bytes per message besides its data), and a process that waits there does
 * not read its own inbox meanwhile. If processes waited for each other's
 * room in a circle, none would go on. Keep the data that may wait for one
 * process, about messages x (size + 64) bytes, well below the queue size
 * (or raise it: mpfrun --set mpf_queue_bytes=...); with the defaults, all
 * that one process is sent in the whole run, about 1.3 MB on average, would
 * fit. Likewise a message larger than the whole queue is read from its
 * sender's buffer while the send waits for the receiver to read it, so keep
 * --size well below the queue size too.
 *
 * Checks: each message has the right length and contents (sender, sequence
 * number and a pattern made from both); the messages from each sender come
 * in the order they were sent, none missing: each FINISHED marker's count
 * equals the messages received from its sender; and over all processes the
 * messages and bytes received equal those sent. On success rank 0 prints a
 * line starting "mpf_random ok" with the throughput, from the start barrier
 * to the last report.
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
static const char *const program = "mpf_random";

static void usage(void) {
  if (mpf_rank() == 0) fprintf(stderr, "usage: %s [--messages M] [--size BYTES] [--seed S]\n", program);
  stop_for_arguments();
}

/* xorshift64*: a small random generator, one stream per process. */
static uint64_t next_random(uint64_t *state) {
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * UINT64_C(2685821657736338717);
}

/* ---- The messages ---------------------------------------------------- */

/* Every message starts with this header (native layout: all processes run
 * on this machine). DATA messages have --size bytes in all, the rest a
 * pattern; a FINISHED marker is the header alone. */
enum { DATA = 1, FINISHED = 2 };
struct header {
  int32_t kind;
  int32_t source;    /* the sender's rank */
  uint32_t sequence; /* DATA: the sender's count of messages to this destination before this one */
  uint32_t count;    /* FINISHED: how many DATA messages the sender sent here */
};

static unsigned char pattern(int source, uint32_t sequence, size_t i) {
  uint32_t x = (uint32_t)source * UINT32_C(0x9e3779b9) + sequence * UINT32_C(2654435761);
  x += (uint32_t)i * UINT32_C(40503);
  return (unsigned char)(x >> 11);
}

/* What a process has received, and from whom. */
struct inbox {
  mpf_lnvc_t lnvc;
  unsigned char *buffer;
  size_t size;
  uint32_t *from;          /* DATA messages received from each sender */
  unsigned char *finished; /* each sender's FINISHED marker has come */
  int markers;
  long messages, bytes;
};

/* Reads one message from the inbox (it waits, if none is there yet) and
 * checks it. */
static void receive_one(struct inbox *in, int n) {
  struct header h;
  size_t bytes = in->size;
  CHECK(mpf_receive(in->lnvc, in->buffer, &bytes));
  if (bytes < sizeof h) fail("a message of %zu bytes", bytes);
  memcpy(&h, in->buffer, sizeof h);
  if (h.source < 0 || h.source >= n || (n > 1 && h.source == mpf_rank())) fail("a message from rank %d", (int)h.source);
  if (in->finished[h.source]) fail("a message from rank %d after its FINISHED marker", (int)h.source);
  if (h.kind == DATA) {
    if (bytes != in->size) fail("a message of %zu bytes from rank %d, not %zu", bytes, (int)h.source, in->size);
    if (h.sequence != in->from[h.source]) {
      fail("message %u from rank %d came when message %u was due", (unsigned)h.sequence, (int)h.source,
           (unsigned)in->from[h.source]);
    }
    for (size_t i = sizeof h; i < bytes; ++i) {
      if (in->buffer[i] != pattern(h.source, h.sequence, i)) {
        fail("byte %zu of message %u from rank %d is wrong", i, (unsigned)h.sequence, (int)h.source);
      }
    }
    in->from[h.source]++;
    in->messages++;
    in->bytes += (long)bytes;
  } else if (h.kind == FINISHED && bytes == sizeof h) {
    /* Everything the sender sent before its marker is here already. */
    if (h.count != in->from[h.source]) {
      fail("rank %d sent %u messages here, %u came", (int)h.source, (unsigned)h.count, (unsigned)in->from[h.source]);
    }
    in->finished[h.source] = 1;
    in->markers++;
  } else {
    fail("a message of kind %d and %zu bytes from rank %d", (int)h.kind, bytes, (int)h.source);
  }
}

/* ---- Start and results ----------------------------------------------- */

/* Messages to rank 0 on "random.report". */
enum { READY = 3, RESULT = 4 };
struct report {
  int32_t kind;
  int32_t rank;
  int64_t sent, sent_bytes, received, received_bytes;
};

int main(int argc, char **argv) {
  long messages = 4000, size = 256, seed = 1;
  int me, n;
  char name[MPF_MAX_NAME + 1];
  mpf_lnvc_t *to, report, go = -1;
  struct inbox in;
  uint32_t *sent_to;
  unsigned char *message;
  uint64_t random_state;
  struct report mine;
  double start = 0.0, elapsed;

  CHECK(mpf_init(&argc, &argv));
  me = mpf_rank();
  n = mpf_size();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--messages") == 0 && i + 1 < argc) {
      messages = integer(argv[++i], "--messages", 0, 100000000);
    } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      size = integer(argv[++i], "--size", (long)sizeof(struct header), 1L << 30);
    } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
      seed = integer(argv[++i], "--seed", 0, 1L << 62);
    } else {
      usage();
    }
  }

  to = malloc((size_t)n * sizeof *to);
  sent_to = calloc((size_t)n, sizeof *sent_to);
  message = malloc((size_t)size);
  in.buffer = malloc((size_t)size);
  in.from = calloc((size_t)n, sizeof *in.from);
  in.finished = calloc((size_t)n, 1);
  if (to == NULL || sent_to == NULL || message == NULL || in.buffer == NULL || in.from == NULL || in.finished == NULL) {
    fail("out of memory");
  }
  in.size = (size_t)size;
  in.markers = 0;
  in.messages = in.bytes = 0;

  /* The inbox first, then a send connection to every other process's inbox
   * (to its own too when alone). A message sent to an inbox whose owner has
   * not joined yet waits for it: the send connection keeps the conversation. */
  snprintf(name, sizeof name, "random.%d", me);
  CHECK(mpf_open_receive(name, MPF_FCFS, &in.lnvc));
  for (int r = 0; r < n; ++r) {
    to[r] = -1;
    if (r == me && n > 1) continue;
    snprintf(name, sizeof name, "random.%d", r);
    CHECK(mpf_open_send(name, &to[r]));
  }

  /* The start barrier. */
  memset(&mine, 0, sizeof mine);
  mine.rank = me;
  if (me == 0) {
    CHECK(mpf_open_receive("random.report", MPF_FCFS, &report));
    if (n > 1) CHECK(mpf_open_send("random.go", &go));
    for (int i = 1; i < n; ++i) {
      struct report r;
      size_t bytes = sizeof r;
      CHECK(mpf_receive(report, &r, &bytes));
      if (bytes != sizeof r || r.kind != READY) fail("expected READY messages first");
    }
    if (n > 1) {
      const char token = 'g';
      CHECK(mpf_send(go, &token, 1));
      CHECK(mpf_close_send(go)); /* everybody has joined "random.go": GO stays for them */
    }
  } else {
    char token;
    size_t bytes = 1;
    CHECK(mpf_open_send("random.report", &report));
    CHECK(mpf_open_receive("random.go", MPF_BROADCAST, &go));
    mine.kind = READY;
    CHECK(mpf_send(report, &mine, sizeof mine));
    CHECK(mpf_receive(go, &token, &bytes));
    CHECK(mpf_close_receive(go));
  }
  start = seconds();

  /* Send, and after each send read whatever has come. */
  random_state = (uint64_t)seed * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)me * UINT64_C(0xbf58476d1ce4e5b9) + 1;
  for (long i = 0; i < messages; ++i) {
    struct header h;
    int dest = 0;
    if (n > 1) {
      dest = (int)(next_random(&random_state) % (uint64_t)(n - 1));
      if (dest >= me) ++dest; /* any process but this one */
    }
    h.kind = DATA;
    h.source = me;
    h.sequence = sent_to[dest]++;
    h.count = 0;
    memcpy(message, &h, sizeof h);
    for (size_t j = sizeof h; j < (size_t)size; ++j) message[j] = pattern(me, h.sequence, j);
    CHECK(mpf_send(to[dest], message, (size_t)size));
    mine.sent++;
    mine.sent_bytes += size;
    while (CHECK(mpf_check_receive(in.lnvc)) > 0) receive_one(&in, n);
  }

  /* Done sending: a marker to every other process, then read until every
   * other process's marker is here. */
  for (int r = 0; r < n; ++r) {
    struct header h;
    if (r == me) continue;
    h.kind = FINISHED;
    h.source = me;
    h.sequence = 0;
    h.count = sent_to[r];
    CHECK(mpf_send(to[r], &h, sizeof h));
  }
  while (in.markers < n - 1) receive_one(&in, n);
  if (n == 1 && CHECK(mpf_check_receive(in.lnvc)) != 0) fail("a message left unread");

  /* Every other process has sent its marker, so it has joined its inbox
   * long ago: closing a send connection loses nothing. And nothing can come
   * after the markers. */
  for (int r = 0; r < n; ++r) {
    if (to[r] >= 0) CHECK(mpf_close_send(to[r]));
  }
  CHECK(mpf_close_receive(in.lnvc));
  mine.received = in.messages;
  mine.received_bytes = in.bytes;

  if (me != 0) {
    mine.kind = RESULT;
    CHECK(mpf_send(report, &mine, sizeof mine));
    CHECK(mpf_close_send(report)); /* rank 0 has "random.report" open: the result stays */
  } else {
    struct report total = mine;
    for (int i = 1; i < n; ++i) {
      struct report r;
      size_t bytes = sizeof r;
      CHECK(mpf_receive(report, &r, &bytes));
      if (bytes != sizeof r || r.kind != RESULT) fail("expected a RESULT from every process");
      total.sent += r.sent;
      total.sent_bytes += r.sent_bytes;
      total.received += r.received;
      total.received_bytes += r.received_bytes;
    }
    elapsed = seconds() - start;
    CHECK(mpf_close_receive(report));
    if (total.sent != total.received || total.sent_bytes != total.received_bytes) {
      fail("%lld messages (%lld bytes) were sent, but %lld (%lld bytes) received", (long long)total.sent,
           (long long)total.sent_bytes, (long long)total.received, (long long)total.received_bytes);
    }
    if (total.sent != (int64_t)messages * n) fail("%lld messages sent, not %ld", (long long)total.sent, messages * n);
    printf("%s ok: %d process%s sent %lld messages of %ld bytes to random destinations, all received, "
           "%.4g messages/s, %.4g bytes/s, %.3f s\n",
           program, n, n == 1 ? "" : "es", (long long)total.sent, size, (double)total.sent / elapsed,
           (double)total.sent_bytes / elapsed, elapsed);
  }

  free(to);
  free(sent_to);
  free(message);
  free(in.buffer);
  free(in.from);
  free(in.finished);
  CHECK(mpf_finalize());
  return 0;
}
