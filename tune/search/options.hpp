// The command line of `mpftune search` (also `mpftune` with no subcommand):
// how long to search, where to write, and whether to resume. Every default
// is declared here, once; the help text shows it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace mpf::tune::search {

// A useful tuning of a 2-CPU machine in 10 minutes; --quick is for CI.
inline constexpr double kDefaultBudgetMinutes = 10;
inline constexpr double kQuickBudgetMinutes = 2;
inline constexpr double kDefaultJobTimeout = 120;
inline constexpr const char* kDefaultReportDir = "mpftune-search";
// Where --app writes its tuning file unless --output says.
inline constexpr const char* kDefaultAppTuningFile = "mpftune-app-tuning.json";
// Timed batches per size, and their length, in the search's jobs (the
// kernels' own defaults are for benchmarks: 11 batches of 20 ms).
inline constexpr int kSearchReps = 5;
inline constexpr int kSearchRepMs = 5;

struct Options {
  double budget_minutes = 0;  // 0: kDefaultBudgetMinutes, or kQuickBudgetMinutes with --quick
  bool quick = false;
  std::string output;  // the tuning file; empty: the default one (common::kDefaultTuningFile)
  std::string out_dir = kDefaultReportDir;
  bool resume = false;
  bool progress = false;
  bool list = false;                  // print the search space, measure nothing
  std::vector<std::string> tunables;  // search only these; empty: all
  std::string app;                    // --app: tune for this command's run time instead of the kernels
  int app_np = 0;                     // -n: its ranks
  double timeout = kDefaultJobTimeout;
  std::string bind_to = "auto";
  std::vector<std::string> command_line;

  double budget_seconds() const {
    return 60 * (budget_minutes > 0 ? budget_minutes : quick ? kQuickBudgetMinutes : kDefaultBudgetMinutes);
  }
  std::string tuning_file() const;
};

void add_search_options(CLI::App& app, Options& o);

}  // namespace mpf::tune::search
