// The Markdown report (report.md under --out): the machine, the MPIs, the
// command that reproduces it, the summary of ratios, the plots and a table
// per kernel with every MPI's median and noise and the toolkit's ratio.
#include <sstream>

#include "tune/bench/machine.hpp"
#include "common/child_process.hpp"
#include "tune/bench/progress.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {
namespace {

// A message on one line, for a list item.
std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

std::string noise(const Summary& s) {
  return "±" + std::to_string(static_cast<int>(s.relative_iqr() * 50 + 0.5)) + "%";
}

}  // namespace

std::string markdown_report(const BenchReport& r, const std::vector<std::string>& plots,
                            const std::vector<std::string>& plot_problems) {
  std::ostringstream md;
  const bool compare = r.implementations.size() > 1;
  md << "# mpftune bench: " << (compare ? "the MPF Toolkit against other implementations" : "the MPF Toolkit")
     << "\n\n";
  md << "Measured " << r.started << " on `" << r.machine.value("hostname", "") << "`: " << machine_line(r.machine)
     << ". The run took " << format_duration(r.seconds) << ".\n\n";
  md << "Reproduce: `" << common::shell_words(r.options->command_line) << "`\n\n";
  md << "| id | library | kernels built with |\n|---|---|---|\n";
  for (const Implementation& i : r.implementations) {
    md << "| " << i.id << " | " << i.short_library() << " | " << i.compiler
       << (i.flags.empty() ? "" : " " + i.flags) << " |\n";
  }
  md << "\nEvery figure is the median of all timed batches of all runs (" << r.options->repetitions()
     << " per implementation, interleaved); noise (±) is half the interquartile range relative to the median. Ranks are "
     << (r.options->bind_to == "auto"   ? "bound to cores when there are no more ranks than CPUs or more that divide "
                                          "evenly among them, and not bound otherwise"
         : r.options->bind_to == "core" ? "bound to cores"
                                        : "not bound")
     << " (`--bind-to " << r.options->bind_to << "`), the same for every implementation.";
  if (compare) {
    md << " The **ratio** is the toolkit's time over the faster peer's (for MB/s and Mmsg/s, the faster peer's "
          "figure over the toolkit's): below 1 the toolkit is faster. *(noise)* marks a ratio whose two "
          "interquartile ranges overlap.";
  }
  md << "\n";
  const auto summaries = ratio_summaries(r.results);
  if (!summaries.empty()) {
    md << "\n## Summary\n\n| kernel | points | ratio (geometric mean) | lowest | highest |\n|---|---:|---:|---:|---:|\n";
    for (const RatioSummary& s : summaries) {
      md << "| " << s.what << " | " << s.points << " | " << format_value(s.geomean) << " | "
         << format_value(s.lowest->ratio) << " at " << point_label(s.lowest->key) << " | "
         << format_value(s.highest->ratio) << " at " << point_label(s.highest->key) << " |\n";
    }
  }
  if (!plots.empty() || !plot_problems.empty()) {
    md << "\n## Plots\n\n";
    for (const std::string& p : plots) md << "![" << p << "](" << p << ")\n";
    for (const std::string& p : plot_problems) md << "- " << p << "\n";
  }
  md << "\n## Results\n";
  for (const Table& t : tables(r.results)) {
    md << "\n### " << t.title << " (" << t.unit << ", " << (t.higher_is_better ? "higher" : "lower")
       << " is better)\n\n| " << (t.rows_are_np ? "ranks" : "bytes");
    const std::vector<const Implementation*> columns = table_columns(r, t);
    if (compare) {
      for (const Implementation* i : columns) md << " | " << i->name;
      md << " | ratio | faster peer |\n|---:";
      for (std::size_t i = 0; i < columns.size(); ++i) md << "|---:";
      md << "|---:|---|\n";
    } else {
      md << " | median | q1..q3 | min..max |\n|---:|---:|---:|---:|\n";
    }
    for (const PointKey& key : t.rows) {
      md << "| " << (t.rows_are_np ? std::to_string(key.np) : format_bytes(*key.bytes));
      if (compare) {
        for (const Implementation* i : columns) {
          const Series* s = r.results.find(i->id, key);
          md << " | " << (s ? format_value(s->summary.median) + " " + noise(s->summary) : "–");
        }
        const Comparison* c = r.results.comparison(key);
        md << " | " << (c ? (c->ratio > 1 && !c->within_noise ? "**" + format_value(c->ratio) + "**"
                                                                : format_value(c->ratio)) +
                                (c->within_noise ? " *(noise)*" : "")
                          : "–")
           << " | " << (c ? implementation_name(r, c->best_peer) : "") << " |\n";
      } else {
        const Series* s = r.results.find(r.implementations.front().id, key);
        if (s == nullptr) {
          md << " | – | – | – |\n";
          continue;
        }
        const Summary& m = s->summary;
        md << " | " << format_value(m.median) << " | " << format_value(m.q1) << ".." << format_value(m.q3) << " | "
           << format_value(m.min) << ".." << format_value(m.max) << " |\n";
      }
    }
  }
  for (const bool complete : {false, true}) {
    bool header = false;
    for (const RunRecord& run : r.outcome.runs) {
      if (run.status == kOk || run.complete() != complete) continue;
      if (!header) {
        md << (complete ? "\n## Runs that failed after printing all their results\n\nTheir results are counted.\n\n"
                        : "\n## Runs that did not finish\n\nTheir finished sizes are counted.\n\n");
      }
      header = true;
      md << "- " << run.kernel << " np=" << run.np << " with " << implementation_name(r, run.implementation)
         << ", repetition " << run.repetition + 1 << ": " << one_line(run.message) << "\n";
    }
  }
  if (!r.notes.empty()) {
    md << "\n## Notes\n\n";
    for (const std::string& n : r.notes) md << "- " << one_line(n) << "\n";
  }
  return md.str();
}

}  // namespace mpf::tune::bench
