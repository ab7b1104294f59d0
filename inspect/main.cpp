// mpfinspect: what a running job is doing, without stopping it (SPEC §7).
//   mpfinspect                 list the running jobs
//   mpfinspect JOB             every rank: state, blocked call, queues, counters
//   mpfinspect JOB --rank R    one rank in full, with the tunables in effect
//   mpfinspect JOB --deadlock  the wait-for graph: the deadlock in plain words,
//                              or why there is none (exit 3 when deadlocked)
//   mpfinspect JOB --watch S   the same view every S seconds until the job ends
//   mpfinspect --cleanup       remove what dead jobs left behind
//   --json                     the same as JSON
// A job srun started is read on each of its nodes (cluster_job.hpp): JOB is
// then its Slurm id, "57.0" (or "57" for its only step).
#include <CLI/CLI.hpp>
#include <chrono>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/tunables.hpp"
#include "common/version.hpp"
#include "inspect/cluster_job.hpp"
#include "inspect/deadlock.hpp"
#include "inspect/job_state.hpp"
#include "inspect/render.hpp"

extern char** environ;

int main(int argc, char** argv) {
  constexpr int kUsageStatus = 2;
  constexpr int kDeadlockedStatus = 3;
  CLI::App app("mpfinspect: see what a running MPF job is doing, without stopping it", "mpfinspect");
  app.set_version_flag("--version", mpf::common::version_line("mpfinspect"));
  std::string jobid;
  bool json = false;
  bool deadlock = false;
  bool cleanup = false;
  double watch_seconds = 0;
  std::optional<std::uint32_t> rank;
  std::string node_parts;
  app.add_option("job", jobid,
                 "Job id: as listed by mpfinspect without arguments (mpfrun's pid), or a Slurm job's id "
                 "(JOB.STEP, or JOB for its only step)");
  app.add_flag("--json", json, "Print JSON instead of text");
  app.add_option("--rank", rank, "Show only this rank, in full, with the tunables in effect");
  app.add_flag("--deadlock", deadlock,
               "Say whether the job is deadlocked and why (the cycle, the message with the wrong tag, or who "
               "is still computing)");
  app.add_option("--watch", watch_seconds, "Show the job again every SECONDS until it ends (Ctrl-C to stop)")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  app.add_flag("--cleanup", cleanup, "Remove what jobs whose mpfrun was killed left behind, then exit");
  // What mpfinspect runs on a Slurm job's nodes to read their parts.
  app.add_option("--node-parts", node_parts)->group("");
  app.footer(
      "Exit status: 0 on success (with --deadlock: not deadlocked), 3 with --deadlock when the job is\n"
      "deadlocked, 1 when the job cannot be read, 2 for a bad command line, job id or rank.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mpfinspect: %s\n", e.what());
    return kUsageStatus;
  }

  std::string run_dir;
  try {
    run_dir = mpf::common::resolved_run_dir(mpf::common::Tunables::resolve(environ, {}));
  } catch (const mpf::common::TunableError& e) {
    std::fprintf(stderr, "mpfinspect: %s\n", e.what());
    return kUsageStatus;
  }
  const mpf::job::RunRegistry registry(run_dir);
  if (cleanup) {
    registry.clean_dead_and_report("mpfinspect");
    return 0;
  }
  if (!node_parts.empty()) {
    // One line of JSON may be longer than srun relays whole: it goes in
    // lines of at most 2000 characters, which the asking side joins.
    const char* node = std::getenv("SLURMD_NODENAME");
    const std::string text = mpf::inspect::read_parts_here(registry, node_parts, node != nullptr ? node : "").dump();
    for (std::size_t at = 0; at < text.size(); at += 2000) std::printf("%s\n", text.substr(at, 2000).c_str());
    return 0;
  }
  if (watch_seconds > 0 && jobid.empty()) {
    std::fprintf(stderr, "mpfinspect: --watch needs a job id\n");
    return kUsageStatus;
  }
  if (jobid.empty()) {
    const nlohmann::json jobs = mpf::inspect::list_jobs(registry);
    std::fputs(json ? (jobs.dump(2) + "\n").c_str() : mpf::inspect::render_job_list(jobs).c_str(), stdout);
    return 0;
  }
  // The job as it is now: mpfrun's, or one another launcher started.
  const auto read_state = [&]() -> std::optional<nlohmann::json> {
    for (const mpf::job::JobEntry& entry : registry.list()) {
      if (!entry.is_node_part() && entry.jobid == jobid) return mpf::inspect::read_job(entry);
    }
    mpf::inspect::SlurmReach reach;
    reach.helper = mpf::inspect::this_program();
    return mpf::inspect::read_launched_job(registry, jobid, reach);
  };
  std::optional<nlohmann::json> state;
  try {
    state = read_state();
  } catch (const mpf::inspect::InspectError& e) {
    std::fprintf(stderr, "mpfinspect: %s\n", e.what());
    return 1;
  }
  if (state && watch_seconds > 0) {
    // Until the job ends: clear the terminal, show it, wait.
    for (;;) {
      const std::string view =
          json ? state->dump() + "\n" : "\033[H\033[2J" + mpf::inspect::render_job_and_deadlock(*state, rank);
      std::fputs(view.c_str(), stdout);
      std::fflush(stdout);
      std::this_thread::sleep_for(std::chrono::duration<double>(watch_seconds));
      try {
        state = read_state();
      } catch (const mpf::inspect::InspectError&) {
        state.reset();
      }
      if (!state) {
        std::printf("mpfinspect: job %s has ended\n", jobid.c_str());
        return 0;
      }
    }
  }
  if (state) {
    if (rank && *rank >= (*state)["ranks"].size()) {
      std::fprintf(stderr, "mpfinspect: --rank %u: job %s has ranks 0..%zu\n", *rank, jobid.c_str(),
                   (*state)["ranks"].size() - 1);
      return kUsageStatus;
    }
    if (deadlock) {
      const nlohmann::json analysis = mpf::inspect::analyse_deadlock(*state);
      if (json) {
        std::fputs((analysis.dump(2) + "\n").c_str(), stdout);
      } else {
        std::fputs(mpf::inspect::render_deadlock(analysis).c_str(), stdout);
      }
      return analysis["deadlocked"].get<bool>() ? kDeadlockedStatus : 0;
    }
    std::fputs(json ? (state->dump(2) + "\n").c_str() : mpf::inspect::render_job(*state, rank).c_str(), stdout);
    return 0;
  }
  std::fprintf(stderr,
               "mpfinspect: no job %s in %s or in Slurm (mpfinspect without arguments lists the running jobs; a "
               "job srun started is named JOB.STEP)\n",
               jobid.c_str(), run_dir.c_str());
  return kUsageStatus;
}
