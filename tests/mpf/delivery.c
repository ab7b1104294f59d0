/* Delivery on one conversation (man 3 mpf, Semantics):
 *
 *   delivery fcfs       half the processes send M messages each to "work",
 *                       the other half receive as FCFS; with 4 or more
 *                       processes the last one is a BROADCAST receiver as well.
 *                       Every message id is received exactly once among the
 *                       FCFS receivers, each receiver sees each sender's
 *                       messages in order, and the BROADCAST receiver sees
 *                       them all, in order.
 *   delivery broadcast  rank 0 sends in phases; the others join at different
 *                       phases and leave at different phases, some with
 *                       half a phase unread. Each reads exactly the messages
 *                       sent while it was connected, in order; with a small
 *                       queue (mpf_queue_bytes) the sender goes on only if
 *                       the leavers released what they did not read.
 */
#include "mpftest.h"

#define M 1500       /* messages per sender */
#define MAX_SIZE 700 /* payload bytes at most */

struct header {
  int sender;
  int seq; /* -1: stop */
};

static size_t size_of(int sender, int seq) { return (size_t)((sender * 131 + seq * 17) % MAX_SIZE); }

static void send_message(mpf_lnvc_t to, int sender, int seq) {
  unsigned char buf[sizeof(struct header) + MAX_SIZE];
  struct header h = {sender, seq};
  const size_t size = seq < 0 ? 0 : size_of(sender, seq);
  memcpy(buf, &h, sizeof h);
  ft_fill(buf + sizeof h, size, ft_seed(sender, (uint64_t)seq, size));
  CHECK_RC(mpf_send(to, buf, sizeof h + size), MPF_SUCCESS);
}

/* Receives one message, checks its contents; returns its header. */
static struct header receive_message(mpf_lnvc_t from) {
  unsigned char buf[sizeof(struct header) + MAX_SIZE];
  size_t bytes = sizeof buf;
  struct header h;
  CHECK_RC(mpf_receive(from, buf, &bytes), MPF_SUCCESS);
  CHECK(bytes >= sizeof h, "a message of %zu bytes", bytes);
  memcpy(&h, buf, sizeof h);
  if (h.seq >= 0) {
    const size_t size = size_of(h.sender, h.seq);
    CHECK(bytes == sizeof h + size, "message %d of %d has %zu bytes, expected %zu", h.seq, h.sender, bytes,
          sizeof h + size);
    ft_verify(buf + sizeof h, size, ft_seed(h.sender, (uint64_t)h.seq, size), "message");
  }
  return h;
}

static void fcfs(void) {
  const int me = mpf_rank(), n = mpf_size();
  const int senders = n / 2, receivers = n - senders;
  const int broadcaster = n >= 4 ? n - 1 : -1; /* also a BROADCAST receiver of "work" */
  const int fcfs_receivers = broadcaster >= 0 ? receivers - 1 : receivers;
  mpf_lnvc_t work, ctl, report;
  CHECK(senders >= 1 && fcfs_receivers >= 1, "needs 2 or more processes");
  if (me == 0) {
    CHECK_RC(mpf_open_receive("ctl", MPF_FCFS, &ctl), MPF_SUCCESS);
    CHECK_RC(mpf_open_receive("report", MPF_FCFS, &report), MPF_SUCCESS);
  }
  if (me < senders) {
    CHECK_RC(mpf_open_send("work", &work), MPF_SUCCESS);
    if (me != 0) CHECK_RC(mpf_open_send("ctl", &ctl), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_open_receive("work", me == broadcaster ? MPF_BROADCAST : MPF_FCFS, &work), MPF_SUCCESS);
    CHECK_RC(mpf_open_send("report", &report), MPF_SUCCESS);
  }
  ft_barrier("fcfs.start");
  if (me < senders) {
    for (int i = 0; i < M; ++i) send_message(work, me, i);
    if (me == 0) {
      /* Every sender is done: the stops queue behind all their messages. */
      for (int i = 1; i < senders; ++i) {
        int done;
        size_t bytes = sizeof done;
        CHECK_RC(mpf_receive(ctl, &done, &bytes), MPF_SUCCESS);
      }
      for (int i = 0; i < fcfs_receivers; ++i) send_message(work, 0, -1);
    } else {
      CHECK_RC(mpf_send(ctl, &me, sizeof me), MPF_SUCCESS);
    }
  } else {
    int* last = malloc(sizeof(int) * (size_t)senders);
    struct header* got = malloc(sizeof(struct header) * (size_t)senders * M);
    int count = 0;
    for (int s = 0; s < senders; ++s) last[s] = -1;
    for (int stops = 0; stops < (me == broadcaster ? fcfs_receivers : 1);) {
      const struct header h = receive_message(work);
      if (h.seq < 0) {
        ++stops;
        continue;
      }
      CHECK(h.sender >= 0 && h.sender < senders, "a message from %d", h.sender);
      CHECK(h.seq > last[h.sender], "message %d of sender %d came after its %d", h.seq, h.sender, last[h.sender]);
      if (me == broadcaster) CHECK(h.seq == last[h.sender] + 1, "BROADCAST receiver missed a message of %d", h.sender);
      last[h.sender] = h.seq;
      got[count++] = h;
    }
    if (me == broadcaster) {
      CHECK(count == senders * M, "BROADCAST receiver got %d of %d", count, senders * M);
    } else {
      /* Report the ids to rank 0, which checks that each came once; after
       * the stop, so that rank 0, a sender too, is reading by then. */
      for (int i = 0; i < count; i += 32) {
        const int chunk = count - i < 32 ? count - i : 32;
        CHECK_RC(mpf_send(report, &got[i], sizeof(struct header) * (size_t)chunk), MPF_SUCCESS);
      }
    }
    struct header end = {me, -1};
    CHECK_RC(mpf_send(report, &end, sizeof end), MPF_SUCCESS);
    free(got);
    free(last);
  }
  if (me == 0) {
    unsigned char* seen = calloc((size_t)senders * M, 1);
    int ends = 0, total = 0;
    while (ends < receivers) {
      struct header h[32];
      size_t bytes = sizeof h;
      CHECK_RC(mpf_receive(report, h, &bytes), MPF_SUCCESS);
      if (h[0].seq < 0) {
        ++ends;
        continue;
      }
      for (size_t i = 0; i < bytes / sizeof h[0]; ++i) {
        CHECK(!seen[h[i].sender * M + h[i].seq], "message %d of sender %d was received twice", h[i].seq, h[i].sender);
        seen[h[i].sender * M + h[i].seq] = 1;
        ++total;
      }
    }
    CHECK(total == senders * M, "%d of %d messages were received", total, senders * M);
    free(seen);
  }
  ft_barrier("fcfs.end"); /* nobody closes while others may still send */
  if (me < senders) {
    CHECK_RC(mpf_close_send(work), MPF_SUCCESS);
    if (me != 0) CHECK_RC(mpf_close_send(ctl), MPF_SUCCESS);
  } else {
    CHECK_RC(mpf_close_receive(work), MPF_SUCCESS);
    CHECK_RC(mpf_close_send(report), MPF_SUCCESS);
  }
  if (me == 0) {
    CHECK_RC(mpf_close_receive(ctl), MPF_SUCCESS);
    CHECK_RC(mpf_close_receive(report), MPF_SUCCESS);
  }
}

#define PHASES 4
#define K 400 /* messages per phase */

static void broadcast(void) {
  const int me = mpf_rank();
  /* Receiver r joins at phase (r - 1) % PHASES and leaves after phase
   * join + (r / PHASES) % (PHASES - join), reading half of that phase when
   * r is odd. */
  const int join = (me - 1) % PHASES;
  const int leave = me == 0 ? 0 : join + (me / PHASES) % (PHASES - join);
  const int half = me % 2 == 1 && leave < PHASES - 1;
  mpf_lnvc_t stream = -1;
  char tag[32];
  if (me == 0) CHECK_RC(mpf_open_send("stream", &stream), MPF_SUCCESS);
  for (int phase = 0; phase < PHASES; ++phase) {
    if (me != 0 && phase == join) {
      CHECK_RC(mpf_open_receive("stream", MPF_BROADCAST, &stream), MPF_SUCCESS);
      CHECK_RC(mpf_check_receive(stream), 0); /* nothing sent before it joined is its */
    }
    snprintf(tag, sizeof tag, "bc.open.%d", phase);
    ft_barrier(tag);
    if (me == 0) {
      for (int i = 0; i < K; ++i) send_message(stream, phase, i);
    } else if (phase >= join && phase <= leave) {
      const int count = phase == leave && half ? K / 2 : K;
      for (int i = 0; i < count; ++i) {
        const struct header h = receive_message(stream);
        CHECK(h.sender == phase && h.seq == i, "phase %d message %d came as phase %d message %d", phase, i, h.sender,
              h.seq);
      }
      if (phase == leave) CHECK_RC(mpf_close_receive(stream), MPF_SUCCESS);
    }
    snprintf(tag, sizeof tag, "bc.done.%d", phase);
    ft_barrier(tag);
  }
  if (me == 0) CHECK_RC(mpf_close_send(stream), MPF_SUCCESS);
}

int main(int argc, char** argv) {
  CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
  const int is_fcfs = argc > 1 && strcmp(argv[1], "fcfs") == 0;
  if (is_fcfs) {
    fcfs();
  } else {
    broadcast();
  }
  const int me = mpf_rank();
  CHECK_RC(mpf_finalize(), MPF_SUCCESS);
  if (me == 0) printf("delivery %s ok\n", is_fcfs ? "fcfs" : "broadcast");
  return 0;
}
