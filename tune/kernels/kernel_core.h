/*
 * kernel_core.h: what every benchmark kernel shares whatever interface it
 * measures — its command line, the message sizes, the warm-up and
 * calibration of a timed batch, the statistics and the output line that
 * `mpftune bench` reads. Plain C99 and libc. A kernel includes the header
 * of its interface, which includes this one and binds it:
 *   kernel_util.h    MPI (point-to-point only: it runs on an MPI without collectives)
 *   shmem_util.h     OpenSHMEM (1.4 calls only, so that every OpenSHMEM builds it)
 * so the same kernels build against any implementation of that interface.
 *
 * Use:
 *   static double step(void *ctx, long bytes, int iters);   // runs `iters` iterations
 *   static double metric(void *ctx, long bytes, int iters, double seconds);
 *   struct ku_kernel k = {.name = "pingpong", .unit = "us", .better = KU_LOWER, ...};
 *   ku_init(&argc, &argv, &k);               // MPI_Init or shmem_init, options, rank, size, sizes
 *   for (int s = 0; s < k.nsizes; ++s)
 *     ku_measure(&k, "-", k.sizes[s], step, metric, ctx);
 *   return ku_finish(&k);                    // MPI_Finalize or shmem_finalize
 *
 * Options every kernel takes (a kernel may add its own through `extra`):
 *   --check        fill every buffer with a pattern and verify every byte
 *                  received; a wrong byte aborts the job with exit code 1
 *   --quick        the kernel's short list of sizes, 3 batches of 2 ms
 *   --reps N       timed batches per size (default 11, quick 3)
 *   --rep-ms MS    target length of one timed batch (default 20, quick 2)
 *   --sizes LIST   comma-separated message sizes in bytes (K and M suffixes)
 * A bad option makes rank 0 print one line naming it; every rank exits 2.
 *
 * Measurement, per size: warm-up batches of 1, 2, 4, ... iterations (at
 * least two) until one lasts a quarter of a batch's target; then the
 * iteration count that fills a batch's target at the last warm-up batch's
 * pace, which rank 0 computes and sends to every rank; then `reps` timed
 * batches. Rank 0 prints one line:
 *   mpfbench kernel=K op=OP np=N bytes=B unit=U better=lower|higher
 *            warmup=W iters=I reps=R median=M min=A q1=Q max=Z q3=Q samples=S,S,...
 * (one line; `op` is "-" for a kernel with one operation, `bytes` is -1 for
 * one without sizes, `samples` are the batches in the order they ran).
 * Lines starting with '#' are comments: `# library: ...` names the library.
 * At the end, before the interface is finalized:
 *   mpfbench-end kernel=K check=passed|off
 * (`mpftune bench` counts a run that printed it as complete, whatever
 * happens in the finalize and exit that follow).
 */
#ifndef MPF_TUNE_KERNEL_CORE_H
#define MPF_TUNE_KERNEL_CORE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KU_LOWER = 0, KU_HIGHER = 1 };
enum { KU_MAX_REPS = 1000, KU_MAX_SIZES = 64 };

struct ku_kernel {
  /* Set by the kernel before ku_init. */
  const char *name;
  const char *unit;        /* "us", "MB/s", "Mmsg/s" */
  int better;              /* KU_LOWER or KU_HIGHER */
  const char *full_sizes;  /* default size list, e.g. "0,1,4,16,64" ("" for none) */
  const char *quick_sizes; /* the list under --quick */
  int min_ranks;           /* fewest ranks the kernel runs with */
  int exact_ranks;         /* non-zero: exactly this many ranks */
  int even_ranks;          /* non-zero: an even number of ranks */
  /* The kernel's own options: `extra` is called for each argument the
   * common parser does not know, with the argument and its value (NULL at
   * the end of the command line); it returns how many it used (1 or 2), 0
   * when the option is not the kernel's, or -1 when its value is bad. */
  int (*extra)(void *ctx, const char *arg, const char *value);
  void *extra_ctx;
  const char *extra_usage; /* e.g. "[--window W]" */
  /* Set by ku_init. */
  int rank, size, check, quick, reps;
  double rep_seconds;
  long sizes[KU_MAX_SIZES];
  int nsizes;
};

/* The interface's part, defined by the header that binds this one
 * (kernel_util.h, shmem_util.h) after including it. */
static inline void ku_api_init(int *argc, char ***argv, int *rank, int *size);
static inline void ku_api_print_library(void); /* the "# library: " line */
static inline void ku_api_finalize(void);
static inline void ku_api_abort(int code); /* stops every rank with `code` */
/* Rank 0's value on every rank; every rank calls it. */
static inline void ku_share_int(struct ku_kernel *k, int *value);

static inline void ku_usage_exit(struct ku_kernel *k, const char *what, const char *arg) {
  if (k->rank == 0) {
    fprintf(stderr, "kernel_%s: %s %s (options: --check --quick --reps N --rep-ms MS --sizes LIST %s)\n", k->name,
            what, arg, k->extra_usage ? k->extra_usage : "");
  }
  ku_api_finalize();
  exit(2);
}

/* A size such as 4096, 4K or 4M; -1 when the text is none. */
static inline long ku_parse_bytes(const char *text) {
  char *end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || v < 0) return -1;
  if (*end == 'K' || *end == 'k') {
    v <<= 10;
    ++end;
  } else if (*end == 'M' || *end == 'm') {
    v <<= 20;
    ++end;
  }
  return *end == '\0' && v <= (1L << 30) ? v : -1;
}

/* A whole number in [lo, hi]; `lo - 1` when the text is none. */
static inline long ku_parse_long(const char *text, long lo, long hi) {
  char *end = NULL;
  const long v = strtol(text, &end, 10);
  return end != text && *end == '\0' && v >= lo && v <= hi ? v : lo - 1;
}

/* A kernel's --ops LIST: marks in `selected` the operations of `names`
 * (`count` of them) that the comma-separated `value` names, and returns 2
 * (the option and its value used), or -1 when it names another. */
static inline int ku_select_ops(const char *value, const char *const *names, int count, int *selected) {
  if (value == NULL || *value == '\0') return -1;
  for (int o = 0; o < count; ++o) selected[o] = 0;
  for (const char *p = value;;) {
    const size_t len = strcspn(p, ",");
    int found = 0;
    for (int o = 0; o < count; ++o) {
      if (strlen(names[o]) == len && strncmp(p, names[o], len) == 0) found = selected[o] = 1;
    }
    if (!found) return -1;
    if (p[len] == '\0') return 2;
    p += len + 1;
  }
}

static inline int ku_set_sizes(struct ku_kernel *k, const char *list) {
  k->nsizes = 0;
  if (list == NULL || *list == '\0') return 1;
  for (const char *p = list;;) {
    char item[32];
    const size_t len = strcspn(p, ",");
    if (len == 0 || len >= sizeof item || k->nsizes == KU_MAX_SIZES) return 0;
    memcpy(item, p, len);
    item[len] = '\0';
    const long v = ku_parse_bytes(item);
    if (v < 0) return 0;
    k->sizes[k->nsizes++] = v;
    if (p[len] == '\0') return 1;
    p += len + 1;
  }
}

static inline void ku_init(int *argc, char ***argv, struct ku_kernel *k) {
  ku_api_init(argc, argv, &k->rank, &k->size);
  k->check = k->quick = 0;
  k->reps = -1;
  k->rep_seconds = -1;
  const char *sizes = NULL;
  for (int i = 1; i < *argc; ++i) {
    const char *arg = (*argv)[i];
    const char *value = i + 1 < *argc ? (*argv)[i + 1] : NULL;
    if (strcmp(arg, "--check") == 0) {
      k->check = 1;
    } else if (strcmp(arg, "--quick") == 0) {
      k->quick = 1;
    } else if (strcmp(arg, "--reps") == 0 || strcmp(arg, "--rep-ms") == 0 || strcmp(arg, "--sizes") == 0) {
      if (value == NULL) ku_usage_exit(k, "option needs a value:", arg);
      ++i;
      if (strcmp(arg, "--reps") == 0) {
        k->reps = (int)ku_parse_long(value, 1, KU_MAX_REPS);
        if (k->reps < 1) ku_usage_exit(k, "--reps must be 1..1000, not", value);
      } else if (strcmp(arg, "--rep-ms") == 0) {
        const long ms = ku_parse_long(value, 1, 60000);
        if (ms < 1) ku_usage_exit(k, "--rep-ms must be 1..60000, not", value);
        k->rep_seconds = (double)ms / 1000.0;
      } else {
        sizes = value;
      }
    } else {
      const int used = k->extra ? k->extra(k->extra_ctx, arg, value) : 0;
      if (used < 0) ku_usage_exit(k, "bad value for", arg);
      if (used == 0) ku_usage_exit(k, "unknown option", arg);
      i += used - 1;
    }
  }
  if (k->reps < 0) k->reps = k->quick ? 3 : 11;
  if (k->rep_seconds < 0) k->rep_seconds = k->quick ? 0.002 : 0.020;
  if (!ku_set_sizes(k, sizes ? sizes : k->quick ? k->quick_sizes : k->full_sizes)) {
    ku_usage_exit(k, "--sizes takes up to 64 comma-separated sizes in bytes (4096, 4K, 1M), not",
                  sizes ? sizes : "the kernel's default");
  }
  char count[32];
  snprintf(count, sizeof count, "%d", k->size);
  if (k->size < k->min_ranks) ku_usage_exit(k, "too few ranks for this kernel:", count);
  if (k->exact_ranks && k->size != k->exact_ranks) {
    char what[64];
    snprintf(what, sizeof what, "this kernel runs with exactly %d ranks, not", k->exact_ranks);
    ku_usage_exit(k, what, count);
  }
  if (k->even_ranks && k->size % 2 != 0) ku_usage_exit(k, "this kernel needs an even number of ranks, not", count);
  if (k->rank == 0) ku_api_print_library();
}

static inline int ku_compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-quantile of sorted values, interpolated between neighbours. */
static inline double ku_quantile(const double *sorted, int n, double q) {
  const double pos = q * (n - 1);
  const int lo = (int)pos;
  const double frac = pos - lo;
  return lo + 1 < n ? sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

/* One kernel operation: runs `iters` iterations and returns the seconds
 * this rank spent; `metric` turns rank 0's seconds into the unit printed.
 * `combine`, when set, turns each rank's seconds into the batch's seconds on
 * rank 0 (the collectives kernels take the slowest rank); without it rank
 * 0's own time counts. */
typedef double (*ku_step_fn)(void *ctx, long bytes, int iters);
typedef double (*ku_metric_fn)(void *ctx, long bytes, int iters, double seconds);
typedef double (*ku_combine_fn)(double seconds);

static inline void ku_measure_combined(struct ku_kernel *k, const char *op, long bytes, ku_step_fn step,
                                       ku_metric_fn metric, ku_combine_fn combine, void *ctx) {
  /* Warm-up: batches of 1, 2, 4, ... iterations until one lasts a quarter
   * of a timed batch; the last (the warmest) sets the iteration count. */
  int warmup = 0, batch = 1, more = 1;
  double last = 0;
  for (int round = 0; more; ++round, batch *= 2) {
    last = step(ctx, bytes, batch);
    if (combine) last = combine(last);
    warmup += batch;
    more = round < 1 || (last < k->rep_seconds / 4 && batch < (1 << 20));
    ku_share_int(k, &more);
    if (!more) break;
  }
  const double per_iter = last / batch;
  int iters = per_iter > 0 ? (int)(k->rep_seconds / per_iter) : 1 << 20;
  if (iters < 1) iters = 1;
  if (iters > (1 << 20)) iters = 1 << 20;
  ku_share_int(k, &iters);
  double samples[KU_MAX_REPS], sorted[KU_MAX_REPS];
  for (int rep = 0; rep < k->reps; ++rep) {
    double t = step(ctx, bytes, iters);
    if (combine) t = combine(t);
    samples[rep] = metric(ctx, bytes, iters, t);
  }
  if (k->rank != 0) return;
  memcpy(sorted, samples, sizeof(double) * (size_t)k->reps);
  qsort(sorted, (size_t)k->reps, sizeof sorted[0], ku_compare_doubles);
  const int n = k->reps;
  printf("mpfbench kernel=%s op=%s np=%d bytes=%ld unit=%s better=%s warmup=%d iters=%d reps=%d median=%.6g "
         "min=%.6g q1=%.6g q3=%.6g max=%.6g samples=",
         k->name, op, k->size, bytes, k->unit, k->better == KU_LOWER ? "lower" : "higher", warmup, iters, n,
         ku_quantile(sorted, n, 0.5), sorted[0], ku_quantile(sorted, n, 0.25), ku_quantile(sorted, n, 0.75),
         sorted[n - 1]);
  for (int rep = 0; rep < n; ++rep) printf(rep ? ",%.6g" : "%.6g", samples[rep]);
  printf("\n");
  fflush(stdout);
}

static inline void ku_measure(struct ku_kernel *k, const char *op, long bytes, ku_step_fn step, ku_metric_fn metric,
                              void *ctx) {
  ku_measure_combined(k, op, bytes, step, metric, NULL, ctx);
}

/* A wrong byte: say where, and stop the job with exit code 1. */
static inline void ku_check_failed(struct ku_kernel *k, const char *what, long bytes, long index, int got,
                                   int expected) {
  fprintf(stderr, "kernel_%s: rank %d: %s of %ld bytes: byte %ld is 0x%02x, expected 0x%02x\n", k->name, k->rank,
          what, bytes, index, got & 0xff, expected & 0xff);
  ku_api_abort(1);
}

/* The byte a sender writes at `index` of message `seq` from rank `from`. */
static inline unsigned char ku_pattern(long seq, int from, long index) {
  return (unsigned char)((seq * 31 + from * 7 + index) & 0xff);
}

static inline void ku_fill(unsigned char *buf, long bytes, long seq, int from) {
  for (long i = 0; i < bytes; ++i) buf[i] = ku_pattern(seq, from, i);
}

static inline void ku_verify(struct ku_kernel *k, const char *what, const unsigned char *buf, long bytes, long seq,
                             int from) {
  for (long i = 0; i < bytes; ++i) {
    if (buf[i] != ku_pattern(seq, from, i)) ku_check_failed(k, what, bytes, i, buf[i], ku_pattern(seq, from, i));
  }
}

/* Writes every page of `p` once: a page calloc never touched is the
   kernel's shared zero page, which a single-copy read finds in cache
   whatever its address, so a collective reading such buffers would be timed
   faster than on real data (Allreduce of 1 MiB at 64 ranks: 10 instead of
   17 ms). */
static inline void ku_touch_pages(unsigned char *p, size_t size) {
  for (size_t i = 0; i < size; i += 4096) ((volatile unsigned char *)p)[i] = 0;
}

/* Memory for `bytes` (at least one byte), zeroed; aborts when refused. */
static inline unsigned char *ku_alloc(struct ku_kernel *k, long bytes) {
  const size_t size = (size_t)(bytes > 0 ? bytes : 1);
  unsigned char *p = calloc(size, 1);
  if (p == NULL) {
    fprintf(stderr, "kernel_%s: rank %d: cannot allocate %ld bytes\n", k->name, k->rank, bytes);
    ku_api_abort(1);
  }
  ku_touch_pages(p, size);
  return p;
}

/* The largest size of the list (0 when there is none). */
static inline long ku_max_bytes(const struct ku_kernel *k) {
  long m = 0;
  for (int i = 0; i < k->nsizes; ++i) m = k->sizes[i] > m ? k->sizes[i] : m;
  return m;
}

static inline int ku_finish(struct ku_kernel *k) {
  if (k->rank == 0) {
    printf("mpfbench-end kernel=%s check=%s\n", k->name, k->check ? "passed" : "off");
    fflush(stdout);
  }
  ku_api_finalize();
  return 0;
}

#endif
