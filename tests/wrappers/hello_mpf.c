/* An MPF program built with mpfcc: every process passes a greeting through a
 * conversation of its own to itself. */
#include <mpf.h>
#include <stdio.h>

int main(int argc, char** argv) {
  char name[32], text[64], in[64];
  size_t bytes = sizeof in;
  mpf_lnvc_t to, from;
  if (mpf_init(&argc, &argv) != MPF_SUCCESS) return 1;
  snprintf(name, sizeof name, "greeting.%d", mpf_rank());
  snprintf(text, sizeof text, "mpf process %d of %d", mpf_rank(), mpf_size());
  if (mpf_open_send(name, &to) != MPF_SUCCESS || mpf_open_receive(name, MPF_FCFS, &from) != MPF_SUCCESS ||
      mpf_send(to, text, sizeof text) != MPF_SUCCESS || mpf_receive(from, in, &bytes) != MPF_SUCCESS) {
    return 1;
  }
  printf("%s\n", in);
  return mpf_finalize() == MPF_SUCCESS ? 0 : 1;
}
