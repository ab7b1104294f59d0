/* MPF programs that hang in the ways mpfinspect --deadlock names (tests/launcher/test_inspect.py).
 *
 *   mpf_actions no-sender    rank 0 waits in mpf_receive on "lonely", which nobody
 *                            sends on; the others wait in mpf_finalize
 *   mpf_actions all-receive  every process waits in mpf_receive on its own
 *                            conversation "inbox.<rank>", which the next one
 *                            has open to send but never sends on
 *   mpf_actions full         rank 0 fills "jam" (run with mpf_queue_bytes=4KiB)
 *                            and waits for room; its receiver, rank 1, waits in
 *                            mpf_receive on "other", which only rank 0 sends on
 */
#include <mpf.h>
#include <stdio.h>
#include <string.h>

#define TRY(call)                                                            \
  do {                                                                       \
    int rc_ = (call);                                                        \
    if (rc_ != MPF_SUCCESS) {                                                \
      printf("rank %d: %s: %s\n", mpf_rank(), #call, mpf_error_string(rc_)); \
      return 1;                                                              \
    }                                                                        \
  } while (0)

int main(int argc, char** argv) {
  char buf[256], name[32];
  size_t bytes = sizeof buf;
  mpf_lnvc_t s, r;
  TRY(mpf_init(&argc, &argv));
  const int me = mpf_rank(), n = mpf_size();
  const char* action = argc > 1 ? argv[1] : "";
  if (strcmp(action, "no-sender") == 0) {
    if (me == 0) {
      TRY(mpf_open_receive("lonely", MPF_FCFS, &r));
      TRY(mpf_receive(r, buf, &bytes));
    }
  } else if (strcmp(action, "all-receive") == 0) {
    snprintf(name, sizeof name, "inbox.%d", (me + 1) % n);
    TRY(mpf_open_send(name, &s));
    snprintf(name, sizeof name, "inbox.%d", me);
    TRY(mpf_open_receive(name, MPF_FCFS, &r));
    TRY(mpf_receive(r, buf, &bytes));
  } else if (strcmp(action, "full") == 0) {
    if (me == 0) {
      TRY(mpf_open_send("other", &s));
      TRY(mpf_open_send("jam", &s));
      for (;;) TRY(mpf_send(s, buf, sizeof buf));
    } else if (me == 1) {
      TRY(mpf_open_receive("jam", MPF_BROADCAST, &r));
      TRY(mpf_open_receive("other", MPF_FCFS, &r));
      TRY(mpf_receive(r, buf, &bytes));
    }
  } else {
    printf("unknown action '%s'\n", action);
    return 2;
  }
  TRY(mpf_finalize());
  return 0;
}
