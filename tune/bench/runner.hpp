// The runs of a benchmark, interleaved: for each repetition, for each
// (kernel, process count), every implementation once, in an order rotated
// by one per repetition (A B C, then B C A, then C A B), so that no MPI
// always runs first after a change of kernel and slow drifts of the machine
// (another job, a warming CPU) fall on all of them alike.
#pragma once

#include <string>
#include <vector>

#include "tune/bench/measurement.hpp"
#include "tune/bench/options.hpp"
#include "tune/bench/peers.hpp"

namespace mpf::tune::bench {

// A run's status: it ended cleanly; its kernel printed every result and
// the job then failed (the results count); or "failed" or "timeout", with
// what it finished before.
inline constexpr const char* kOk = "ok";
inline constexpr const char* kFailedAtExit = "failed_at_exit";

// One (kernel, process count) that every implementation runs.
struct PlannedRun {
  std::string kernel;
  int np = 0;
};

struct RunRecord {
  std::string implementation;
  std::string kernel;
  int np = 0;
  int repetition = 0;
  std::string binding;
  std::string status;   // kOk, kFailedAtExit, failed, timeout
  std::string message;  // for a run that is not ok: how it ended and its last lines of errors
  // Its results are all there: it finished, or failed only after its
  // kernel printed every result (in finalize or at exit).
  bool complete() const;
  double seconds = 0;
  std::vector<std::string> command;
};

struct TaggedMeasurement {
  std::string implementation;
  int repetition = 0;
  Measurement measurement;
};

struct Outcome {
  std::vector<RunRecord> runs;
  std::vector<TaggedMeasurement> measurements;
};

// What runs: each kernel of `kernels` at its process counts.
std::vector<PlannedRun> plan_runs(const std::vector<std::string>& kernels, const std::vector<int>& np);

// One run of `run.kernel` on `run.np` ranks (bound by `run.binding`) with
// `impl`, the kernel getting `extra_args` after those of the options
// (--quick, --reps, --rep-ms): fills in the run's command, status, message
// and seconds, and appends what it measured to `out`. A startup kernel is
// timed as whole jobs (Options::launches() of them after an untimed one).
void run_one(const Options& options, Implementation& impl, RunRecord& run, const std::vector<std::string>& extra_args,
             std::vector<TaggedMeasurement>& out);

// Runs the plan with every implementation that has the kernel, with the
// progress display; a failed run is recorded (its finished sizes count) and
// the rest goes on.
Outcome run_interleaved(const Options& options, std::vector<Implementation>& implementations,
                        const std::vector<PlannedRun>& plan);

}  // namespace mpf::tune::bench
