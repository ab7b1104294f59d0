/*
 * mpf_example.h: what the MPF examples (mpf_base.c, mpf_fcfs.c,
 * mpf_broadcast.c, mpf_random.c, mpf_gauss_jordan.c, mpf_sor.c) share, so
 * that each of them shows only its own use of MPF:
 *   - CHECK around every MPF call, and fail() for a failed check of the
 *     program itself: both print a message and exit with status 1;
 *   - seconds(), a monotonic clock;
 *   - the command line: integer() for a whole-number argument and
 *     stop_for_arguments() for bad arguments (exit status 2);
 *   - the benchmark mode of mpf_gauss_jordan and mpf_sor, which are also
 *     mpftune kernels: DEFAULT_REPS and print_samples(), the "mpfbench"
 *     lines.
 * Plain C99 against mpf.h. The example defines _POSIX_C_SOURCE (for
 * clock_gettime) before any #include, and its name, which the messages
 * start with:
 *   static const char *const program = "mpf_base";
 */
#ifndef MPF_EXAMPLE_H
#define MPF_EXAMPLE_H

#include <mpf.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The program's name: each example defines it (this declaration is only a
 * tentative definition, which the example's definition completes). */
static const char *const program;

/* Every MPF call goes through CHECK: a negative return code is an error, and
 * the program stops with the call, its line and mpf_error_string's text. The
 * value is passed through, so CHECK(mpf_check_receive(h)) can be tested. */
#define CHECK(call) check_rc((call), #call, __LINE__)

static inline int check_rc(int rc, const char *call, int line) {
  if (rc < 0) {
    fprintf(stderr, "%s: rank %d: %s (line %d) failed: %s\n", program, mpf_rank(), call, line,
            mpf_error_string(rc));
    exit(1);
  }
  return rc;
}

/* A failed check of the program itself. */
static inline void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: rank %d: FAILED: ", program, mpf_rank());
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
  exit(1);
}

static inline double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- The command line ------------------------------------------------ */

/* Bad arguments. Every process sees the same arguments, so all get here;
 * rank 0 has said what is wrong and exits, the others wait for it in
 * mpf_finalize, and mpfrun ends the job when rank 0 exits. */
static inline void stop_for_arguments(void) {
  if (mpf_rank() != 0) mpf_finalize();
  exit(2);
}

/* The whole text must be a number in [min, max]. */
static inline long integer(const char *text, const char *option, long min, long max) {
  char *end;
  long value = strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || value < min || value > max) {
    if (mpf_rank() == 0) {
      fprintf(stderr, "%s: %s wants a number from %ld to %ld, not '%s'\n", program, option, min, max, text);
    }
    stop_for_arguments();
  }
  return value;
}

/* ---- Benchmark mode (--reps, --quick): mpftune's kernels --------------- */

/* Built as one of mpftune's kernels (kernel_gauss_jordan, kernel_sor:
 * tune/CMakeLists.txt defines MPF_TUNE_KERNEL), a program is in benchmark
 * mode by default, as every kernel measures by default. */
#ifdef MPF_TUNE_KERNEL
#define DEFAULT_REPS 11
#else
#define DEFAULT_REPS 0
#endif

static inline int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted values, interpolated between neighbours. */
static inline double quantile(const double *sorted, int count, double q) {
  const double position = q * (count - 1);
  const int low = (int)position;
  const double fraction = position - low;
  return low + 1 < count ? sorted[low] + fraction * (sorted[low + 1] - sorted[low]) : sorted[low];
}

/* Prints the mpftune line of operation `op` of kernel `kernel`: `samples`
 * are seconds, in the order they were measured, printed in ms. Returns the
 * median (seconds). */
static inline double print_samples(const char *kernel, const char *op, int processes, const double *samples,
                                   int reps) {
  double *sorted = malloc((size_t)reps * sizeof(double));
  double median;
  if (sorted == NULL) fail("out of memory");
  memcpy(sorted, samples, (size_t)reps * sizeof(double));
  qsort(sorted, (size_t)reps, sizeof(double), compare_doubles);
  median = quantile(sorted, reps, 0.5);
  printf("mpfbench kernel=%s op=%s np=%d bytes=-1 unit=ms better=lower warmup=1 iters=1 reps=%d "
         "median=%.6g min=%.6g q1=%.6g q3=%.6g max=%.6g samples=",
         kernel, op, processes, reps, 1e3 * median, 1e3 * sorted[0], 1e3 * quantile(sorted, reps, 0.25),
         1e3 * quantile(sorted, reps, 0.75), 1e3 * sorted[reps - 1]);
  for (int i = 0; i < reps; ++i) printf(i > 0 ? ",%.6g" : "%.6g", 1e3 * samples[i]);
  printf("\n");
  free(sorted);
  return median;
}

#endif /* MPF_EXAMPLE_H */
