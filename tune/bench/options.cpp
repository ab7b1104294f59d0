#include "tune/bench/options.hpp"

#include "tune/bench/catalogue.hpp"

namespace mpf::tune::bench {

std::string join(const std::vector<int>& values, const char* separator) {
  std::string text;
  for (const int v : values) text += (text.empty() ? "" : separator) + std::to_string(v);
  return text;
}

void add_bench_options(CLI::App& app, Options& o) {
  std::vector<std::string> names;
  std::string listed, scaling;
  for (const KernelInfo& k : catalogue()) {
    names.emplace_back(k.name);
    listed += (listed.empty() ? "" : ",") + std::string(k.name);
    if (k.ranks == Ranks::scaling) scaling += (scaling.empty() ? "" : ", ") + std::string(k.name);
  }
  app.add_option("-k,--kernels", o.kernels, "Kernels to run, comma-separated (default: all of " + listed + ")")
      ->delimiter(',')
      ->check(CLI::IsMember(names))
      ->type_name("LIST");
  app.add_option("--np", o.np,
                 "Process counts for " + scaling + " (default " + join(kDefaultNp) +
                     "; with --quick " + join(kQuickNp) + "); the point-to-point kernels run with 2 ranks")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024))
      ->type_name("LIST");
  app.add_option("-r,--repeat", o.repeat,
                 "Runs of each kernel and process count per MPI, interleaved across MPIs (default " +
                     std::to_string(kDefaultRepeat) + "; with --quick " + std::to_string(kQuickRepeat) + ")")
      ->check(CLI::Range(1, 100))
      ->type_name("N");
  app.add_option("--reps", o.reps,
                 "Timed batches per size within a run (default: the kernel's own); for startup, timed launches per "
                 "run (default " +
                     std::to_string(kDefaultLaunches) + "; with --quick " + std::to_string(kQuickLaunches) + ")")
      ->check(CLI::Range(1, 1000))
      ->type_name("N");
  app.add_option("--rep-ms", o.rep_ms, "Target length of one timed batch (default: the kernel's own)")
      ->check(CLI::Range(1, 60000))
      ->type_name("MS");
  app.add_option("--bind-to", o.bind_to,
                 "Binding of ranks, the same for every MPI: core, none, or auto (core when the job has no more "
                 "ranks than CPUs, or more that divide evenly among them as mpfrun binds by default; none "
                 "otherwise; the default)")
      ->check(CLI::IsMember({"auto", "core", "none"}))
      ->type_name("POLICY");
  app.add_option("--timeout", o.timeout,
                 "Stop a run after SECONDS; its finished sizes still count (default " +
                     std::to_string(static_cast<int>(kDefaultTimeout)) + ")")
      ->check(CLI::Range(1.0, 86400.0))
      ->type_name("SECONDS");
  app.add_option("--json", o.json_path, "Write the results as JSON (schema: mpftune-bench.schema.json)")
      ->type_name("FILE");
  app.add_option("--out", o.out_dir,
                 "Write report.md, PNG plots (with gnuplot) and bench.json into DIR, and build the other "
                 "implementations' kernels under DIR/build")
      ->type_name("DIR");
  app.add_option("--cache", o.cache_dir,
                 "Build the other implementations' kernels in DIR (default DIR/build of --out, else "
                 "~/.cache/mpftune)")
      ->type_name("DIR");
  app.add_flag("--compare", o.compare,
               "Also run every kernel with the other implementations of its interface installed (MPI: Open MPI, "
               "MPICH; OpenSHMEM: Open MPI's OSHMEM), interleaved, and report the toolkit's ratio to the faster one");
  app.add_flag("--network", o.network,
               "Measure the network path: every job's ranks on two nodes of this machine that talk through the "
               "network (the toolkit: two virtual nodes of mpfrun, ranks split in halves; Open MPI: its TCP "
               "transport; MPICH: UCX and libfabric over TCP)");
  app.add_flag("--quick", o.quick, "A short run (few sizes, few repetitions, small process counts), for CI");
  app.add_flag("--progress", o.progress, "Show progress on standard error even when it is not a terminal");
  app.add_flag("--list-kernels", o.list_kernels, "List the kernels and what they measure, then exit");
}

}  // namespace mpf::tune::bench
