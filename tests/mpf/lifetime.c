/* A conversation's lifetime and who gets what was sent while nobody, or not
 * the right kind of receiver, was connected (man 3 mpf, Semantics). Needs 3
 * processes.
 *
 *  1. The last close discards: a conversation whose only sender closes is
 *     gone with its messages; the same name later starts empty.
 *  2. Messages sent before any receiver joined wait for the first FCFS
 *     receiver, in order.
 *  3. ... or for the first BROADCAST receiver; a second one that joins later
 *     does not get them, and both get what is sent next.
 *  4. Messages sent while only BROADCAST receivers are connected are not
 *     kept for an FCFS receiver that joins later.
 *  5. When the last FCFS receiver leaves with messages unread, they wait for
 *     the next FCFS receiver.
 *  6. A BROADCAST receiver may close in the middle of the stream; a process
 *     may open the same conversation several times, in each role.
 *  7. mpf_finalize closes a sender's connections only once every process
 *     has reached it: messages sent right before it reach a receiver that
 *     joins later.
 */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "mpftest.h"

static void send_int(mpf_lnvc_t to, int value) { CHECK_RC(mpf_send(to, &value, sizeof value), MPF_SUCCESS); }

static int receive_int(mpf_lnvc_t from) {
  int value = -1;
  size_t bytes = sizeof value;
  CHECK_RC(mpf_receive(from, &value, &bytes), MPF_SUCCESS);
  CHECK(bytes == sizeof value, "a message of %zu bytes", bytes);
  return value;
}

int main(int argc, char** argv) {
  CHECK_RC(mpf_init(&argc, &argv), MPF_SUCCESS);
  const int me = mpf_rank();
  mpf_lnvc_t s, r, r2;
  CHECK(mpf_size() == 3, "run with 3 processes");

  /* 1 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.1", &s), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) send_int(s, i);
    CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
    CHECK_RC(mpf_open_receive("life.1", MPF_FCFS, &r), MPF_SUCCESS);
    CHECK_RC(mpf_check_receive(r), 0);
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }

  /* 2 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.2", &s), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) send_int(s, 20 + i);
  }
  ft_barrier("life.2.sent");
  if (me == 1) {
    CHECK_RC(mpf_open_receive("life.2", MPF_FCFS, &r), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) CHECK(receive_int(r) == 20 + i, "message %d of the waiting ones", i);
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }
  ft_barrier("life.2.read");
  if (me == 0) CHECK_RC(mpf_close_send(s), MPF_SUCCESS);

  /* 3 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.3", &s), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) send_int(s, 30 + i);
  }
  ft_barrier("life.3.sent");
  if (me == 1) CHECK_RC(mpf_open_receive("life.3", MPF_BROADCAST, &r), MPF_SUCCESS);
  ft_barrier("life.3.first");
  if (me == 2) {
    CHECK_RC(mpf_open_receive("life.3", MPF_BROADCAST, &r), MPF_SUCCESS);
    CHECK_RC(mpf_check_receive(r), 0);
  }
  ft_barrier("life.3.second");
  if (me == 0) send_int(s, 33);
  if (me == 1) {
    for (int i = 0; i < 4; ++i) CHECK(receive_int(r) == 30 + i, "the first BROADCAST receiver's message %d", i);
  }
  if (me == 2) CHECK(receive_int(r) == 33, "the second BROADCAST receiver got an earlier message");
  ft_barrier("life.3.read");
  if (me == 0) CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  if (me != 0) CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);

  /* 4 */
  if (me == 1) CHECK_RC(mpf_open_receive("life.4", MPF_BROADCAST, &r), MPF_SUCCESS);
  ft_barrier("life.4.joined");
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.4", &s), MPF_SUCCESS);
    send_int(s, 40);
    send_int(s, 41);
  }
  ft_barrier("life.4.sent");
  if (me == 2) {
    CHECK_RC(mpf_open_receive("life.4", MPF_FCFS, &r), MPF_SUCCESS);
    CHECK_RC(mpf_check_receive(r), 0);
  }
  ft_barrier("life.4.fcfs");
  if (me == 0) send_int(s, 42);
  if (me == 1) {
    for (int i = 0; i < 3; ++i) CHECK(receive_int(r) == 40 + i, "BROADCAST message %d", i);
  }
  if (me == 2) CHECK(receive_int(r) == 42, "the FCFS receiver got a message sent before it joined");
  ft_barrier("life.4.read");
  if (me == 0) CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
  if (me != 0) CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);

  /* 5 */
  if (me == 1) CHECK_RC(mpf_open_receive("life.5", MPF_FCFS, &r), MPF_SUCCESS);
  ft_barrier("life.5.joined");
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.5", &s), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) send_int(s, 50 + i);
  }
  ft_barrier("life.5.sent");
  if (me == 1) {
    CHECK(receive_int(r) == 50, "the first FCFS message");
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }
  ft_barrier("life.5.left");
  if (me == 2) {
    CHECK_RC(mpf_open_receive("life.5", MPF_FCFS, &r), MPF_SUCCESS);
    CHECK(receive_int(r) == 51 && receive_int(r) == 52, "the next FCFS receiver lost messages");
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }
  ft_barrier("life.5.read");
  if (me == 0) CHECK_RC(mpf_close_send(s), MPF_SUCCESS);

  /* 6: one process, two BROADCAST connections and two send connections. */
  if (me == 2) {
    mpf_lnvc_t s2;
    CHECK_RC(mpf_open_send("life.6", &s), MPF_SUCCESS);
    CHECK_RC(mpf_open_send("life.6", &s2), MPF_SUCCESS);
    CHECK_RC(mpf_open_receive("life.6", MPF_BROADCAST, &r), MPF_SUCCESS);
    CHECK_RC(mpf_open_receive("life.6", MPF_BROADCAST, &r2), MPF_SUCCESS);
    for (int i = 0; i < 5; ++i) send_int(i % 2 ? s2 : s, 60 + i);
    CHECK(receive_int(r2) == 60 && receive_int(r2) == 61, "the second connection's first messages");
    CHECK_RC(mpf_close_receive(r2), MPF_SUCCESS); /* three unread: released, not lost to r */
    for (int i = 0; i < 5; ++i) CHECK(receive_int(r) == 60 + i, "the first connection's message %d", i);
    CHECK_RC(mpf_close_send(s), MPF_SUCCESS);
    send_int(s2, 65);
    CHECK(receive_int(r) == 65, "after one send connection closed");
    CHECK_RC(mpf_close_send(s2), MPF_SUCCESS);
    CHECK_RC(mpf_close_receive(r), MPF_SUCCESS);
  }

  /* 7 */
  if (me == 0) {
    CHECK_RC(mpf_open_send("life.7", &s), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) send_int(s, 70 + i);
  } else if (me == 1) {
    const struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL); /* rank 0 is in mpf_finalize by now */
    CHECK_RC(mpf_open_receive("life.7", MPF_FCFS, &r), MPF_SUCCESS);
    for (int i = 0; i < 3; ++i) CHECK(receive_int(r) == 70 + i, "message %d sent before mpf_finalize", i);
  }
  CHECK_RC(mpf_finalize(), MPF_SUCCESS);
  if (me == 0) printf("lifetime ok\n");
  return 0;
}
