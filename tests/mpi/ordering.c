/*
 * ordering: MPI's non-overtaking rule and wildcard matching with many
 * senders. Every rank (rank 0 included, to itself) sends MESSAGES messages
 * per phase to rank 0, with sizes cycling through the short, eager and
 * rendezvous protocols and tags cycling through TAGS values; each message
 * carries its sender, sequence number and tag in its first bytes (when it is
 * big enough) and a pattern of all three in every byte. Rank 0 receives them:
 *
 *   phase 1  MPI_ANY_SOURCE + MPI_ANY_TAG, messages already arriving
 *   phase 2  MPI_ANY_SOURCE + one tag at a time
 *   phase 3  one source at a time (last rank first) + MPI_ANY_TAG
 *   phase 4  every receive posted (wildcards) before anything is sent
 *   phase 5  a mix: specific source and tag, one wildcard, both wildcards
 *
 * and checks, for every message, that the status's source and tag are the
 * sender's, that the count is the size sent, and that each sender's messages
 * (per tag where the receive names a tag) arrive in the order they were sent.
 * Before that, every rank checks that messages to itself on MPI_COMM_SELF and
 * MPI_COMM_WORLD never match each other's receives or probes.
 *
 *   ordering [MESSAGES]      (default 200; run with 4 or more ranks)
 */
#include "mpitest.h"

#define TAGS 5
#define TAG_GO 900001
#define HEADER_INTS 3 /* sender, sequence, tag */

static const int kSizes[] = {0, 4, 12, 88, 89, 1000, 16384, 16385, 20000};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define LARGEST 20000

static int g_rank, g_size, g_messages;

static int size_of(int seq) { return kSizes[seq % NSIZES]; }
static int tag_of(int sender, int seq) { return (seq + sender) % TAGS; }
static uint64_t seed_of(int phase, int sender, int seq) {
  return mt_seed((uint64_t)phase, (uint64_t)sender, (uint64_t)seq, 0x0de5);
}

/* The message `seq` of this rank in `phase`: pattern, then the header on top. */
static void make_message(char *buf, int phase, int seq) {
  const int bytes = size_of(seq);
  mt_fill(buf, (size_t)bytes, seed_of(phase, g_rank, seq));
  if (bytes >= (int)(HEADER_INTS * sizeof(int))) {
    const int header[HEADER_INTS] = {g_rank, seq, tag_of(g_rank, seq)};
    memcpy(buf, header, sizeof header);
  }
}

/* Ranks other than 0: sends this rank's messages of a phase to rank 0 after
   rank 0 says go; nonblocking, since rank 0 receives them in an order of its
   choosing. */
static void send_phase(int phase) {
  MPI_Request *reqs = mt_alloc(sizeof(MPI_Request) * (size_t)g_messages);
  char *bufs = mt_alloc((size_t)g_messages * LARGEST);
  CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int seq = 0; seq < g_messages; ++seq) {
    char *buf = bufs + (size_t)seq * LARGEST;
    make_message(buf, phase, seq);
    CHECK_RC(MPI_Isend(buf, size_of(seq), MPI_BYTE, 0, tag_of(g_rank, seq), MPI_COMM_WORLD, &reqs[seq]));
  }
  CHECK_RC(MPI_Waitall(g_messages, reqs, MPI_STATUSES_IGNORE));
  free(reqs);
  free(bufs);
}

/* Rank 0 notes what it has received in taken[sender * g_messages + seq].
   The sequence number of the oldest message from `sender` with `tag` (any
   tag if MPI_ANY_TAG) not yet received, or -1. */
static int expected_seq(int sender, int tag, const int *taken) {
  for (int seq = 0; seq < g_messages; ++seq) {
    if (taken[(size_t)sender * (size_t)g_messages + (size_t)seq]) continue;
    if (tag == MPI_ANY_TAG || tag_of(sender, seq) == tag) return seq;
  }
  return -1;
}

/* Checks one received message against what the rule says it must be: the
   oldest not-yet-received message of its sender that the receive matches. */
static void check_received(int phase, const char *buf, const MPI_Status *st, int want_source, int want_tag,
                           int *taken, const char *what) {
  const int sender = st->MPI_SOURCE;
  CHECK(sender >= 0 && sender < g_size, "%s: status source %d", what, sender);
  CHECK(want_source == MPI_ANY_SOURCE || sender == want_source, "%s: source %d, receive asked for %d", what,
        sender, want_source);
  CHECK(want_tag == MPI_ANY_TAG || st->MPI_TAG == want_tag, "%s: tag %d, receive asked for %d", what, st->MPI_TAG,
        want_tag);
  const int seq = expected_seq(sender, want_tag, taken);
  CHECK(seq >= 0, "%s: a message from rank %d (tag %d) that was never sent", what, sender, st->MPI_TAG);
  char label[200];
  snprintf(label, sizeof label, "%s: message %d of rank %d (tag %d, %d bytes)", what, seq, sender,
           tag_of(sender, seq), size_of(seq));
  mt_status(st, sender, tag_of(sender, seq), size_of(seq), label);
  if (size_of(seq) >= (int)(HEADER_INTS * sizeof(int))) {
    int header[HEADER_INTS];
    memcpy(header, buf, sizeof header);
    CHECK(header[0] == sender && header[1] == seq && header[2] == tag_of(sender, seq),
          "%s: got message %d of rank %d (tag %d) instead: overtaken", label, header[1], header[0], header[2]);
    char copy[LARGEST];
    memcpy(copy, buf, (size_t)size_of(seq));
    mt_fill(copy, sizeof header, seed_of(phase, sender, seq)); /* the pattern under the header */
    mt_verify(copy, (size_t)size_of(seq), seed_of(phase, sender, seq), label);
  } else {
    mt_verify(buf, (size_t)size_of(seq), seed_of(phase, sender, seq), label);
  }
  taken[(size_t)sender * (size_t)g_messages + (size_t)seq] = 1;
}

static MPI_Request *g_self_reqs;
static char *g_self_bufs;

/* Rank 0: starts a phase (its own messages to itself, then go to the others). */
static void start_phase(int phase) {
  g_self_reqs = mt_alloc(sizeof(MPI_Request) * (size_t)g_messages);
  g_self_bufs = mt_alloc((size_t)g_messages * LARGEST);
  for (int seq = 0; seq < g_messages; ++seq) {
    char *buf = g_self_bufs + (size_t)seq * LARGEST;
    make_message(buf, phase, seq);
    CHECK_RC(MPI_Isend(buf, size_of(seq), MPI_BYTE, 0, tag_of(0, seq), MPI_COMM_WORLD, &g_self_reqs[seq]));
  }
  for (int r = 1; r < g_size; ++r) CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_GO, MPI_COMM_WORLD));
}

static void end_phase(int *taken) {
  CHECK_RC(MPI_Waitall(g_messages, g_self_reqs, MPI_STATUSES_IGNORE));
  free(g_self_reqs);
  free(g_self_bufs);
  for (size_t i = 0; i < (size_t)g_size * (size_t)g_messages; ++i) {
    CHECK(taken[i], "message %zu of rank %zu was not received", i % (size_t)g_messages, i / (size_t)g_messages);
  }
  memset(taken, 0, sizeof(int) * (size_t)g_size * (size_t)g_messages);
}

static void receive_one(int phase, int source, int tag, int *taken, const char *what) {
  static char buf[LARGEST];
  MPI_Status st;
  mt_scribble_status(&st);
  CHECK_RC(MPI_Recv(buf, LARGEST, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st));
  check_received(phase, buf, &st, source, tag, taken, what);
}

static void root_phases(void) {
  const int total = g_size * g_messages;
  int *taken = mt_alloc(sizeof(int) * (size_t)total);
  memset(taken, 0, sizeof(int) * (size_t)total);

  /* Phase 1: both wildcards. */
  start_phase(1);
  for (int i = 0; i < total; ++i) receive_one(1, MPI_ANY_SOURCE, MPI_ANY_TAG, taken, "phase 1 (any source, any tag)");
  end_phase(taken);

  /* Phase 2: any source, one tag after the other. */
  start_phase(2);
  for (int tag = 0; tag < TAGS; ++tag) {
    int count = 0;
    for (int r = 0; r < g_size; ++r) {
      for (int seq = 0; seq < g_messages; ++seq) count += tag_of(r, seq) == tag;
    }
    for (int i = 0; i < count; ++i) receive_one(2, MPI_ANY_SOURCE, tag, taken, "phase 2 (any source, one tag)");
  }
  end_phase(taken);

  /* Phase 3: one source after the other, last rank first, any tag. */
  start_phase(3);
  for (int r = g_size - 1; r >= 0; --r) {
    for (int i = 0; i < g_messages; ++i) receive_one(3, r, MPI_ANY_TAG, taken, "phase 3 (one source, any tag)");
  }
  end_phase(taken);

  /* Phase 4: every receive posted before any message is sent. Posted
     receives match in the order they were posted, so each sender's messages
     fill the receives in its sending order. */
  {
    MPI_Request *reqs = mt_alloc(sizeof(MPI_Request) * (size_t)total);
    MPI_Status *sts = mt_alloc(sizeof(MPI_Status) * (size_t)total);
    char *bufs = mt_alloc((size_t)total * LARGEST);
    for (int i = 0; i < total; ++i) {
      CHECK_RC(MPI_Irecv(bufs + (size_t)i * LARGEST, LARGEST, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                         &reqs[i]));
    }
    start_phase(4);
    CHECK_RC(MPI_Waitall(total, reqs, sts));
    for (int i = 0; i < total; ++i) {
      check_received(4, bufs + (size_t)i * LARGEST, &sts[i], MPI_ANY_SOURCE, MPI_ANY_TAG, taken,
                     "phase 4 (pre-posted, any source, any tag)");
    }
    end_phase(taken);
    free(reqs);
    free(sts);
    free(bufs);
  }

  /* Phase 5: a mix of receives. First every rank's tag-0 messages by name,
     then tag 1 from any source, then the rest by source with any tag. */
  start_phase(5);
  for (int r = 0; r < g_size; ++r) {
    for (int seq = 0; seq < g_messages; ++seq) {
      if (tag_of(r, seq) == 0) receive_one(5, r, 0, taken, "phase 5 (one source, one tag)");
    }
  }
  {
    int count = 0;
    for (int r = 0; r < g_size; ++r) {
      for (int seq = 0; seq < g_messages; ++seq) count += tag_of(r, seq) == 1;
    }
    for (int i = 0; i < count; ++i) receive_one(5, MPI_ANY_SOURCE, 1, taken, "phase 5 (any source, one tag)");
  }
  for (int r = 0; r < g_size; ++r) {
    int count = 0;
    for (int seq = 0; seq < g_messages; ++seq) count += tag_of(r, seq) > 1;
    for (int i = 0; i < count; ++i) {
      /* Any tag from r: the oldest remaining message of r, whatever its tag. */
      receive_one(5, r, MPI_ANY_TAG, taken, "phase 5 (one source, any tag)");
    }
  }
  end_phase(taken);
  free(taken);
}

/* MPI_COMM_SELF and MPI_COMM_WORLD are different contexts: a message to
   oneself on one is never seen by a receive or probe on the other. */
static void self_versus_world(void) {
  const char world_msg[] = "world", self_msg[] = "self!";
  char buf[16];
  MPI_Request reqs[2];
  MPI_Status st;
  int flag = -1;
  CHECK_RC(MPI_Isend(world_msg, (int)sizeof world_msg, MPI_CHAR, g_rank, 7, MPI_COMM_WORLD, &reqs[0]));
  /* Make sure it has arrived before looking for it on the other communicator. */
  CHECK_RC(MPI_Probe(g_rank, 7, MPI_COMM_WORLD, &st));
  CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &st));
  CHECK(flag == 0, "MPI_Iprobe on MPI_COMM_SELF saw a message sent on MPI_COMM_WORLD");
  CHECK_RC(MPI_Isend(self_msg, (int)sizeof self_msg, MPI_CHAR, 0, 7, MPI_COMM_SELF, &reqs[1]));

  memset(buf, 0, sizeof buf);
  CHECK_RC(MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &st));
  CHECK(strcmp(buf, self_msg) == 0, "a wildcard receive on MPI_COMM_SELF got '%s'", buf);
  mt_status(&st, 0, 7, (int)sizeof self_msg, "receive on MPI_COMM_SELF");

  memset(buf, 0, sizeof buf);
  CHECK_RC(MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, g_rank, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(strcmp(buf, world_msg) == 0, "a receive on MPI_COMM_WORLD got '%s'", buf);
  mt_status(&st, g_rank, 7, (int)sizeof world_msg, "receive on MPI_COMM_WORLD");
  CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));

  /* The other way round: posted receive on WORLD, message on SELF. (Its
     source is this rank: other ranks may already send to rank 0.) */
  MPI_Request posted;
  CHECK_RC(MPI_Irecv(buf, (int)sizeof buf, MPI_CHAR, g_rank, MPI_ANY_TAG, MPI_COMM_WORLD, &posted));
  CHECK_RC(MPI_Send(self_msg, (int)sizeof self_msg, MPI_CHAR, 0, 8, MPI_COMM_SELF));
  CHECK_RC(MPI_Probe(0, 8, MPI_COMM_SELF, &st)); /* still there: the WORLD receive did not take it */
  CHECK_RC(MPI_Test(&posted, &flag, &st));
  CHECK(flag == 0, "a receive posted on MPI_COMM_WORLD matched a message sent on MPI_COMM_SELF");
  CHECK_RC(MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, 0, 8, MPI_COMM_SELF, &st));
  CHECK_RC(MPI_Send(world_msg, (int)sizeof world_msg, MPI_CHAR, g_rank, 9, MPI_COMM_WORLD));
  CHECK_RC(MPI_Wait(&posted, &st));
  CHECK(strcmp(buf, world_msg) == 0, "the WORLD receive got '%s'", buf);
  mt_status(&st, g_rank, 9, (int)sizeof world_msg, "posted receive on MPI_COMM_WORLD");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  CHECK(g_size >= 4, "run with 4 or more ranks, not %d", g_size);
  g_messages = argc > 1 ? (int)mt_arg(argc, argv, 1, "MESSAGES") : 200;

  self_versus_world();
  mt_barrier();

  if (g_rank == 0) {
    root_phases();
    printf("ordering ok: %d ranks, %d messages each in 5 phases\n", g_size, g_messages);
  } else {
    for (int phase = 1; phase <= 5; ++phase) send_phase(phase);
  }
  MPI_Finalize();
  return 0;
}
