// mpftune: measures this machine with the toolkit's benchmark kernels (SPEC
// §8, §9). Today it has one subcommand:
//   mpftune bench [--kernels LIST] [--np LIST] [--compare] [--quick] [--json FILE] [--out DIR] ...
// which runs the kernels through mpfrun (and other MPIs' and OpenSHMEMs'
// launchers with --compare), interleaved, and prints and writes the results.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "common/version.hpp"
#include "tune/bench/bench.hpp"
#include "tune/bench/options.hpp"

int main(int argc, char** argv) {
  constexpr int kUsageStatus = 2;
  CLI::App app("mpftune: measure this machine with the MPF Toolkit's benchmark kernels", "mpftune");
  app.set_version_flag("--version", mpf::common::version_line("mpftune"));
  app.require_subcommand(1);
  app.get_formatter()->column_width(30);
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mpftune: %s\n", e.what());
    return kUsageStatus;
  }
  return mpf::tune::bench::run_bench(bench);
}
