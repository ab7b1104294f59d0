// The command line of `mpftune bench`: what to run, how often, and where to
// write. Every default is declared here, once; the help text shows it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace mpf::tune::bench {

// Process counts for the kernels that scale with the number of ranks
// (collectives, token_ring, startup), in a full run and under --quick.
inline const std::vector<int> kDefaultNp = {2, 8, 16, 64};
inline const std::vector<int> kQuickNp = {2, 4};
// Runs of every (kernel, process count) per implementation, interleaved.
inline constexpr int kDefaultRepeat = 3;
inline constexpr int kQuickRepeat = 1;
// Timed launches per run of the startup kernel (after one untimed launch).
inline constexpr int kDefaultLaunches = 5;
inline constexpr int kQuickLaunches = 2;
inline constexpr double kDefaultTimeout = 300;

struct Options {
  std::vector<std::string> kernels;  // as given; empty: every kernel
  std::vector<int> np;               // as given; empty: kDefaultNp or kQuickNp
  int repeat = 0;                    // 0: kDefaultRepeat or kQuickRepeat
  int reps = 0;                      // timed batches per size; 0: the kernel's default
  int rep_ms = 0;                    // length of a batch; 0: the kernel's default
  std::string bind_to = "auto";      // auto, core or none
  double timeout = kDefaultTimeout;  // seconds per run
  std::string json_path;             // --json
  std::string out_dir;               // --out: report.md, plots, bench.json, the peers' kernel builds
  std::string cache_dir;             // --cache: where peers' kernels are built
  bool compare = false;
  bool network = false;  // --network: two nodes of this machine joined by the network
  bool quick = false;
  bool progress = false;
  bool list_kernels = false;
  std::vector<std::string> command_line;

  // With the defaults filled in.
  std::vector<int> process_counts() const { return !np.empty() ? np : quick ? kQuickNp : kDefaultNp; }
  int repetitions() const { return repeat > 0 ? repeat : quick ? kQuickRepeat : kDefaultRepeat; }
  int launches() const { return reps > 0 ? reps : quick ? kQuickLaunches : kDefaultLaunches; }
};

// Registers the options of the `bench` subcommand on `app`, writing to `o`.
void add_bench_options(CLI::App& app, Options& o);

std::string join(const std::vector<int>& values, const char* separator = ",");

}  // namespace mpf::tune::bench
