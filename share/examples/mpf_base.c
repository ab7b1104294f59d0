/*
 * mpf_base.c: the "base" benchmark of the MPF paper (Malony, Reed and
 * McGuire, "MPF: A Portable Message Passing Facility for Shared Memory
 * Multiprocessors", section 4): the throughput of one conversation with one
 * sender and one receiver.
 *
 * One process joins the conversation "base.loop" twice, as its sender and as
 * its (FCFS) receiver, and then alternately sends a message and receives it
 * back, for message sizes doubling from --min to --max bytes. For each size
 * it prints the bytes and messages per second that went through.
 *
 * What it shows:
 *   - a process may be a sender and a receiver of the same conversation;
 *   - mpf_send returns as soon as the message is queued, so a process can
 *     receive its own message afterwards;
 *   - mpf_receive takes the buffer's capacity in *bytes and gives back the
 *     length of the message.
 *
 * Run:
 *   mpfrun -n 1 ./mpf_base [--min BYTES] [--max BYTES] [--volume BYTES]
 *
 *   --min BYTES     smallest message size (default 8)
 *   --max BYTES     largest message size (default 1048576); a message must
 *                   fit in the conversation's queue (the tunable
 *                   mpf_queue_bytes, 2 MiB by default, less 64 bytes per
 *                   message), or its send would wait for a receive that this
 *                   very process can only make after the send returned
 *   --volume BYTES  bytes to send per size (default 67108864): volume/size
 *                   messages, at least 50 and at most 200000
 *
 * Started with more processes, only rank 0 runs the loop; the others just
 * join the job and leave it.
 *
 * Checks: every message comes back with the length it was sent with and
 * carries its sequence number in its first bytes; the last message of each
 * size is compared byte for byte. On success rank 0 prints a line starting
 * "mpf_base ok".
 */
#define _POSIX_C_SOURCE 200112L

#include <mpf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the examples share: CHECK, fail(), seconds(), integer(). */
#include "mpf_example.h"

/* The name the messages start with (mpf_example.h). */
static const char *const program = "mpf_base";

static void usage(void) {
  if (mpf_rank() == 0) fprintf(stderr, "usage: %s [--min BYTES] [--max BYTES] [--volume BYTES]\n", program);
  stop_for_arguments();
}

/* The message's sequence number, little-endian in its first (up to 4) bytes,
 * so that messages shorter than 4 bytes still carry part of it. */
static void stamp(unsigned char *message, size_t size, unsigned long sequence) {
  for (size_t i = 0; i < size && i < 4; ++i) message[i] = (unsigned char)(sequence >> (8 * i));
}

static int stamped(const unsigned char *message, size_t size, unsigned long sequence) {
  for (size_t i = 0; i < size && i < 4; ++i) {
    if (message[i] != (unsigned char)(sequence >> (8 * i))) return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  long min = 8, max = 1048576, volume = 67108864;

  CHECK(mpf_init(&argc, &argv));
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--min") == 0 && i + 1 < argc) {
      min = integer(argv[++i], "--min", 1, 1L << 30);
    } else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
      max = integer(argv[++i], "--max", 1, 1L << 30);
    } else if (strcmp(argv[i], "--volume") == 0 && i + 1 < argc) {
      volume = integer(argv[++i], "--volume", 1, 1L << 40);
    } else {
      usage();
    }
  }
  if (min > max) usage();

  if (mpf_rank() == 0) {
    mpf_lnvc_t out, in;
    unsigned char *message = malloc((size_t)max);
    unsigned char *received = malloc((size_t)max);
    double peak = 0.0, total_time = 0.0;
    long peak_size = 0;
    int sizes = 0;
    if (message == NULL || received == NULL) fail("out of memory for %ld-byte messages", max);

    /* Both ends of the loop: the same conversation, opened twice. */
    CHECK(mpf_open_send("base.loop", &out));
    CHECK(mpf_open_receive("base.loop", MPF_FCFS, &in));

    printf("%s: one process sends to and receives from conversation \"base.loop\"\n", program);
    printf("%10s %10s %10s %14s %14s\n", "bytes", "messages", "seconds", "bytes/s", "messages/s");
    for (long size = min;; size = size * 2 < max ? size * 2 : max) {
      long count = volume / size;
      const long warmup = 5;
      double start, elapsed;
      if (count < 50) count = 50;
      if (count > 200000) count = 200000;
      for (long i = 0; i < size; ++i) message[i] = (unsigned char)(i * 7 + size);

      /* A few untimed round trips first: the queue's memory is touched the
       * first time it is used. Sequence numbers go on across them. */
      start = 0.0;
      for (long i = 0; i < warmup + count; ++i) {
        size_t bytes = (size_t)size;
        if (i == warmup) start = seconds();
        stamp(message, (size_t)size, (unsigned long)i);
        CHECK(mpf_send(out, message, (size_t)size));
        CHECK(mpf_receive(in, received, &bytes));
        if (bytes != (size_t)size) fail("sent %ld bytes, received %zu", size, bytes);
        if (!stamped(received, bytes, (unsigned long)i)) {
          fail("message %ld of %ld bytes came back out of order", i, size);
        }
      }
      elapsed = seconds() - start;
      if (memcmp(message, received, (size_t)size) != 0) fail("the last %ld-byte message came back changed", size);
      /* Nothing may be left over. */
      if (CHECK(mpf_check_receive(in)) != 0) fail("a message too many is waiting after the %ld-byte loop", size);

      printf("%10ld %10ld %10.4f %14.4g %14.4g\n", size, count, elapsed, (double)size * (double)count / elapsed,
             (double)count / elapsed);
      if ((double)size * (double)count / elapsed > peak) {
        peak = (double)size * (double)count / elapsed;
        peak_size = size;
      }
      total_time += elapsed;
      ++sizes;
      if (size == max) break;
    }

    CHECK(mpf_close_receive(in));
    CHECK(mpf_close_send(out));
    printf("%s ok: %d sizes from %ld to %ld bytes, peak %.3g bytes/s at %ld bytes, %.2f s\n", program, sizes, min, max,
           peak, peak_size, total_time);
    free(message);
    free(received);
  }

  CHECK(mpf_finalize());
  return 0;
}
