// Runs one job from start to cleanup: creates the segment and the PMIx
// server, starts the ranks, forwards their output, input and signals, watches
// them exit, stops the job on the first failure, a signal or the timeout, and
// leaves nothing behind (the segment is a memfd that dies with mpfrun; the
// PMIx directory and the run-directory entry are removed on every path).
#pragma once

#include "common/tunables.hpp"
#include "launcher/job.hpp"
#include "launcher/options.hpp"

namespace mpf::launcher {

// Runs the job and returns mpfrun's exit status. `job` is filled in for the
// report. Throws std::runtime_error for a failure to set the job up.
int run_job(const Options& options, const common::Tunables& tunables, JobRecord& job);

}  // namespace mpf::launcher
