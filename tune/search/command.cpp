#include "tune/search/command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/machine.hpp"
#include "common/version.hpp"
#include "tune/bench/catalogue.hpp"
#include "tune/bench/layout.hpp"
#include "tune/bench/machine.hpp"
#include "tune/bench/messages.hpp"
#include "tune/bench/peers.hpp"
#include "common/child_process.hpp"
#include "tune/search/app.hpp"
#include "tune/search/journal.hpp"
#include "tune/search/mpfrun_measurer.hpp"
#include "tune/search/report.hpp"
#include "tune/search/tuning_output.hpp"

namespace mpf::tune::search {

namespace fs = std::filesystem;

namespace {

using bench::kFailedStatus;
using bench::kInterruptedStatus;
using bench::kUsageStatus;
using bench::say;

std::string probe_text(const Probe& p) {
  std::string out = p.kernel + " np=" + std::to_string(p.np);
  if (!p.ops.empty()) {
    out += " ops=";
    for (std::size_t i = 0; i < p.ops.size(); ++i) out += (i ? "," : "") + p.ops[i];
  }
  return out;
}

void print_space(const std::vector<Dimension>& space, const ProcessCounts& np) {
  std::printf("The search tunes, in this order (process counts: 2, %d", np.per_cpu);
  for (const int n : np.oversubscribed()) std::printf(", %d", n);
  std::printf("):\n");
  for (const Dimension& d : space) {
    std::printf("\n%s (%s, %s): %s\n  tries:", d.tunable.c_str(), d.group.c_str(), to_string(d.method),
                d.question.c_str());
    for (const std::string& v : d.candidates) std::printf(" %s", v.c_str());
    std::printf("\n  judged by:");
    const std::vector<Probe> probes = d.probes({});
    for (std::size_t i = 0; i < probes.size(); ++i) std::printf("%s %s", i ? "," : "", probe_text(probes[i]).c_str());
    std::printf("\n");
  }
  std::printf("\nthen verifies every kernel with the defaults and with the values chosen.\n");
}

// What the file about to be replaced set, for the report.
std::string replaced_note(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  try {
    const nlohmann::json old = nlohmann::json::parse(in);
    std::string values;
    for (const auto& [name, value] : old.at("tunables").items()) {
      values +=
          (values.empty() ? "" : ", ") + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    }
    return " It replaces the file that was there" +
           (values.empty() ? std::string(", which set nothing") : " (" + values + ")") + ".";
  } catch (const std::exception&) {
    return " It replaces a file that was there and could not be read as a tuning file.";
  }
}

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) say("cannot write " + path.string());
  return static_cast<bool>(out);
}

}  // namespace

int run_search_command(const Options& options) {
  bench::Layout layout;
  try {
    layout = bench::Layout::find();
  } catch (const bench::LayoutError& e) {
    say(e.what());
    return kFailedStatus;
  }
  std::vector<std::string> all;
  for (const bench::KernelInfo& k : bench::catalogue()) all.emplace_back(k.name);
  const bench::Implementation toolkit = bench::toolkit(layout, all);
  std::vector<std::string> kernels;
  for (const auto& [name, exe] : toolkit.kernels) kernels.push_back(name);
  const ProcessCounts np = process_counts(bench::usable_cpus(), options.quick);
  std::vector<Dimension> space = search_space(np, options.quick, kernels);
  if (!options.tunables.empty()) {
    std::vector<Dimension> chosen;
    std::string names;
    for (const Dimension& d : space) names += (names.empty() ? "" : ", ") + d.tunable;
    for (const std::string& t : options.tunables) {
      const auto it = std::find_if(space.begin(), space.end(), [&t](const Dimension& d) { return d.tunable == t; });
      if (it == space.end()) {
        say("--tunables: '" + t + "' is not a tunable the search tunes on this build (it tunes " + names + ")");
        return kUsageStatus;
      }
    }
    for (Dimension& d : space) {
      if (std::find(options.tunables.begin(), options.tunables.end(), d.tunable) != options.tunables.end()) {
        chosen.push_back(std::move(d));
      }
    }
    space = std::move(chosen);
  }
  if (!options.app.empty()) space = app_space(space, options.app_np);
  if (options.list) {
    print_space(space, np);
    return 0;
  }

  const std::string tuning_file = options.tuning_file();
  if (std::string why = check_writable(tuning_file); !why.empty()) {
    say("cannot write the tuning file " + tuning_file + ": " + why +
        "; choose another with --output FILE (jobs then load it with mpfrun --tuning FILE or MPF_TUNING_FILE=FILE)");
    return kFailedStatus;
  }
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec || !fs::is_directory(options.out_dir)) {
    say("--out " + options.out_dir + ": cannot create the directory" + (ec ? ": " + ec.message() : ""));
    return kUsageStatus;
  }
  if (layout.build_type != "Release" && layout.build_type != "RelWithDebInfo") {
    say("this toolkit was built with CMAKE_BUILD_TYPE=" +
        (layout.build_type.empty() ? std::string("(none)") : layout.build_type) +
        ", not Release: the values found are for that build");
  }

  bench::Options kernel_options;
  kernel_options.quick = options.quick;
  if (!options.quick) {
    kernel_options.reps = kSearchReps;
    kernel_options.rep_ms = kSearchRepMs;
  }
  kernel_options.bind_to = options.bind_to;
  kernel_options.timeout = options.timeout;

  const common::MachineFingerprint machine = common::MachineFingerprint::current();
  const nlohmann::json header = {{"mpftune_journal", 1},
                                 {"toolkit_version", std::string(common::kVersion)},
                                 {"machine", common::describe(machine)},
                                 {"quick", options.quick},
                                 {"budget_seconds", options.budget_seconds()},
                                 {"bind_to", options.bind_to},
                                 {"build_type", layout.build_type},
                                 {"tunables", options.tunables},
                                 {"app", options.app},
                                 {"app_np", options.app_np}};
  const std::string journal_path = (fs::path(options.out_dir) / "journal.jsonl").string();
  MpfrunMeasurer kernels_measurer(toolkit, kernel_options);
  AppMeasurer app_measurer(layout.mpfrun, options.app, options.timeout);
  Measurer& jobs = options.app.empty() ? static_cast<Measurer&>(kernels_measurer) : app_measurer;
  std::optional<JournalMeasurer> journal;
  try {
    journal.emplace(jobs, journal_path, header, options.resume);
  } catch (const JournalError& e) {
    say(e.what());
    return kUsageStatus;
  }
  if (options.resume) say("resuming: " + std::to_string(journal->recorded()) + " jobs in " + journal_path);
  if (!options.app.empty()) {
    // An application that fails with the defaults cannot be tuned: say so
    // now, not after every value has failed.
    common::catch_interrupts();
    try {
      journal->run(Config{}, Probe{.kernel = kAppKernel, .np = options.app_np});
    } catch (const MeasureError& e) {
      say("the application fails with the defaults (" + std::string(e.what()) + "): " + options.app);
      return kFailedStatus;
    } catch (const Interrupted&) {
      return kInterruptedStatus;
    }
  }

  SearchReport report;
  report.options = &options;
  report.np = np;
  report.machine = bench::describe_machine();
  report.started = report.machine["date"];
  common::catch_interrupts();
  const auto t0 = std::chrono::steady_clock::now();
  {
    // An application's job gives one sample: three jobs per value make its
    // interquartile range.
    const bool app = !options.app.empty();
    Session session(*journal, SessionSettings{.budget_seconds = options.budget_seconds(),
                                              .rounds = app ? 3 : 2,
                                              .confirm_rounds = app             ? 4
                                                                : options.quick ? 2
                                                                                : 3,
                                              .show_progress = options.progress});
    std::vector<int> counts = {np.per_cpu};
    for (const int n : np.oversubscribed()) counts.push_back(n);
    const std::vector<Probe> verification = app ? std::vector<Probe>{{.kernel = kAppKernel, .np = options.app_np}}
                                                : verification_probes(kernels, counts, np.over32);
    report.outcome = run_search(session, space, verification);
  }
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report.finished = bench::utc_now();
  report.replayed_jobs = journal->replayed();

  bool written = true;
  if (report.outcome.interrupted) {
    report.tuning_note =
        "not written: the search was common::interrupted (resume it with mpftune --resume --out " + options.out_dir + ")";
  } else {
    const std::string note = replaced_note(tuning_file);
    if (const std::string why = write_tuning_file(tuning_file, tuning_document(report.outcome.chosen, report.finished));
        !why.empty()) {
      say("cannot write the tuning file: " + why);
      report.tuning_note = "not written: " + why;
      written = false;
    } else {
      report.tuning_file = fs::absolute(tuning_file).string();
      report.tuning_note = std::to_string(report.outcome.chosen.size()) + " value" +
                           (report.outcome.chosen.size() == 1 ? "" : "s") + " that differ from the defaults." + note;
    }
  }
  std::vector<std::string> problems;
  const std::vector<std::string> plots = write_plots(report, options.out_dir, problems);
  for (const std::string& p : problems) say(p);
  written = write_text(fs::path(options.out_dir) / "report.json", json_report(report).dump(2) + "\n") && written;
  written = write_text(fs::path(options.out_dir) / "report.md", markdown_report(report, plots)) && written;

  std::fputs(summary_text(report).c_str(), stdout);
  if (!report.tuning_file.empty()) std::printf("wrote %s\n", report.tuning_file.c_str());
  std::printf("report: %s\n", (fs::path(options.out_dir) / "report.md").c_str());
  std::fflush(stdout);
  if (report.outcome.interrupted) return kInterruptedStatus;
  return written ? 0 : kFailedStatus;
}

}  // namespace mpf::tune::search
