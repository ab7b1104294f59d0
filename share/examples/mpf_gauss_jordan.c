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
 *
 *   N, --size N      the order of the matrix (default 256)
 *   --tolerance T    the largest difference allowed between the parallel
 *                    and the sequential solution (default 1e-9)
 *   --accuracy A     the largest error allowed against the known solution
 *                    (default 1e-6)
 *
 * Checks: every message is of the kind, column and size expected; each x[k]
 * is sent by exactly one process; the parallel solution matches rank 0's
 * sequential one within --tolerance and the known solution within
 * --accuracy. On success rank 0 prints a line starting "mpf_gauss_jordan ok"
 * with both differences and both times; otherwise it exits with status 1.
 */
#define _POSIX_C_SOURCE 200112L

#include <mpf.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const program = "mpf_gauss_jordan";

/* Every MPF call goes through CHECK: a negative return code is an error, and
 * the program stops with the call, its line and mpf_error_string's text. */
#define CHECK(call) check_rc((call), #call, __LINE__)

static int check_rc(int rc, const char *call, int line) {
  if (rc < 0) {
    fprintf(stderr, "%s: rank %d: %s (line %d) failed: %s\n", program, mpf_rank(), call, line,
            mpf_error_string(rc));
    exit(1);
  }
  return rc;
}

/* A failed check of the program itself. */
static void fail(const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, "%s: rank %d: FAILED: ", program, mpf_rank());
  vfprintf(stderr, format, args);
  fprintf(stderr, "\n");
  va_end(args);
  exit(1);
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Bad arguments. Every process sees the same arguments, so all get here;
 * rank 0 has said what is wrong and exits, the others wait for it in
 * mpf_finalize, and mpfrun ends the job when rank 0 exits. */
static void stop_for_arguments(void) {
  if (mpf_rank() != 0) mpf_finalize();
  exit(2);
}

static void usage(void) {
  if (mpf_rank() == 0) fprintf(stderr, "usage: %s [N] [--size N] [--tolerance T] [--accuracy A]\n", program);
  stop_for_arguments();
}

/* The whole text must be a number in [min, max]. */
static long integer(const char *text, const char *option, long min, long max) {
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

int main(int argc, char **argv) {
  long n = 256, first, rows;
  double tolerance = 1e-9, accuracy = 1e-6;
  int me, size;
  mpf_lnvc_t arbiter, solution, decisions, pivots, pivot_out, decision_out = -1;
  double *a, *pivot_row, *message, *x_parallel, *x_sequential;
  long *column_of; /* the column each of this process's rows was pivot of, or -1 */
  double start, parallel_time, sequential_time, difference = 0.0, error = 0.0;

  CHECK(mpf_init(&argc, &argv));
  me = mpf_rank();
  size = mpf_size();
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
      n = integer(argv[++i], "--size", 1, 20000);
    } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
      tolerance = real(argv[++i], "--tolerance");
    } else if (strcmp(argv[i], "--accuracy") == 0 && i + 1 < argc) {
      accuracy = real(argv[++i], "--accuracy");
    } else if (argv[i][0] != '-') {
      n = integer(argv[i], "N", 1, 20000);
    } else {
      usage();
    }
  }

  /* This process's rows of [A | b]. */
  block(n, size, me, &first, &rows);
  a = malloc((size_t)((rows > 0 ? rows : 1) * (n + 1)) * sizeof(double));
  column_of = malloc((size_t)(rows > 0 ? rows : 1) * sizeof(long));
  pivot_row = malloc((size_t)(n + 1) * sizeof(double));
  message = malloc((size_t)(2 * n + 3) * sizeof(double));
  if (a == NULL || column_of == NULL || pivot_row == NULL || message == NULL) fail("out of memory");
  for (long i = 0; i < rows; ++i) {
    make_row(first + i, n, a + i * (n + 1));
    column_of[i] = -1;
  }

  /* Everybody joins everything: rank 0 reads "gj.arbiter" and
   * "gj.solution" and sends on "gj.decision"; everybody reads "gj.decision"
   * and "gj.pivot" and may send on "gj.pivot". */
  if (me == 0) {
    CHECK(mpf_open_receive("gj.arbiter", MPF_FCFS, &arbiter));
    CHECK(mpf_open_receive("gj.solution", MPF_FCFS, &solution));
    CHECK(mpf_open_send("gj.decision", &decision_out));
  } else {
    CHECK(mpf_open_send("gj.arbiter", &arbiter));
    CHECK(mpf_open_send("gj.solution", &solution));
  }
  CHECK(mpf_open_receive("gj.decision", MPF_BROADCAST, &decisions));
  CHECK(mpf_open_receive("gj.pivot", MPF_BROADCAST, &pivots));
  CHECK(mpf_open_send("gj.pivot", &pivot_out));

  /* The start barrier: READY to the arbiter, then its GO on "gj.decision".
   * Once GO is sent, every process has joined both BROADCAST conversations. */
  if (me == 0) {
    for (int r = 1; r < size; ++r) receive_choice(arbiter, -1);
    send_choice(decision_out, -1, 0, -1, 0.0);
  } else {
    send_choice(arbiter, -1, me, -1, 0.0);
  }
  receive_choice(decisions, -1);
  start = seconds();

  for (long k = 0; k < n; ++k) {
    struct pivot_choice mine, chosen;
    size_t bytes;
    /* 1. This process's candidate. */
    mine.column = (int32_t)k;
    mine.rank = me;
    mine.row = -1;
    mine.value = -1.0;
    for (long i = 0; i < rows; ++i) {
      if (column_of[i] < 0 && fabs(a[i * (n + 1) + k]) > mine.value) {
        mine.value = fabs(a[i * (n + 1) + k]);
        mine.row = first + i;
      }
    }
    /* 2. The arbiter chooses. */
    if (me != 0) {
      send_choice(arbiter, (int32_t)k, me, mine.row, mine.value);
    } else {
      chosen = mine;
      for (int r = 1; r < size; ++r) {
        struct pivot_choice c = receive_choice(arbiter, (int32_t)k);
        if (better(&c, &chosen)) chosen = c;
      }
      send_choice(decision_out, (int32_t)k, chosen.rank, chosen.row, chosen.value);
    }
    chosen = receive_choice(decisions, (int32_t)k);
    if (chosen.row < 0 || chosen.value == 0.0) fail("the matrix is singular (column %ld)", k);
    /* 3. The owner broadcasts the pivot row: columns k .. n, the others
     *    are zero. */
    if (chosen.rank == me) {
      const long i = (long)chosen.row - first;
      if (i < 0 || i >= rows || column_of[i] >= 0) {
        fail("chosen as the owner of row %lld, which is not mine or used already", (long long)chosen.row);
      }
      column_of[i] = k;
      message[0] = (double)k;
      message[1] = (double)chosen.row;
      memcpy(message + 2, a + i * (n + 1) + k, (size_t)(n + 1 - k) * sizeof(double));
      CHECK(mpf_send(pivot_out, message, (size_t)(n + 3 - k) * sizeof(double)));
    }
    /* Everybody, the owner too, takes the pivot row from the conversation. */
    bytes = (size_t)(n + 3 - k) * sizeof(double);
    CHECK(mpf_receive(pivots, message, &bytes));
    if (bytes != (size_t)(n + 3 - k) * sizeof(double) || message[0] != (double)k || message[1] != (double)chosen.row) {
      fail("expected pivot row %lld for column %ld", (long long)chosen.row, k);
    }
    memcpy(pivot_row + k, message + 2, (size_t)(n + 1 - k) * sizeof(double));
    /* 4. Eliminate column k from every other row. */
    for (long i = 0; i < rows; ++i) {
      if (first + i != chosen.row) eliminate(a + i * (n + 1), pivot_row, k, n);
    }
  }
  CHECK(mpf_close_receive(decisions));
  CHECK(mpf_close_receive(pivots));
  CHECK(mpf_close_send(pivot_out));

  /* Gather x at rank 0: (column, value) pairs after a count. */
  x_parallel = malloc((size_t)n * sizeof(double));
  if (x_parallel == NULL) fail("out of memory");
  message[0] = (double)rows;
  for (long i = 0; i < rows; ++i) {
    const long k = column_of[i];
    if (k < 0) fail("row %ld was never a pivot", first + i);
    message[1 + 2 * i] = (double)k;
    message[2 + 2 * i] = a[i * (n + 1) + n] / a[i * (n + 1) + k];
  }
  if (me != 0) {
    CHECK(mpf_send(solution, message, (size_t)(1 + 2 * rows) * sizeof(double)));
    CHECK(mpf_close_send(solution)); /* rank 0 has "gj.solution" open: the message stays */
    CHECK(mpf_close_send(arbiter));
  } else {
    unsigned char *have = calloc((size_t)n, 1);
    double *in = malloc((size_t)(2 * n + 1) * sizeof(double));
    if (have == NULL || in == NULL) fail("out of memory");
    for (int r = 0; r < size; ++r) {
      const double *part = message; /* rank 0's own part */
      size_t bytes = (size_t)(2 * n + 1) * sizeof(double);
      if (r > 0) {
        CHECK(mpf_receive(solution, in, &bytes));
        part = in;
        if (bytes < sizeof(double) || bytes != (size_t)(1 + 2 * (long)part[0]) * sizeof(double)) {
          fail("a malformed part of the solution (%zu bytes)", bytes);
        }
      }
      for (long i = 0; i < (long)part[0]; ++i) {
        const long k = (long)part[1 + 2 * i];
        if (k < 0 || k >= n || have[k]) fail("x[%ld] came twice, or is out of range", k);
        have[k] = 1;
        x_parallel[k] = part[2 + 2 * i];
      }
    }
    for (long k = 0; k < n; ++k) {
      if (!have[k]) fail("x[%ld] never came", k);
    }
    parallel_time = seconds() - start;
    CHECK(mpf_close_receive(solution));
    CHECK(mpf_close_receive(arbiter));
    CHECK(mpf_close_send(decision_out));
    free(have);
    free(in);

    /* The same system, solved alone. */
    {
      double *whole = malloc((size_t)(n * (n + 1)) * sizeof(double));
      x_sequential = malloc((size_t)n * sizeof(double));
      if (whole == NULL || x_sequential == NULL) fail("out of memory for the sequential solve");
      for (long i = 0; i < n; ++i) make_row(i, n, whole + i * (n + 1));
      start = seconds();
      solve_sequential(n, whole, x_sequential);
      sequential_time = seconds() - start;
      free(whole);
    }
    for (long k = 0; k < n; ++k) {
      if (!(fabs(x_parallel[k] - x_sequential[k]) <= difference)) difference = fabs(x_parallel[k] - x_sequential[k]);
      if (!(fabs(x_parallel[k] - known_x(k)) <= error)) error = fabs(x_parallel[k] - known_x(k));
    }
    if (!(difference <= tolerance)) {
      fail("the parallel and the sequential solutions differ by %.3g (tolerance %.3g)", difference, tolerance);
    }
    if (!(error <= accuracy)) fail("the solution is off the known one by %.3g (accuracy %.3g)", error, accuracy);
    printf("%s ok: n=%ld, %d process%s, max difference %.3g from the sequential solve, max error %.3g against "
           "the known solution, %.3f s parallel, %.3f s sequential\n",
           program, n, size, size == 1 ? "" : "es", difference, error, parallel_time, sequential_time);
    free(x_sequential);
  }

  free(a);
  free(column_of);
  free(pivot_row);
  free(message);
  free(x_parallel);
  CHECK(mpf_finalize());
  return 0;
}
