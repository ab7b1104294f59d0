// mpftune: tunes this machine for the MPF Toolkit (SPEC §8, §9), with two
// subcommands over the same benchmark kernels:
//   mpftune [search] [--budget MIN] [--quick] [--output FILE] [--out DIR] [--resume] ...
// searches the thresholds, buffer sizes, waiting and collective switch
// points, verifies them against the defaults and writes the tuning file
// every later job loads (tune/search);
//   mpftune bench [--kernels LIST] [--np LIST] [--compare] [--quick] [--json FILE] [--out DIR] ...
// runs the kernels through mpfrun (and other MPIs' and OpenSHMEMs'
// launchers with --compare), interleaved, and prints and writes the results
// (tune/bench).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/version.hpp"
#include "tune/bench/bench.hpp"
#include "tune/bench/options.hpp"
#include "tune/search/command.hpp"
#include "tune/search/options.hpp"

namespace {

// `mpftune` alone, or with options first, is `mpftune search`.
std::vector<std::string> with_default_subcommand(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  const bool help_or_version = argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
                                            std::strcmp(argv[1], "--version") == 0);
  if (argc == 1 || (argv[1][0] == '-' && !help_or_version)) args.insert(args.begin() + 1, "search");
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kUsageStatus = 2;
  CLI::App app("mpftune: tune this machine for the MPF Toolkit, and measure it with the benchmark kernels", "mpftune");
  app.set_version_flag("--version", mpf::common::version_line("mpftune"));
  app.require_subcommand(1);
  app.get_formatter()->column_width(30);
  app.footer("Without a subcommand, mpftune runs `mpftune search`.");

  mpf::tune::search::Options search;
  search.command_line.assign(argv, argv + argc);
  CLI::App* tune = app.add_subcommand(
      "search",
      "Search this machine's best thresholds, buffer sizes, waiting and collective switch points with the "
      "benchmark kernels, verify them against the defaults, and write the tuning file every later job loads, "
      "with a report (the default subcommand)");
  mpf::tune::search::add_search_options(*tune, search);
  tune->footer(
      "Exit status: 0 when the search finished and its files were written, 1 when the toolkit cannot be found or a\n"
      "file cannot be written, 2 for a bad command line or a journal that cannot be resumed, 130 when interrupted\n"
      "(the journal in --out keeps what was measured: go on with --resume).");

  mpf::tune::bench::Options bench;
  bench.command_line.assign(argv, argv + argc);
  CLI::App* sub = app.add_subcommand(
      "bench",
      "Run the benchmark kernels through mpfrun (and, with --compare, with the other MPIs and OpenSHMEMs "
      "installed, interleaved); print a table and write JSON, a Markdown report and plots");
  mpf::tune::bench::add_bench_options(*sub, bench);
  sub->footer(
      "Exit status: 0 when every run finished (or failed only after printing all its results), 1 when a run\n"
      "failed or timed out (the reports say which and keep what it measured), 2 for a bad command line, 130\n"
      "when interrupted.");

  std::vector<std::string> args = with_default_subcommand(argc, argv);
  std::vector<char*> pointers;
  for (std::string& a : args) pointers.push_back(a.data());
  try {
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mpftune: %s\n", e.what());
    return kUsageStatus;
  }
  if (tune->parsed()) return mpf::tune::search::run_search_command(search);
  return mpf::tune::bench::run_bench(bench);
}
