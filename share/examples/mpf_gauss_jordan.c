/*
 * mpf_gauss_jordan.c: the Gauss-Jordan application of the MPF paper
 * (Malony, Reed and McGuire, section 4): solving a linear system Ax = b by
 * Gauss-Jordan elimination with partial pivoting, with messages.
 *
 * The n x n matrix is generated (entries pseudo-random in [-1, 1), so that
 * pivoting matters; b = A x for a known x), and its rows are divided into
 * contiguous blocks, one block per process (processes beyond n rows get
 * none). For each column k:
 *   1. every process finds its candidate pivot: the largest |a[i][k]| among
 *      its rows not yet used as a pivot, and sends it to the arbiter (rank 0)
 *      through the FCFS conversation "gj.arbiter";
 *   2. the arbiter picks the largest of the candidates (the lowest row on a
 *      tie) and announces it to everyone on the BROADCAST conversation
 *      "gj.decision";
 *   3. the process that owns that row broadcasts it on the BROADCAST
 *      conversation "gj.pivot";
 *   4. every process subtracts multiples of the pivot row from its other
 *      rows, so that column k is zero everywhere but in the pivot row.
 * In the end every row has been the pivot of one column and the system is
 * diagonal (up to the order of the rows): x[k] = b'[p] / a'[p][k] for the
 * pivot row p of column k. Each process sends its part of x to rank 0
 * through the FCFS conversation "gj.solution".
 *
 * Rank 0 then solves the same system alone with the same algorithm (the
 * same arithmetic, in the same order, so the results should agree to the
 * last bit), and compares.
 *
 * What it shows:
 *   - one-to-one messages (candidates to an arbiter, FCFS) and one-to-all
 *     messages (decisions and pivot rows, BROADCAST) in one program;
 *   - that a BROADCAST sender gets its own messages when it is a receiver of
 *     the conversation too (rank 0 reads its own decisions, the owner of a
 *     pivot row its own row), which keeps the code the same for everybody;
 *   - a start barrier: BROADCAST receivers must have joined before the
 *     first broadcast, so everybody joins, says READY to rank 0, and waits
 *     for rank 0's GO.
 *
 * Run:
 *   mpfrun -n 4 ./mpf_gauss_jordan [N] [--size N] [--tolerance T] [--accuracy A]
 *                                  [--reps R] [--quick]
 *
 *   N, --size N      the order of the matrix (default 256; 128 with --quick)
 *   --tolerance T    the largest difference allowed between the parallel
 *                    and the sequential solution (default 1e-9)
 *   --accuracy A     the largest error allowed against the known solution
 *                    (default 1e-6)
 *   --reps R         benchmark mode, R timed solves (see below)
 *   --quick          benchmark mode with R = 3 and n = 128 unless given
 *
 * Checks: every message is of the kind, column and size expected; each x[k]
 * is sent by exactly one process; the parallel solution matches rank 0's
 * sequential one within --tolerance and the known solution within
 * --accuracy. On success rank 0 prints a line starting "mpf_gauss_jordan ok"
 * with both differences and both times; otherwise it exits with status 1.
 *
 * Benchmark mode: the program is also the kernel gauss_jordan of
 * `mpftune bench` (built as kernel_gauss_jordan, which is in benchmark mode
 * with R = 11 by default). The first parallel solve is then a warm-up; R
 * timed ones follow, each checked as the first, and rank 0 times R
 * sequential solves. Rank 0 prints the times in ms in mpftune's format
 * (tune/kernels/kernel_core.h), before and after the "ok" line:
 *   mpfbench kernel=gauss_jordan op=solve np=P bytes=-1 unit=ms better=lower warmup=1 iters=1 reps=R median=...
 *   mpfbench kernel=gauss_jordan op=sequential np=P ...
 *   mpfbench-end kernel=gauss_jordan check=passed
 * mpftune's --check and --rep-ms MS are accepted and ignored: every solve is
 * checked, and every sample is one solve.
 */
#define _POSIX_C_SOURCE 200112L

#include <mpf.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the examples share: CHECK, fail(), seconds(), integer(), and for the
 * benchmark mode DEFAULT_REPS and print_samples(). */
#include "mpf_example.h"

/* The name the messages start with (mpf_example.h). */
static const char *const program = "mpf_gauss_jordan";

static void usage(void) {
  if (mpf_rank() == 0) {
    fprintf(stderr, "usage: %s [N] [--size N] [--tolerance T] [--accuracy A] [--reps R] [--quick]\n", program);
  }
  stop_for_arguments();
}

static double real(const char *text, const char *option) {
  char *end;
  double value = strtod(text, &end);
  if (*text == '\0' || *end != '\0' || !(value >= 0.0)) {
    if (mpf_rank() == 0) fprintf(stderr, "%s: %s wants a number >= 0, not '%s'\n", program, option, text);
    stop_for_arguments();
  }
  return value;
}

/* ---- The system -------------------------------------------------------- */

/* a[i][j]: pseudo-random in [-1, 1), the same in every process. */
static double entry(long i, long j) {
  uint64_t x = (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)j * UINT64_C(0xd1b54a32d192ed03) + 12345;
  x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
  x ^= x >> 31;
  return (double)(x >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* The solution the system is made for. */
static double known_x(long j) { return 1.0 + (double)(j % 10) / 8.0; }

/* Row i of the augmented matrix [A | b]: n + 1 numbers. */
static void make_row(long i, long n, double *row) {
  double b = 0.0;
  for (long j = 0; j < n; ++j) {
    row[j] = entry(i, j);
    b += row[j] * known_x(j);
  }
  row[n] = b;
}

/* The elimination step, shared by the parallel and the sequential solver so
 * that both do exactly the same arithmetic: subtracts the multiple of the
 * pivot row (pivot column k) that makes row[k] zero. Columns before k are
 * zero in the pivot row already. */
static void eliminate(double *row, const double *pivot, long k, long n) {
  const double factor = row[k] / pivot[k];
  if (factor == 0.0) return;
  for (long j = k + 1; j <= n; ++j) row[j] -= factor * pivot[j];
  row[k] = 0.0;
}

/* The rows of process `rank`: [*first, *first + *count). */
static void block(long n, int size, int rank, long *first, long *count) {
  const long base = n / size, extra = n % size;
  *count = base + (rank < extra ? 1 : 0);
  *first = rank * base + (rank < extra ? rank : extra);
}

/* The sequential solver, for comparison: solves the system [A | b] in `a`
 * (n rows of n + 1) in place, and gives x[k] for every column k. */
static void solve_sequential(long n, double *a, double *x) {
  long *pivot_of = malloc((size_t)n * sizeof(long));
  unsigned char *used = calloc((size_t)n, 1);
  if (pivot_of == NULL || used == NULL) fail("out of memory for the sequential solve");
  for (long k = 0; k < n; ++k) {
    long p = -1;
    double best = -1.0;
    for (long i = 0; i < n; ++i) {
      if (!used[i] && fabs(a[i * (n + 1) + k]) > best) {
        best = fabs(a[i * (n + 1) + k]);
        p = i;
      }
    }
    if (best == 0.0) fail("the matrix is singular (column %ld)", k);
    used[p] = 1;
    pivot_of[k] = p;
    for (long i = 0; i < n; ++i) {
      if (i != p) eliminate(a + i * (n + 1), a + p * (n + 1), k, n);
    }
  }
  for (long k = 0; k < n; ++k) x[k] = a[pivot_of[k] * (n + 1) + n] / a[pivot_of[k] * (n + 1) + k];
  free(pivot_of);
  free(used);
}

/* ---- The messages ------------------------------------------------------ */

/* On "gj.arbiter" (to rank 0) and "gj.decision" (from rank 0): a candidate
 * pivot, or the chosen one. Column -1: READY (to rank 0) and GO (from it). */
struct pivot_choice {
  int32_t column;
  int32_t rank; /* who owns the row */
  int64_t row;  /* global row index; -1: the process has no row left */
  double value; /* |a[row][column]| */
};

/* Whether candidate c beats the best so far: larger, or as large and an
 * earlier row (as in the sequential search). */
static int better(const struct pivot_choice *c, const struct pivot_choice *best) {
  if (c->row < 0) return 0;
  if (best->row < 0) return 1;
  return c->value > best->value || (c->value == best->value && c->row < best->row);
}

static void send_choice(mpf_lnvc_t lnvc, int32_t column, int32_t rank, int64_t row, double value) {
  struct pivot_choice c;
  memset(&c, 0, sizeof c);
  c.column = column;
  c.rank = rank;
  c.row = row;
  c.value = value;
  CHECK(mpf_send(lnvc, &c, sizeof c));
}

static struct pivot_choice receive_choice(mpf_lnvc_t lnvc, int32_t column) {
  struct pivot_choice c;
  size_t bytes = sizeof c;
  CHECK(mpf_receive(lnvc, &c, &bytes));
  if (bytes != sizeof c || c.column != column) fail("expected a message about column %d", (int)column);
  return c;
}

/* ---- The parallel solve ------------------------------------------------- */

/* What a process needs for the parallel solve. */
struct solver {
  long n;           /* the order of the system */
  long first, rows; /* this process's rows of [A | b]: [first, first + rows) */
  int me, size;
  mpf_lnvc_t arbiter, solution, decisions, pivots, pivot_out, decision_out;
  double *a;        /* the rows, n + 1 numbers each */
  long *column_of;  /* the column each row was pivot of, or -1 */
  double *pivot_row, *message;
};

/* Everybody joins everything: rank 0 reads "gj.arbiter" and "gj.solution"
 * and sends on "gj.decision"; everybody reads "gj.decision" and "gj.pivot"
 * and may send on "gj.pivot". */
static void join(struct solver *s) {
  s->decision_out = -1;
  if (s->me == 0) {
    CHECK(mpf_open_receive("gj.arbiter", MPF_FCFS, &s->arbiter));
    CHECK(mpf_open_receive("gj.solution", MPF_FCFS, &s->solution));
    CHECK(mpf_open_send("gj.decision", &s->decision_out));
  } else {
    CHECK(mpf_open_send("gj.arbiter", &s->arbiter));
    CHECK(mpf_open_send("gj.solution", &s->solution));
  }
  CHECK(mpf_open_receive("gj.decision", MPF_BROADCAST, &s->decisions));
  CHECK(mpf_open_receive("gj.pivot", MPF_BROADCAST, &s->pivots));
  CHECK(mpf_open_send("gj.pivot", &s->pivot_out));
}

static void leave(struct solver *s) {
  CHECK(mpf_close_receive(s->decisions));
  CHECK(mpf_close_receive(s->pivots));
  CHECK(mpf_close_send(s->pivot_out));
  if (s->me == 0) {
    CHECK(mpf_close_receive(s->solution));
    CHECK(mpf_close_receive(s->arbiter));
    CHECK(mpf_close_send(s->decision_out));
  } else {
    CHECK(mpf_close_send(s->solution)); /* rank 0 has "gj.solution" open: a part sent stays */
    CHECK(mpf_close_send(s->arbiter));
  }
}

/* The start barrier: READY to the arbiter, then its GO on "gj.decision".
 * Once GO is sent, every process has joined both BROADCAST conversations
 * (and has finished any solve before). */
static void start_together(struct solver *s) {
  if (s->me == 0) {
    for (int r = 1; r < s->size; ++r) receive_choice(s->arbiter, -1);
    send_choice(s->decision_out, -1, 0, -1, 0.0);
  } else {
    send_choice(s->arbiter, -1, s->me, -1, 0.0);
  }
  receive_choice(s->decisions, -1);
}

/* Steps 1 to 4 for every column k. */
static void eliminate_columns(struct solver *s) {
  const long n = s->n, first = s->first, rows = s->rows;
  double *const a = s->a, *const message = s->message;
  for (long k = 0; k < n; ++k) {
    struct pivot_choice mine, chosen;
    size_t bytes;
    /* 1. This process's candidate. */
    mine.column = (int32_t)k;
    mine.rank = s->me;
    mine.row = -1;
    mine.value = -1.0;
    for (long i = 0; i < rows; ++i) {
      if (s->column_of[i] < 0 && fabs(a[i * (n + 1) + k]) > mine.value) {
        mine.value = fabs(a[i * (n + 1) + k]);
        mine.row = first + i;
      }
    }
    /* 2. The arbiter chooses. */
    if (s->me != 0) {
      send_choice(s->arbiter, (int32_t)k, s->me, mine.row, mine.value);
    } else {
      chosen = mine;
      for (int r = 1; r < s->size; ++r) {
        struct pivot_choice c = receive_choice(s->arbiter, (int32_t)k);
        if (better(&c, &chosen)) chosen = c;
      }
      send_choice(s->decision_out, (int32_t)k, chosen.rank, chosen.row, chosen.value);
    }
    chosen = receive_choice(s->decisions, (int32_t)k);
    if (chosen.row < 0 || chosen.value == 0.0) fail("the matrix is singular (column %ld)", k);
    /* 3. The owner broadcasts the pivot row: columns k .. n, the others
     *    are zero. */
    if (chosen.rank == s->me) {
      const long i = (long)chosen.row - first;
      if (i < 0 || i >= rows || s->column_of[i] >= 0) {
        fail("chosen as the owner of row %lld, which is not mine or used already", (long long)chosen.row);
      }
      s->column_of[i] = k;
      message[0] = (double)k;
      message[1] = (double)chosen.row;
      memcpy(message + 2, a + i * (n + 1) + k, (size_t)(n + 1 - k) * sizeof(double));
      CHECK(mpf_send(s->pivot_out, message, (size_t)(n + 3 - k) * sizeof(double)));
    }
    /* Everybody, the owner too, takes the pivot row from the conversation. */
    bytes = (size_t)(n + 3 - k) * sizeof(double);
    CHECK(mpf_receive(s->pivots, message, &bytes));
    if (bytes != (size_t)(n + 3 - k) * sizeof(double) || message[0] != (double)k || message[1] != (double)chosen.row) {
      fail("expected pivot row %lld for column %ld", (long long)chosen.row, k);
    }
    memcpy(s->pivot_row + k, message + 2, (size_t)(n + 1 - k) * sizeof(double));
    /* 4. Eliminate column k from every other row. */
    for (long i = 0; i < rows; ++i) {
      if (first + i != chosen.row) eliminate(a + i * (n + 1), s->pivot_row, k, n);
    }
  }
}

/* Gathers x at rank 0 (into `x`): (column, value) pairs after a count. */
static void gather(struct solver *s, double *x) {
  const long n = s->n, rows = s->rows;
  double *const message = s->message;
  message[0] = (double)rows;
  for (long i = 0; i < rows; ++i) {
    const long k = s->column_of[i];
    if (k < 0) fail("row %ld was never a pivot", s->first + i);
    message[1 + 2 * i] = (double)k;
    message[2 + 2 * i] = s->a[i * (n + 1) + n] / s->a[i * (n + 1) + k];
  }
  if (s->me != 0) {
    CHECK(mpf_send(s->solution, message, (size_t)(1 + 2 * rows) * sizeof(double)));
  } else {
    unsigned char *have = calloc((size_t)n, 1);
    double *in = malloc((size_t)(2 * n + 1) * sizeof(double));
    if (have == NULL || in == NULL) fail("out of memory");
    for (int r = 0; r < s->size; ++r) {
      const double *part = message; /* rank 0's own part */
      size_t bytes = (size_t)(2 * n + 1) * sizeof(double);
      if (r > 0) {
        CHECK(mpf_receive(s->solution, in, &bytes));
        part = in;
        if (bytes < sizeof(double) || bytes != (size_t)(1 + 2 * (long)part[0]) * sizeof(double)) {
          fail("a malformed part of the solution (%zu bytes)", bytes);
        }
      }
      for (long i = 0; i < (long)part[0]; ++i) {
        const long k = (long)part[1 + 2 * i];
        if (k < 0 || k >= n || have[k]) fail("x[%ld] came twice, or is out of range", k);
        have[k] = 1;
        x[k] = part[2 + 2 * i];
      }
    }
    for (long k = 0; k < n; ++k) {
      if (!have[k]) fail("x[%ld] never came", k);
    }
    free(have);
    free(in);
  }
}

/* One parallel solve, into `x` at rank 0. Returns the seconds from the
 * start barrier to the whole x at rank 0 (at rank 0; elsewhere to its part
 * sent). */
static double solve_parallel(struct solver *s, double *x) {
  double start;
  for (long i = 0; i < s->rows; ++i) {
    make_row(s->first + i, s->n, s->a + i * (s->n + 1));
    s->column_of[i] = -1;
  }
  start_together(s);
  start = seconds();
  eliminate_columns(s);
  gather(s, x);
  return seconds() - start;
}

/* ---- Rank 0 alone -------------------------------------------------------- */

/* The same system solved sequentially, in `whole` (n rows of n + 1), into
 * `x`. Returns the seconds of the solve. */
static double solve_alone(long n, double *whole, double *x) {
  double start;
  for (long i = 0; i < n; ++i) make_row(i, n, whole + i * (n + 1));
  start = seconds();
  solve_sequential(n, whole, x);
  return seconds() - start;
}

/* Compares the parallel solution with the sequential one and the known
 * one: fails beyond `tolerance` or `accuracy`, else gives the largest
 * differences. */
static void compare(long n, const double *x_parallel, const double *x_sequential, double tolerance, double accuracy,
                    double *difference, double *error) {
  *difference = 0.0;
  *error = 0.0;
  for (long k = 0; k < n; ++k) {
    if (!(fabs(x_parallel[k] - x_sequential[k]) <= *difference)) *difference = fabs(x_parallel[k] - x_sequential[k]);
    if (!(fabs(x_parallel[k] - known_x(k)) <= *error)) *error = fabs(x_parallel[k] - known_x(k));
  }
  if (!(*difference <= tolerance)) {
    fail("the parallel and the sequential solutions differ by %.3g (tolerance %.3g)", *difference, tolerance);
  }
  if (!(*error <= accuracy)) fail("the solution is off the known one by %.3g (accuracy %.3g)", *error, accuracy);
}

/* ---- Benchmark mode (--reps, --quick): mpftune's kernel gauss_jordan ---- */

/* After the first solve (the warm-up): `reps` timed parallel solves, each
 * checked as the first, and at rank 0 `reps` timed sequential ones. Rank 0
 * prints a line for each and gives the medians in *parallel_time and
 * *sequential_time. */
static void benchmark(struct solver *s, int reps, double *x_parallel, double *x_sequential, double tolerance,
                      double accuracy, double *parallel_time, double *sequential_time) {
  double *parallel = malloc((size_t)reps * sizeof(double)), *sequential = malloc((size_t)reps * sizeof(double));
  double difference, error;
  if (parallel == NULL || sequential == NULL) fail("out of memory");
  for (int r = 0; r < reps; ++r) {
    parallel[r] = solve_parallel(s, x_parallel);
    if (s->me == 0) compare(s->n, x_parallel, x_sequential, tolerance, accuracy, &difference, &error);
  }
  if (s->me == 0) {
    double *whole = malloc((size_t)(s->n * (s->n + 1)) * sizeof(double));
    if (whole == NULL) fail("out of memory for the sequential solve");
    for (int r = 0; r < reps; ++r) sequential[r] = solve_alone(s->n, whole, x_sequential);
    free(whole);
    *parallel_time = print_samples("gauss_jordan", "solve", s->size, parallel, reps);
    *sequential_time = print_samples("gauss_jordan", "sequential", s->size, sequential, reps);
  }
  free(parallel);
  free(sequential);
}

/* ---- The program ----------------------------------------------------------- */

int main(int argc, char **argv) {
  long n = 0; /* 0: not given */
  int reps = -1, quick = 0;
  double tolerance = 1e-9, accuracy = 1e-6;
  struct solver s;
  double *x_parallel, *x_sequential = NULL;
  double parallel_time, sequential_time = 0.0, difference = 0.0, error = 0.0;

  CHECK(mpf_init(&argc, &argv));
  s.me = mpf_rank();
  s.size = mpf_size();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      n = integer(argv[++i], "--size", 1, 20000);
    } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
      tolerance = real(argv[++i], "--tolerance");
    } else if (strcmp(argv[i], "--accuracy") == 0 && i + 1 < argc) {
      accuracy = real(argv[++i], "--accuracy");
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = (int)integer(argv[++i], "--reps", 1, 1000);
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--rep-ms") == 0 && i + 1 < argc) {
      integer(argv[++i], "--rep-ms", 1, 60000); /* mpftune's; a solve is one sample */
    } else if (strcmp(argv[i], "--check") == 0) {
      /* mpftune's; every solve is checked anyway */
    } else if (argv[i][0] != '-') {
      n = integer(argv[i], "N", 1, 20000);
    } else {
      usage();
    }
  }
  if (n == 0) n = quick ? 128 : 256;
  if (reps < 0) reps = quick ? 3 : DEFAULT_REPS;
  s.n = n;

  /* This process's rows of [A | b]; solve_parallel fills them. */
  block(n, s.size, s.me, &s.first, &s.rows);
  s.a = malloc((size_t)((s.rows > 0 ? s.rows : 1) * (n + 1)) * sizeof(double));
  s.column_of = malloc((size_t)(s.rows > 0 ? s.rows : 1) * sizeof(long));
  s.pivot_row = malloc((size_t)(n + 1) * sizeof(double));
  s.message = malloc((size_t)(2 * n + 3) * sizeof(double));
  x_parallel = malloc((size_t)n * sizeof(double));
  if (s.a == NULL || s.column_of == NULL || s.pivot_row == NULL || s.message == NULL || x_parallel == NULL) {
    fail("out of memory");
  }

  join(&s);
  parallel_time = solve_parallel(&s, x_parallel);
  if (s.me == 0) {
    /* The same system, solved alone. */
    double *whole = malloc((size_t)(n * (n + 1)) * sizeof(double));
    x_sequential = malloc((size_t)n * sizeof(double));
    if (whole == NULL || x_sequential == NULL) fail("out of memory for the sequential solve");
    sequential_time = solve_alone(n, whole, x_sequential);
    free(whole);
    compare(n, x_parallel, x_sequential, tolerance, accuracy, &difference, &error);
  }
  if (reps > 0) benchmark(&s, reps, x_parallel, x_sequential, tolerance, accuracy, &parallel_time, &sequential_time);
  leave(&s);

  if (s.me == 0) {
    printf("%s ok: n=%ld, %d process%s, max difference %.3g from the sequential solve, max error %.3g against "
           "the known solution, %.3f s parallel, %.3f s sequential%s\n",
           program, n, s.size, s.size == 1 ? "" : "es", difference, error, parallel_time, sequential_time,
           reps > 0 ? " (medians)" : "");
    if (reps > 0) printf("mpfbench-end kernel=gauss_jordan check=passed\n");
  }

  free(s.a);
  free(s.column_of);
  free(s.pivot_row);
  free(s.message);
  free(x_parallel);
  free(x_sequential);
  CHECK(mpf_finalize());
  return 0;
}
