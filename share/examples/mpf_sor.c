/*
 * mpf_sor.c: the SOR application of the MPF paper (Malony, Reed and
 * McGuire, section 4): Poisson's equation solved by successive
 * over-relaxation, with the grid divided among processes that exchange
 * their boundaries, and a monitor that decides when to stop.
 *
 * The problem: -(u_xx + u_yy) = f on the unit square, u given on its
 * boundary, discretised with the 5-point stencil on P x P interior points
 * (spacing h = 1/(P+1)). The exact solution is u = x^3 + 2y^3 + xy + 1,
 * f = -(6x + 12y); the 5-point stencil is exact for cubics, so the discrete
 * solution is the exact one at the grid points.
 *
 * The method: red-black SOR. The points are coloured like a chessboard; a
 * red point's neighbours are all black and the other way round, so all red
 * points can be updated at once, then all black points:
 *   u[i][j] += omega * ((u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] + h^2 f[i][j]) / 4 - u[i][j])
 * An iteration is a red and a black half-sweep; the iterations stop after
 * the first one whose largest change is below --epsilon.
 *
 * In parallel, the interior rows are divided into horizontal strips, one per
 * process (processes beyond P rows get none). Before each half-sweep a
 * process sends its first row to the process above and its last row to the
 * process below, and receives theirs as ghost rows: one FCFS conversation
 * per direction and pair of neighbours, "sor.<from>.<to>". After each
 * iteration every process sends its largest change to the monitor (rank 0)
 * through the FCFS conversation "sor.status"; the monitor broadcasts
 * continue or stop on the BROADCAST conversation "sor.control", which every
 * process (the monitor too) reads. At the end each process sends its strip
 * to rank 0 through "sor.gather".
 *
 * Rank 0 then runs the same method on the whole grid alone. Because a
 * half-sweep of one colour reads only the other colour, the order of the
 * updates does not matter, and both should give the same numbers to the
 * last bit, after the same number of iterations.
 *
 * What it shows:
 *   - neighbour exchange over conversations named after the pair of
 *     processes; with one sender and one receiver, a conversation keeps the
 *     messages in order, so the rows of successive half-sweeps never mix;
 *   - gathering status with FCFS and deciding for everybody with BROADCAST;
 *   - a start barrier: the BROADCAST receivers of "sor.control" must have
 *     joined before the monitor's first broadcast: everybody joins, sends
 *     READY to the monitor, and waits for its GO.
 *
 * Run:
 *   mpfrun -n 4 ./mpf_sor [P] [--grid P] [--omega W] [--epsilon E]
 *                         [--max-iterations N] [--tolerance T] [--accuracy A]
 *                         [--reps R] [--quick]
 *
 *   P, --grid P          interior points per side (default 128; 64 with
 *                        --quick)
 *   --omega W            relaxation factor, 0 < W < 2 (default the optimum
 *                        for this problem, 2 / (1 + sin(pi h)))
 *   --epsilon E          stop after the first iteration whose largest change
 *                        is below E (default 1e-10)
 *   --max-iterations N   give up (and fail) after N iterations (default 100000)
 *   --tolerance T        the largest difference allowed between the
 *                        parallel and the sequential solution (default 1e-9)
 *   --accuracy A         the largest error allowed against the exact
 *                        solution (default 1e-6)
 *   --reps R             benchmark mode, R timed solves (see below)
 *   --quick              benchmark mode with R = 3 and P = 64 unless given
 *
 * Checks: every row exchanged comes from the right half-sweep with the right
 * length; every status is of the current iteration; both runs converge, in
 * the same number of iterations; the solutions agree within --tolerance and
 * match the exact one within --accuracy. On success rank 0 prints a line
 * starting "mpf_sor ok"; otherwise it exits with status 1.
 *
 * Benchmark mode: the program is also the kernel sor of `mpftune bench`
 * (built as kernel_sor, which is in benchmark mode with R = 11 by default).
 * The first parallel solve is then a warm-up; R timed ones follow, each
 * checked as the first, and rank 0 times R sequential solves. Rank 0 prints
 * the times in ms in mpftune's format (tune/kernels/kernel_core.h), before
 * and after the "ok" line:
 *   mpfbench kernel=sor op=solve np=N bytes=-1 unit=ms better=lower warmup=1 iters=1 reps=R median=...
 *   mpfbench kernel=sor op=sequential np=N ...
 *   mpfbench-end kernel=sor check=passed
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
static const char *const program = "mpf_sor";

static void usage(void) {
  if (mpf_rank() == 0) {
    fprintf(stderr,
            "usage: %s [P] [--grid P] [--omega W] [--epsilon E] [--max-iterations N] [--tolerance T] "
            "[--accuracy A] [--reps R] [--quick]\n",
            program);
  }
  stop_for_arguments();
}

/* The whole text must be a number in (min, max). */
static double real(const char *text, const char *option, double min, double max) {
  char *end;
  double value = strtod(text, &end);
  if (*text == '\0' || *end != '\0' || !(value > min && value < max)) {
    if (mpf_rank() == 0) {
      fprintf(stderr, "%s: %s wants a number between %g and %g, not '%s'\n", program, option, min, max, text);
    }
    stop_for_arguments();
  }
  return value;
}

/* ---- The problem and the method ------------------------------------- */

static double exact(double x, double y) { return x * x * x + 2.0 * y * y * y + x * y + 1.0; }
static double source(double x, double y) { return -(6.0 * x + 12.0 * y); }

/* Fills rows [first - 1, first + rows] of the grid (global row numbers; 0
 * and p + 1 are the boundary) into `u`, (rows + 2) x (p + 2) numbers: the
 * boundary values where they fall, zero inside (the start of the
 * iteration), and h^2 f for the inner rows into `h2f`, rows x (p + 2). */
static void set_up(double *u, double *h2f, long first, long rows, long p) {
  const long w = p + 2;
  const double h = 1.0 / (double)(p + 1);
  for (long r = 0; r < rows + 2; ++r) {
    const long i = first - 1 + r;
    for (long j = 0; j < w; ++j) {
      const int boundary = i == 0 || i == p + 1 || j == 0 || j == p + 1;
      u[r * w + j] = boundary ? exact((double)j * h, (double)i * h) : 0.0;
      if (r >= 1 && r <= rows) h2f[(r - 1) * w + j] = h * h * source((double)j * h, (double)i * h);
    }
  }
}

/* One half-sweep over the inner rows of `u` (as set_up lays them out): the
 * points of one colour, (i + j) % 2 == colour with i the global row, are
 * relaxed. Returns the largest change. The parallel and the sequential
 * solver both use it, so they do the same arithmetic. */
static double sweep(double *u, const double *h2f, long first, long rows, long p, int colour, double omega) {
  const long w = p + 2;
  double change = 0.0;
  for (long r = 1; r <= rows; ++r) {
    const long i = first + r - 1;
    double *row = u + r * w;
    const double *g = h2f + (r - 1) * w;
    for (long j = (i + 1) % 2 == colour ? 1 : 2; j <= p; j += 2) {
      const double relaxed = 0.25 * (row[j - w] + row[j + w] + row[j - 1] + row[j + 1] + g[j]);
      const double d = omega * (relaxed - row[j]);
      row[j] += d;
      if (fabs(d) > change) change = fabs(d);
    }
  }
  return change;
}

/* The rows of process `rank`: [*first, *first + *rows) in global numbers
 * (1 .. p). */
static void strip(long p, int size, int rank, long *first, long *rows) {
  const long base = p / size, extra = p % size;
  *rows = base + (rank < extra ? 1 : 0);
  *first = 1 + rank * base + (rank < extra ? rank : extra);
}

/* ---- Neighbours ------------------------------------------------------- */

struct neighbours {
  int up, down;                  /* ranks, or -1 */
  mpf_lnvc_t to_up, to_down;     /* send connections */
  mpf_lnvc_t from_up, from_down; /* FCFS receive connections */
  double *message;               /* p + 1 numbers: the half-sweep's number, then a row */
};

static void join_edge(int from, int to, int receive, mpf_lnvc_t *lnvc) {
  char name[MPF_MAX_NAME + 1];
  snprintf(name, sizeof name, "sor.%d.%d", from, to);
  if (receive) {
    CHECK(mpf_open_receive(name, MPF_FCFS, lnvc));
  } else {
    CHECK(mpf_open_send(name, lnvc));
  }
}

static void send_row(mpf_lnvc_t lnvc, double *message, const double *row, long p, long phase) {
  message[0] = (double)phase;
  memcpy(message + 1, row + 1, (size_t)p * sizeof(double));
  CHECK(mpf_send(lnvc, message, (size_t)(p + 1) * sizeof(double)));
}

static void receive_row(mpf_lnvc_t lnvc, double *message, double *row, long p, long phase, int from) {
  size_t bytes = (size_t)(p + 1) * sizeof(double);
  CHECK(mpf_receive(lnvc, message, &bytes));
  if (bytes != (size_t)(p + 1) * sizeof(double) || message[0] != (double)phase) {
    fail("expected the row of half-sweep %ld from rank %d, got %zu bytes of half-sweep %.0f", phase, from, bytes,
         message[0]);
  }
  memcpy(row + 1, message + 1, (size_t)p * sizeof(double));
}

/* Before half-sweep `phase`: my edge rows out, my neighbours' in as ghost
 * rows. Sends never wait for the receiver, so everybody sends first. */
static void exchange(struct neighbours *nb, double *u, long rows, long p, long phase) {
  const long w = p + 2;
  if (nb->up >= 0) send_row(nb->to_up, nb->message, u + 1 * w, p, phase);
  if (nb->down >= 0) send_row(nb->to_down, nb->message, u + rows * w, p, phase);
  if (nb->up >= 0) receive_row(nb->from_up, nb->message, u, p, phase, nb->up);
  if (nb->down >= 0) receive_row(nb->from_down, nb->message, u + (rows + 1) * w, p, phase, nb->down);
}

/* ---- Monitor messages -------------------------------------------------- */

/* On "sor.status", to rank 0. */
enum { READY = 1, STATUS = 2 };
struct status {
  int32_t kind;
  int32_t rank;
  int64_t iteration;
  double change; /* the largest change of this process's points in the iteration */
};

/* On "sor.control", from rank 0. Iteration 0: GO. */
struct control {
  int64_t iteration;
  int32_t go_on;
  int32_t reserved;
  double change; /* the largest change of all points */
};

static void send_status(mpf_lnvc_t lnvc, int32_t kind, long iteration, double change) {
  struct status s;
  memset(&s, 0, sizeof s);
  s.kind = kind;
  s.rank = mpf_rank();
  s.iteration = iteration;
  s.change = change;
  CHECK(mpf_send(lnvc, &s, sizeof s));
}

static struct status receive_status(mpf_lnvc_t lnvc, int32_t kind, long iteration) {
  struct status s;
  size_t bytes = sizeof s;
  CHECK(mpf_receive(lnvc, &s, &bytes));
  if (bytes != sizeof s || s.kind != kind || s.iteration != iteration) {
    fail("expected a status of iteration %ld, got iteration %lld", iteration, (long long)s.iteration);
  }
  return s;
}

static void send_control(mpf_lnvc_t lnvc, long iteration, int go_on, double change) {
  struct control c;
  memset(&c, 0, sizeof c);
  c.iteration = iteration;
  c.go_on = go_on;
  c.change = change;
  CHECK(mpf_send(lnvc, &c, sizeof c));
}

static struct control receive_control(mpf_lnvc_t lnvc, long iteration) {
  struct control c;
  size_t bytes = sizeof c;
  CHECK(mpf_receive(lnvc, &c, &bytes));
  if (bytes != sizeof c || c.iteration != iteration) {
    fail("expected the decision of iteration %ld, got iteration %lld", iteration, (long long)c.iteration);
  }
  return c;
}

/* ---- The parallel solve ------------------------------------------------- */

/* What a process needs for the parallel solve. */
struct solver {
  long p;                   /* interior points per side */
  long first, rows;         /* this process's strip: global rows [first, first + rows) */
  double omega, epsilon;
  long max_iterations;
  int me, size;
  struct neighbours nb;
  mpf_lnvc_t status, control_out, control, gather;
  double *u, *h2f;          /* the strip as set_up lays it out */
  double *strip;            /* a strip on "sor.gather": first row, row count, the rows' inner points */
  unsigned char *have;      /* rank 0: which rows the gather has brought */
};

/* The neighbours' conversations and the monitor's. */
static void join(struct solver *s) {
  const int me = s->me;
  /* The neighbours: the processes with rows are 0 .. min(size, p) - 1. */
  s->nb.up = s->rows > 0 && me > 0 ? me - 1 : -1;
  s->nb.down = s->rows > 0 && me + 1 < s->size && me + 1 < s->p ? me + 1 : -1;
  if (s->nb.up >= 0) {
    join_edge(s->nb.up, me, 1, &s->nb.from_up);
    join_edge(me, s->nb.up, 0, &s->nb.to_up);
  }
  if (s->nb.down >= 0) {
    join_edge(s->nb.down, me, 1, &s->nb.from_down);
    join_edge(me, s->nb.down, 0, &s->nb.to_down);
  }
  s->control_out = -1;
  if (me == 0) {
    CHECK(mpf_open_receive("sor.status", MPF_FCFS, &s->status));
    CHECK(mpf_open_receive("sor.gather", MPF_FCFS, &s->gather));
    CHECK(mpf_open_send("sor.control", &s->control_out));
  } else {
    CHECK(mpf_open_send("sor.status", &s->status));
    CHECK(mpf_open_send("sor.gather", &s->gather));
  }
  CHECK(mpf_open_receive("sor.control", MPF_BROADCAST, &s->control));
}

static void leave(struct solver *s) {
  if (s->nb.up >= 0) {
    CHECK(mpf_close_receive(s->nb.from_up));
    CHECK(mpf_close_send(s->nb.to_up));
  }
  if (s->nb.down >= 0) {
    CHECK(mpf_close_receive(s->nb.from_down));
    CHECK(mpf_close_send(s->nb.to_down));
  }
  CHECK(mpf_close_receive(s->control));
  if (s->me == 0) {
    CHECK(mpf_close_receive(s->gather));
    CHECK(mpf_close_receive(s->status));
    CHECK(mpf_close_send(s->control_out));
  } else {
    CHECK(mpf_close_send(s->gather)); /* rank 0 has "sor.gather" open: a strip sent stays */
    CHECK(mpf_close_send(s->status));
  }
}

/* The start barrier: READY to the monitor, then its GO on "sor.control".
 * Once GO is sent, every process has joined "sor.control" (and has
 * finished any solve before). */
static void start_together(struct solver *s) {
  if (s->me == 0) {
    for (int r = 1; r < s->size; ++r) receive_status(s->status, READY, 0);
    send_control(s->control_out, 0, 1, 0.0);
  } else {
    send_status(s->status, READY, 0, 0.0);
  }
  receive_control(s->control, 0);
}

/* The iterations, until the monitor says stop. Returns their number; the
 * largest change of the last one in *change. */
static long iterate(struct solver *s, double *change) {
  const long p = s->p, first = s->first, rows = s->rows;
  long iterations = 0;
  for (;;) {
    struct control decision;
    double local;
    ++iterations;
    exchange(&s->nb, s->u, rows, p, 2 * iterations);
    local = sweep(s->u, s->h2f, first, rows, p, 0, s->omega);
    exchange(&s->nb, s->u, rows, p, 2 * iterations + 1);
    *change = sweep(s->u, s->h2f, first, rows, p, 1, s->omega);
    if (*change < local) *change = local;
    if (s->me != 0) {
      send_status(s->status, STATUS, iterations, *change);
    } else {
      for (int r = 1; r < s->size; ++r) {
        struct status st = receive_status(s->status, STATUS, iterations);
        if (!(st.change <= *change)) *change = st.change; /* NaN spreads too */
      }
      send_control(s->control_out, iterations, *change >= s->epsilon && iterations < s->max_iterations, *change);
    }
    decision = receive_control(s->control, iterations);
    if (!decision.go_on) {
      *change = decision.change;
      return iterations;
    }
  }
}

/* Gathers the strips at rank 0, into `grid` ((p + 2) x (p + 2), the inner
 * points). */
static void gather(struct solver *s, double *grid) {
  const long p = s->p, w = p + 2, first = s->first, rows = s->rows;
  double *const strip = s->strip;
  if (s->me != 0) {
    strip[0] = (double)first;
    strip[1] = (double)rows;
    for (long r = 0; r < rows; ++r) memcpy(strip + 2 + r * p, s->u + (r + 1) * w + 1, (size_t)p * sizeof(double));
    CHECK(mpf_send(s->gather, strip, (size_t)(2 + rows * p) * sizeof(double)));
    return;
  }
  memset(s->have, 0, (size_t)p + 2);
  for (long r = 0; r < rows; ++r) {
    memcpy(grid + (first + r) * w + 1, s->u + (r + 1) * w + 1, (size_t)p * sizeof(double));
    s->have[first + r] = 1;
  }
  for (int k = 1; k < s->size; ++k) {
    size_t bytes = (size_t)(2 + p * p) * sizeof(double);
    long part_first, part_rows;
    CHECK(mpf_receive(s->gather, strip, &bytes));
    part_first = bytes >= 2 * sizeof(double) ? (long)strip[0] : -1;
    part_rows = bytes >= 2 * sizeof(double) ? (long)strip[1] : -1;
    if (part_rows < 0 || part_first < 1 || part_first + part_rows - 1 > p ||
        bytes != (size_t)(2 + part_rows * p) * sizeof(double)) {
      fail("a malformed strip (%zu bytes)", bytes);
    }
    for (long r = 0; r < part_rows; ++r) {
      if (s->have[part_first + r]) fail("row %ld came twice", part_first + r);
      s->have[part_first + r] = 1;
      memcpy(grid + (part_first + r) * w + 1, strip + 2 + r * p, (size_t)p * sizeof(double));
    }
  }
  for (long i = 1; i <= p; ++i) {
    if (!s->have[i]) fail("row %ld never came", i);
  }
}

/* One parallel solve, into `grid` at rank 0; its iterations in
 * *iterations, the largest change of the last in *change. Returns the
 * seconds from the start barrier to the whole grid at rank 0 (at rank 0;
 * elsewhere to its strip sent). */
static double solve_parallel(struct solver *s, double *grid, long *iterations, double *change) {
  double start;
  set_up(s->u, s->h2f, s->first, s->rows, s->p);
  start_together(s);
  start = seconds();
  *iterations = iterate(s, change);
  gather(s, grid);
  return seconds() - start;
}

/* ---- Rank 0 alone -------------------------------------------------------- */

/* The whole grid alone, with the same method and stopping rule, in `alone`
 * ((p + 2) x (p + 2)) and `alone_h2f` (p x (p + 2)). Returns the seconds of
 * the iterations; their number in *iterations. */
static double solve_alone(const struct solver *s, double *alone, double *alone_h2f, long *iterations) {
  const long p = s->p;
  double change, start;
  set_up(alone, alone_h2f, 1, p, p);
  *iterations = 0;
  start = seconds();
  do {
    const double red = sweep(alone, alone_h2f, 1, p, p, 0, s->omega);
    const double black = sweep(alone, alone_h2f, 1, p, p, 1, s->omega);
    change = red > black ? red : black;
    ++*iterations;
  } while (change >= s->epsilon && *iterations < s->max_iterations);
  return seconds() - start;
}

/* Checks a parallel solve (`grid`, `iterations`, `change`) against the
 * sequential one (`alone`, `sequential_iterations`) and the exact solution:
 * fails beyond `tolerance` or `accuracy`, else gives the largest
 * differences. */
static void compare(const struct solver *s, const double *grid, long iterations, double change, const double *alone,
                    long sequential_iterations, double tolerance, double accuracy, double *difference,
                    double *error) {
  const long p = s->p, w = p + 2;
  const double h = 1.0 / (double)(p + 1);
  *difference = 0.0;
  *error = 0.0;
  for (long i = 1; i <= p; ++i) {
    for (long j = 1; j <= p; ++j) {
      const double d = fabs(grid[i * w + j] - alone[i * w + j]);
      const double e = fabs(grid[i * w + j] - exact((double)j * h, (double)i * h));
      if (!(d <= *difference)) *difference = d; /* NaN too */
      if (!(e <= *error)) *error = e;
    }
  }
  if (!(change < s->epsilon)) fail("no convergence in %ld iterations (largest change %.3g)", iterations, change);
  if (sequential_iterations != iterations) {
    fail("the sequential solve took %ld iterations, the parallel one %ld", sequential_iterations, iterations);
  }
  if (!(*difference <= tolerance)) {
    fail("the parallel and the sequential solutions differ by %.3g (tolerance %.3g)", *difference, tolerance);
  }
  if (!(*error <= accuracy)) fail("the solution is off the exact one by %.3g (accuracy %.3g)", *error, accuracy);
}

/* ---- Benchmark mode (--reps, --quick): mpftune's kernel sor ------------- */

/* After the first solve (the warm-up): `reps` timed parallel solves, each
 * checked as the first against the sequential solution `alone` of
 * `sequential_iterations`, and at rank 0 `reps` timed sequential ones.
 * Rank 0 prints a line for each and gives the medians in *parallel_time and
 * *sequential_time. */
static void benchmark(struct solver *s, int reps, double *grid, double *alone, double *alone_h2f,
                      long sequential_iterations, double tolerance, double accuracy, double *parallel_time,
                      double *sequential_time) {
  double *parallel = malloc((size_t)reps * sizeof(double)), *sequential = malloc((size_t)reps * sizeof(double));
  double change, difference, error;
  long iterations;
  if (parallel == NULL || sequential == NULL) fail("out of memory");
  for (int r = 0; r < reps; ++r) {
    parallel[r] = solve_parallel(s, grid, &iterations, &change);
    if (s->me == 0) {
      compare(s, grid, iterations, change, alone, sequential_iterations, tolerance, accuracy, &difference, &error);
    }
  }
  if (s->me == 0) {
    for (int r = 0; r < reps; ++r) sequential[r] = solve_alone(s, alone, alone_h2f, &iterations);
    *parallel_time = print_samples("sor", "solve", s->size, parallel, reps);
    *sequential_time = print_samples("sor", "sequential", s->size, sequential, reps);
  }
  free(parallel);
  free(sequential);
}

/* ---- The program ----------------------------------------------------------- */

int main(int argc, char **argv) {
  long p = 0, iterations = 0, sequential_iterations = 0; /* p 0: not given */
  int reps = -1, quick = 0;
  double tolerance = 1e-9, accuracy = 1e-6, change = 0.0;
  struct solver s;
  double *grid = NULL, *alone = NULL, *alone_h2f = NULL; /* rank 0: the parallel and the sequential solution */
  double parallel_time, sequential_time = 0.0, difference = 0.0, error = 0.0;

  CHECK(mpf_init(&argc, &argv));
  s.me = mpf_rank();
  s.size = mpf_size();
  s.omega = 0.0;
  s.epsilon = 1e-10;
  s.max_iterations = 100000;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--grid") == 0 && i + 1 < argc) {
      p = integer(argv[++i], "--grid", 1, 10000);
    } else if (strcmp(argv[i], "--omega") == 0 && i + 1 < argc) {
      s.omega = real(argv[++i], "--omega", 0.0, 2.0);
    } else if (strcmp(argv[i], "--epsilon") == 0 && i + 1 < argc) {
      s.epsilon = real(argv[++i], "--epsilon", 0.0, 1e300);
    } else if (strcmp(argv[i], "--max-iterations") == 0 && i + 1 < argc) {
      s.max_iterations = integer(argv[++i], "--max-iterations", 1, 1000000000);
    } else if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
      tolerance = real(argv[++i], "--tolerance", 0.0, 1e300);
    } else if (strcmp(argv[i], "--accuracy") == 0 && i + 1 < argc) {
      accuracy = real(argv[++i], "--accuracy", 0.0, 1e300);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = (int)integer(argv[++i], "--reps", 1, 1000);
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--rep-ms") == 0 && i + 1 < argc) {
      integer(argv[++i], "--rep-ms", 1, 60000); /* mpftune's; a solve is one sample */
    } else if (strcmp(argv[i], "--check") == 0) {
      /* mpftune's; every solve is checked anyway */
    } else if (argv[i][0] != '-') {
      p = integer(argv[i], "P", 1, 10000);
    } else {
      usage();
    }
  }
  if (p == 0) p = quick ? 64 : 128;
  if (reps < 0) reps = quick ? 3 : DEFAULT_REPS;
  if (s.omega == 0.0) s.omega = 2.0 / (1.0 + sin(acos(-1.0) / (double)(p + 1)));
  s.p = p;

  /* This process's strip, with a ghost or boundary row above and below;
   * solve_parallel sets it up. */
  strip(p, s.size, s.me, &s.first, &s.rows);
  s.u = malloc((size_t)((s.rows + 2) * (p + 2)) * sizeof(double));
  s.h2f = malloc((size_t)((s.rows > 0 ? s.rows : 1) * (p + 2)) * sizeof(double));
  s.nb.message = malloc((size_t)(p + 1) * sizeof(double));
  s.strip = malloc((size_t)(2 + (s.me == 0 ? p : s.rows) * p) * sizeof(double));
  s.have = malloc((size_t)p + 2);
  if (s.u == NULL || s.h2f == NULL || s.nb.message == NULL || s.strip == NULL || s.have == NULL) {
    fail("out of memory");
  }
  if (s.me == 0) {
    grid = malloc((size_t)((p + 2) * (p + 2)) * sizeof(double));
    alone = malloc((size_t)((p + 2) * (p + 2)) * sizeof(double));
    alone_h2f = malloc((size_t)(p * (p + 2)) * sizeof(double));
    if (grid == NULL || alone == NULL || alone_h2f == NULL) fail("out of memory");
  }

  join(&s);
  parallel_time = solve_parallel(&s, grid, &iterations, &change);
  if (s.me == 0) {
    sequential_time = solve_alone(&s, alone, alone_h2f, &sequential_iterations);
    compare(&s, grid, iterations, change, alone, sequential_iterations, tolerance, accuracy, &difference, &error);
  }
  if (reps > 0) {
    benchmark(&s, reps, grid, alone, alone_h2f, sequential_iterations, tolerance, accuracy, &parallel_time,
              &sequential_time);
  }
  leave(&s);

  if (s.me == 0) {
    printf("%s ok: %ldx%ld grid, %d process%s, %ld iterations (omega %.4f), max difference %.3g from the sequential "
           "solve, max error %.3g against the exact solution, %.3f s parallel, %.3f s sequential%s\n",
           program, p, p, s.size, s.size == 1 ? "" : "es", iterations, s.omega, difference, error, parallel_time,
           sequential_time, reps > 0 ? " (medians)" : "");
    if (reps > 0) printf("mpfbench-end kernel=sor check=passed\n");
  }

  free(s.u);
  free(s.h2f);
  free(s.nb.message);
  free(s.strip);
  free(s.have);
  free(grid);
  free(alone);
  free(alone_h2f);
  CHECK(mpf_finalize());
  return 0;
}
