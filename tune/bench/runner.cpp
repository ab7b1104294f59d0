#include "tune/bench/runner.hpp"

#include <sstream>

#include "tune/bench/catalogue.hpp"
#include "common/child_process.hpp"
#include "tune/bench/progress.hpp"

namespace mpf::tune::bench {
namespace {

// mpfrun gets the run's timeout itself and, when it expires, prints what
// every rank was doing before it stops the job; this much later mpftune
// stops mpfrun.
constexpr double kMpfrunTimeoutMargin = 15;

// The last lines with words (not Open MPI's rules of dashes around its messages).
std::string last_lines(const std::string& text, std::size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of("- \t") != std::string::npos) lines.push_back(line);
  }
  std::string out;
  for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : "\n") + lines[i];
  }
  return out;
}

std::vector<std::string> kernel_args(const Options& o) {
  std::vector<std::string> args;
  if (o.quick) args.emplace_back("--quick");
  if (o.reps > 0) args.insert(args.end(), {"--reps", std::to_string(o.reps)});
  if (o.rep_ms > 0) args.insert(args.end(), {"--rep-ms", std::to_string(o.rep_ms)});
  return args;
}

// mpfrun's exit status when its --timeout expired.
constexpr int kMpfrunTimedOut = 124;

// The kernel printed its end line (and nothing malformed before it).
bool printed_end(const std::string& out) {
  try {
    return parse_output(out).ended;
  } catch (const MeasurementError&) {
    return false;
  }
}

bool timed_out(const common::ProcessResult& r, LauncherKind kind) {
  return r.timed_out || (kind == LauncherKind::mpfrun && r.exit_code == kMpfrunTimedOut);
}

void fail(RunRecord& run, const common::ProcessResult& r, double timeout, LauncherKind kind) {
  run.status = timed_out(r, kind) ? "timeout" : "failed";
  run.message = r.how_it_ended(timeout);
  const std::string errors = last_lines(r.err, 4);
  if (!errors.empty()) run.message += ": " + errors;
}

// A job that did not end cleanly. When its kernel had printed its end line
// (every result) first, as Open MPI 4.1's OSHMEM jobs end on some machines
// with a crash in shmem_finalize, the run failed at exit: its results count
// and the run says how it ended; returns true. Otherwise it failed or timed
// out; returns false.
bool ended_badly(RunRecord& run, const common::ProcessResult& r, bool all_printed, double timeout, LauncherKind kind) {
  if (!all_printed || timed_out(r, kind)) {
    fail(run, r, timeout, kind);
    return false;
  }
  run.status = kFailedAtExit;
  run.message = r.how_it_ended(timeout) + " after printing all its results, which are counted";
  const std::string errors = last_lines(r.err, 1);
  if (!errors.empty()) run.message += ": " + errors;
  return true;
}

// A kernel that prints its measurements: one job.
void run_kernel(const Options& o, Implementation& impl, RunRecord& run, const std::vector<std::string>& extra_args,
                std::vector<TaggedMeasurement>& out) {
  std::vector<std::string> args = kernel_args(o);
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  run.command = impl.launch(run.np, run.binding, o.timeout, impl.kernels.at(run.kernel), args);
  const double limit = o.timeout + (impl.kind == LauncherKind::mpfrun ? kMpfrunTimeoutMargin : 0);
  const common::ProcessResult r = common::run_process(run.command, limit);
  run.seconds = r.seconds;
  run.status = kOk;
  KernelOutput parsed;
  try {
    parsed = parse_output(r.out);
  } catch (const MeasurementError& e) {
    run.status = "failed";
    run.message = e.what();
    return;
  }
  if (impl.library.empty()) impl.library = parsed.library;
  for (Measurement& m : parsed.measurements) out.push_back({impl.id, run.repetition, std::move(m)});
  if (!r.ok()) {
    ended_badly(run, r, parsed.ended, o.timeout, impl.kind);
  } else if (!parsed.ended) {
    run.status = "failed";
    run.message = "the kernel's output ended before its last line";
  }
}

// The startup kernels: whole jobs of the empty program, timed from the
// launcher's start to its exit; one untimed launch first. A launch that
// printed the kernel's end line and then failed in finalize or at exit
// counts, with the time it took (the crash included: the user waits for
// it too); a later launch that fails outright makes the run failed.
void run_startup(const Options& o, Implementation& impl, RunRecord& run, const std::vector<std::string>& extra_args,
                 std::vector<TaggedMeasurement>& out) {
  run.command = impl.launch(run.np, run.binding, o.timeout, impl.kernels.at(run.kernel), extra_args);
  const double limit = o.timeout + (impl.kind == LauncherKind::mpfrun ? kMpfrunTimeoutMargin : 0);
  Measurement m{.kernel = run.kernel, .op = "-", .np = run.np, .bytes = std::nullopt, .unit = "ms",
                .higher_is_better = false, .warmup = 1, .iters = 1, .samples = {}};
  run.status = kOk;
  for (int launch = 0; launch <= o.launches(); ++launch) {
    const common::ProcessResult r = common::run_process(run.command, limit);
    run.seconds += r.seconds;
    if (!r.ok() && !ended_badly(run, r, printed_end(r.out), o.timeout, impl.kind)) break;
    if (launch > 0) m.samples.push_back(r.seconds * 1e3);
  }
  if (!m.samples.empty()) out.push_back({impl.id, run.repetition, std::move(m)});
}

}  // namespace

void run_one(const Options& o, Implementation& impl, RunRecord& run, const std::vector<std::string>& extra_args,
             std::vector<TaggedMeasurement>& out) {
  const KernelInfo* info = find_kernel(run.kernel);
  if (info != nullptr && info->timed_by_bench) {
    run_startup(o, impl, run, extra_args, out);
  } else {
    run_kernel(o, impl, run, extra_args, out);
  }
}

bool RunRecord::complete() const { return status == kOk || status == kFailedAtExit; }

std::vector<PlannedRun> plan_runs(const std::vector<std::string>& kernels, const std::vector<int>& np) {
  std::vector<PlannedRun> plan;
  for (const KernelInfo& k : catalogue()) {
    bool chosen = false;
    for (const std::string& name : kernels) chosen = chosen || name == k.name;
    if (!chosen) continue;
    for (const int n : process_counts(k, np)) plan.push_back({std::string(k.name), n});
  }
  return plan;
}

Outcome run_interleaved(const Options& o, std::vector<Implementation>& impls, const std::vector<PlannedRun>& plan) {
  // The runs in their order: (repetition, planned run, implementation).
  struct Step {
    int repetition;
    const PlannedRun* planned;
    std::size_t impl;
  };
  std::vector<Step> steps;
  std::vector<std::string> kinds;
  for (int rep = 0; rep < o.repetitions(); ++rep) {
    for (const PlannedRun& p : plan) {
      for (std::size_t i = 0; i < impls.size(); ++i) {
        const std::size_t impl = (i + static_cast<std::size_t>(rep)) % impls.size();
        if (impls[impl].kernels.count(p.kernel) == 0) continue;
        steps.push_back({rep, &p, impl});
        kinds.push_back(impls[impl].id + " " + p.kernel + " " + std::to_string(p.np));
      }
    }
  }
  Outcome outcome;
  Progress progress(o.progress, kinds);
  for (const Step& s : steps) {
    if (common::interrupted()) break;
    Implementation& impl = impls[s.impl];
    RunRecord run;
    run.implementation = impl.id;
    run.kernel = s.planned->kernel;
    run.np = s.planned->np;
    run.repetition = s.repetition;
    run.binding = resolve_binding(o.bind_to, run.np);
    std::ostringstream what;
    what << run.kernel << " np=" << run.np << " " << impl.name;
    if (o.repetitions() > 1) what << ", repetition " << s.repetition + 1 << "/" << o.repetitions();
    progress.start(what.str(), impl.id + " " + run.kernel + " " + std::to_string(run.np));
    run_one(o, impl, run, {}, outcome.measurements);
    progress.finish_run(run.seconds);
    if (run.status != kOk && !common::interrupted()) {
      progress.note("mpftune: " + run.kernel + " np=" + std::to_string(run.np) + " with " + impl.name + ": " +
                    run.message + "\nmpftune: command: " + common::shell_words(run.command));
    }
    outcome.runs.push_back(std::move(run));
  }
  return outcome;
}

}  // namespace mpf::tune::bench
