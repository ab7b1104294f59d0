/*
 * Unexpected-message flood kernel: every rank but rank 0 sends rank 0 a
 * burst of N nonblocking messages before rank 0 has posted any receive for
 * them, then an empty "all sent" message with another tag. Rank 0 first
 * receives every sender's "all sent", so the bursts (which MPI keeps in
 * order ahead of it) wait in its unexpected queue; then it receives the
 * messages, sender by sender, which all match unexpected ones, and
 * acknowledges each sender. With 2 ranks that is one sender and one
 * receiver; with more, the many-to-one pattern of a task farm's master,
 * where the receiver's unexpected buffers are shared by all its senders.
 * The figure is the time per message of the whole burst, in us (lower is
 * better): what buffering, throttling and searching unexpected messages
 * cost. See kernel_util.h. Plain MPI.
 *   kernel_flood [--check] [--quick] [--reps N] [--rep-ms MS] [--sizes LIST] [--messages N]
 * Runs with 2 ranks or more; N is 256 by default (64 with --quick); the
 * bursts together hold at most 256 MiB.
 */
#include "kernel_util.h"

enum { FLOOD_TAG = 1, FLOOD_SENT_TAG = 2, FLOOD_ACK_TAG = 3, FLOOD_MAX_BYTES = 256 << 20 };

struct flood {
  struct ku_kernel *k;
  int messages; /* --messages; 0 until given */
  unsigned char *pool;
  MPI_Request *requests;
  MPI_Status *statuses; /* MPI_Waitall's (MPICH's MPI_STATUSES_IGNORE makes GCC 12 warn) */
  long seq;
};

static int flood_option(void *ctx, const char *arg, const char *value) {
  if (strcmp(arg, "--messages") != 0) return 0;
  const long n = value ? ku_parse_long(value, 1, 100000) : 0;
  if (n < 1) return -1;
  ((struct flood *)ctx)->messages = (int)n;
  return 2;
}

static double flood_step(void *ctx, long bytes, int iters) {
  struct flood *f = ctx;
  struct ku_kernel *k = f->k;
  const int n = f->messages;
  const int senders = k->size - 1;
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i, ++f->seq) {
    if (k->rank != 0) {
      for (int m = 0; m < n; ++m) {
        unsigned char *buf = f->pool + (long)m * bytes;
        if (k->check) ku_fill(buf, bytes, f->seq * n + m, k->rank);
        MPI_Isend(buf, (int)bytes, MPI_BYTE, 0, FLOOD_TAG, MPI_COMM_WORLD, &f->requests[m]);
      }
      MPI_Send(NULL, 0, MPI_BYTE, 0, FLOOD_SENT_TAG, MPI_COMM_WORLD);
      MPI_Waitall(n, f->requests, f->statuses);
      MPI_Recv(NULL, 0, MPI_BYTE, 0, FLOOD_ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int s = 1; s <= senders; ++s) {
        MPI_Recv(NULL, 0, MPI_BYTE, s, FLOOD_SENT_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      for (int s = 1; s <= senders; ++s) {
        for (int m = 0; m < n; ++m) {
          unsigned char *buf = f->pool + ((long)(s - 1) * n + m) * bytes;
          MPI_Recv(buf, (int)bytes, MPI_BYTE, s, FLOOD_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          if (k->check) ku_verify(k, "flooded message", buf, bytes, f->seq * n + m, s);
        }
      }
      for (int s = 1; s <= senders; ++s) MPI_Send(NULL, 0, MPI_BYTE, s, FLOOD_ACK_TAG, MPI_COMM_WORLD);
    }
  }
  return MPI_Wtime() - t0;
}

static double flood_us_per_message(void *ctx, long bytes, int iters, double seconds) {
  (void)bytes;
  const struct flood *f = ctx;
  return seconds / iters / ((double)f->messages * (f->k->size - 1)) * 1e6;
}

int main(int argc, char **argv) {
  struct flood f = {.messages = 0};
  struct ku_kernel k = {.name = "flood",
                        .unit = "us",
                        .better = KU_LOWER,
                        .full_sizes = "0,8,64,512,4K,32K,256K",
                        .quick_sizes = "8,4K",
                        .min_ranks = 2,
                        .extra = flood_option,
                        .extra_ctx = &f,
                        .extra_usage = "--messages N"};
  ku_init(&argc, &argv, &k);
  f.k = &k;
  if (f.messages == 0) f.messages = k.quick ? 64 : 256;
  /* Rank 0 holds every sender's burst at once; a sender its own. */
  const long pool = (long)f.messages * ku_max_bytes(&k) * (k.rank == 0 ? k.size - 1 : 1);
  const long largest = (long)f.messages * ku_max_bytes(&k) * (k.size - 1);
  if (largest > FLOOD_MAX_BYTES) {
    char what[64];
    snprintf(what, sizeof what, "%ld", largest);
    ku_usage_exit(&k, "--messages times the largest size times the senders exceeds 256 MiB:", what);
  }
  f.pool = ku_alloc(&k, pool);
  f.requests = (MPI_Request *)(void *)ku_alloc(&k, (long)f.messages * (long)sizeof(MPI_Request));
  f.statuses = (MPI_Status *)(void *)ku_alloc(&k, (long)f.messages * (long)sizeof(MPI_Status));
  for (int s = 0; s < k.nsizes; ++s) ku_measure(&k, "-", k.sizes[s], flood_step, flood_us_per_message, &f);
  free(f.pool);
  free(f.requests);
  free(f.statuses);
  return ku_finish(&k);
}
