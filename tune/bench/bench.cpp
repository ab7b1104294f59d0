#include "tune/bench/bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tune/bench/catalogue.hpp"
#include "tune/bench/layout.hpp"
#include "tune/bench/machine.hpp"
#include "tune/bench/messages.hpp"
#include "common/child_process.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {

namespace fs = std::filesystem;

namespace {

// A file mpftune will write at the end: its directory must exist and be
// writable now, not after an hour of measurements.
bool writable_target(const std::string& option, const std::string& path) {
  const fs::path parent = fs::absolute(path).parent_path();
  if (!fs::is_directory(parent)) {
    say(option + " " + path + ": directory " + parent.string() + " does not exist");
    return false;
  }
  if (::access(parent.c_str(), W_OK) != 0) {
    say(option + " " + path + ": directory " + parent.string() + " is not writable");
    return false;
  }
  return true;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) say("cannot write " + path);
  return static_cast<bool>(out);
}

std::string default_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return (fs::path(xdg) / "mpftune").string();
  }
  const char* home = std::getenv("HOME");
  return (fs::path(home != nullptr ? home : "/tmp") / ".cache" / "mpftune").string();
}

}  // namespace

int run_bench(const Options& options) {
  if (options.list_kernels) {
    int width = 0;
    for (const KernelInfo& k : catalogue()) width = std::max(width, static_cast<int>(k.name.size()));
    for (const KernelInfo& k : catalogue()) {
      std::printf("%-*s %s; %s\n", width, std::string(k.name).c_str(), std::string(k.summary).c_str(),
                  k.ranks == Ranks::pair ? "2 ranks" : "each --np");
    }
    return 0;
  }
  std::vector<std::string> kernels = options.kernels;
  if (kernels.empty()) {
    for (const KernelInfo& k : catalogue()) kernels.emplace_back(k.name);
  }
  const std::vector<PlannedRun> plan = plan_runs(kernels, options.process_counts());
  if (plan.empty()) {
    say("nothing to run: the kernels chosen take no process count of --np " + join(options.process_counts()) +
        " (token_ring needs 2 ranks or more)");
    return kUsageStatus;
  }
  std::string json_path = options.json_path;
  if (!options.out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(options.out_dir, ec);
    if (ec || !fs::is_directory(options.out_dir)) {
      say("--out " + options.out_dir + ": cannot create the directory" + (ec ? ": " + ec.message() : ""));
      return kUsageStatus;
    }
    if (json_path.empty()) json_path = (fs::path(options.out_dir) / "bench.json").string();
  }
  if (!json_path.empty() && !writable_target("--json", json_path)) return kUsageStatus;
  if (!options.out_dir.empty() && !writable_target("--out", (fs::path(options.out_dir) / "report.md").string())) {
    return kUsageStatus;
  }

  Layout layout;
  try {
    layout = Layout::find();
  } catch (const LayoutError& e) {
    say(e.what());
    return kFailedStatus;
  }
  BenchReport report;
  report.options = &options;
  if (layout.build_type != "Release" && layout.build_type != "RelWithDebInfo") {
    report.notes.push_back("this toolkit was built with CMAKE_BUILD_TYPE=" +
                           (layout.build_type.empty() ? std::string("(none)") : layout.build_type) +
                           ", not Release: its figures are not the toolkit's best");
  }
  report.implementations.push_back(toolkit(layout, kernels));
  if (options.compare) {
    // The implementations compared are those of the chosen kernels'
    // interfaces; each builds the kernels written to its own, and reports
    // the others compared with it (MPF's) as kernels it does not have.
    std::vector<Api> apis;
    for (const std::string& k : kernels) {
      const Api api = compared_with(find_kernel(k)->api);
      if (std::find(apis.begin(), apis.end(), api) == apis.end()) apis.push_back(api);
    }
    PeerSearch search = find_peers(apis);
    for (const std::string& m : search.missing) report.notes.push_back(m);
    if (search.found.empty()) {
      report.notes.push_back("--compare: no other implementation of the kernels' interfaces is installed; "
                             "measuring the toolkit alone");
    }
    const std::string cache = !options.cache_dir.empty() ? options.cache_dir
                              : !options.out_dir.empty() ? (fs::path(options.out_dir) / "build").string()
                                                         : default_cache();
    for (Implementation& peer : search.found) {
      std::vector<std::string> own;
      for (const std::string& k : kernels) {
        const Api api = find_kernel(k)->api;
        if (api == peer.api) {
          own.push_back(k);
        } else if (compared_with(api) == peer.api) {
          peer.unavailable[k] =
              "kernel " + k + " uses " + std::string(api_name(api)) + ", which " + peer.name + " does not have";
        }
      }
      std::vector<std::string> log;
      build_peer_kernels(peer, layout.source_dir, cache, own, log);
      if (options.progress) {
        for (const std::string& line : log) say(line);
      }
      report.implementations.push_back(std::move(peer));
    }
  }
  if (options.network) {
    for (Implementation& i : report.implementations) i.network = true;
    report.notes.push_back("--network: every job runs on two nodes of this machine joined by the network (the "
                           "toolkit: mpfrun --virtual-nodes 2), the other MPIs on their TCP paths");
  }
  for (const Implementation& i : report.implementations) {
    for (const auto& [kernel, why] : i.unavailable) {
      report.notes.push_back(why + (i.id == "mpf" && report.implementations.size() > 1
                                        ? "; the other implementations still run it"
                                        : ""));
    }
  }
  for (const std::string& n : report.notes) say(n);

  common::catch_interrupts();
  report.machine = describe_machine();
  report.started = report.machine["date"];
  const auto t0 = std::chrono::steady_clock::now();
  report.outcome = run_interleaved(options, report.implementations, plan);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report.finished = utc_now();
  std::vector<std::string> ids;
  for (const Implementation& i : report.implementations) ids.push_back(i.id);
  report.results = gather(report.outcome.measurements, ids);
  if (common::interrupted()) report.notes.push_back("interrupted: the reports hold what was measured until then");

  std::fputs(text_report(report).c_str(), stdout);
  std::fflush(stdout);
  bool written = true;
  if (!json_path.empty()) written = write_file(json_path, json_report(report).dump(2) + "\n") && written;
  if (!options.out_dir.empty()) {
    std::vector<std::string> problems;
    const std::vector<std::string> plots = write_plots(report, options.out_dir, problems);
    for (const std::string& p : problems) say(p);
    const std::string md = (fs::path(options.out_dir) / "report.md").string();
    written = write_file(md, markdown_report(report, plots, problems)) && written;
    if (written) say("wrote " + md + (plots.empty() ? "" : " and " + std::to_string(plots.size()) + " plots"));
  }
  if (common::interrupted()) return kInterruptedStatus;
  // A run that failed only after printing every result does not fail the
  // benchmark: the reports say how it ended.
  bool all_ok = written;
  for (const RunRecord& run : report.outcome.runs) all_ok = all_ok && run.complete();
  return all_ok ? 0 : kFailedStatus;
}

}  // namespace mpf::tune::bench
