#include <map>
#include <set>
#include <sstream>

#include "common/tunables.hpp"
#include "tune/bench/machine.hpp"
#include "tune/bench/progress.hpp"
#include "tune/bench/report.hpp"
#include "tune/search/report.hpp"

namespace mpf::tune::search {
namespace {

std::string spread(const bench::Summary& s) {
  const double iqr = s.median != 0 ? 100 * (s.q3 - s.q1) / s.median : 0;
  char text[64];
  std::snprintf(text, sizeof text, " ±%.1f%%", iqr / 2);
  return bench::format_value(s.median) + text;
}

std::string memory_text(const Choice& c) {
  if (!c.memory_before || !c.memory_chosen) return "";
  const std::int64_t saved = *c.memory_before - *c.memory_chosen;
  if (saved == 0) return common::format_size(*c.memory_chosen);
  return common::format_size(*c.memory_chosen) + " (" + (saved > 0 ? "saves " : "costs ") +
         common::format_size(saved > 0 ? saved : -saved) + ")";
}

std::string outcome_text(const Choice& c) {
  if (c.skipped) return "not searched";
  if (c.reverted) return "**" + c.chosen + "**, reverted to " + c.default_value;
  if (c.changed()) return "**" + c.chosen + "**";
  return c.chosen + " (kept)";
}

std::string escape(std::string s) {
  std::string out;
  for (const char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

void curves_table(std::ostringstream& md, const Choice& c) {
  // Rows: the x values in order; columns: the curves.
  std::vector<std::pair<double, std::string>> rows;
  std::set<std::string> seen;
  for (const Curve& k : c.curves) {
    for (const CurvePoint& p : k.points) {
      if (seen.insert(p.x).second) rows.push_back({p.position, p.x});
    }
  }
  std::sort(rows.begin(), rows.end());
  md << "| " << (c.dimension->method == Method::crossover ? "size" : "value");
  for (const Curve& k : c.curves) md << " | " << escape(k.title) << " (" << k.unit << ")";
  md << " |\n|---";
  for (std::size_t i = 0; i < c.curves.size(); ++i) md << "|---";
  md << "|\n";
  for (const auto& [position, x] : rows) {
    md << "| " << x;
    for (const Curve& k : c.curves) {
      md << " | ";
      for (const CurvePoint& p : k.points) {
        if (p.x == x) md << spread(p.y);
      }
    }
    md << " |\n";
  }
}

}  // namespace

std::string markdown_report(const SearchReport& r, const std::vector<std::string>& plots) {
  const SearchOutcome& o = r.outcome;
  std::ostringstream md;
  md << "# mpftune search\n\n";
  md << "- Machine: " << bench::machine_line(r.machine) << "\n";
  md << "- Started " << r.started << ", finished " << r.finished << ": " << bench::format_duration(r.wall_seconds)
     << " in all, " << bench::format_duration(o.seconds) << " of jobs (budget "
     << bench::format_duration(r.options->budget_seconds()) << ")"
     << (r.replayed_jobs > 0 ? ", " + std::to_string(r.replayed_jobs) + " jobs replayed from the journal" : "") << "\n";
  if (!r.options->app.empty()) {
    md << "- Tuned for the application `" << r.options->app << "` on " << r.options->app_np
       << " ranks: its run time, from mpfrun's start to its exit\n";
  } else {
    md << "- Process counts: a pair, " << r.np.per_cpu << " (one per CPU)";
    for (const int n : r.np.oversubscribed()) md << ", " << n;
    md << (r.options->quick ? " (--quick: a rough search)" : "") << "\n";
  }
  md << "- "
     << (o.interrupted ? "**Interrupted**: resume with `mpftune --resume --out " + r.options->out_dir + "`"
                       : std::string("Finished"))
     << "\n";
  md << "- Tuning file: " << (r.tuning_file.empty() ? r.tuning_note : "`" + r.tuning_file + "`. " + r.tuning_note)
     << "\n\n";

  md << "A change is taken when its figures are better than the value in use beyond the noise (their "
        "interquartile ranges apart and at least 2 % better) at one point and worse at none, measured again "
        "after the search chose it; a buffer takes the smallest size whose figures stay within noise of the "
        "largest. Figures are medians ± half the interquartile range.\n\n";

  md << "## What was chosen\n\n| tunable | default | chosen | memory | why |\n|---|---|---|---|---|\n";
  for (const Choice& c : o.choices) {
    std::string why = c.why;
    if (c.reverted) why += " Reverted by the verification: " + c.revert_reason + ".";
    md << "| " << c.dimension->tunable << " | " << c.default_value << " | " << outcome_text(c) << " | "
       << escape(memory_text(c)) << " | " << escape(why) << " |\n";
  }

  md << "\n## Verification: every kernel with the defaults and with the values chosen\n\n";
  const Verification& v = o.verification;
  md << v.note << ".";
  if (!v.reverted.empty()) {
    md << " Reverted:";
    for (const std::string& t : v.reverted) md << " " << t;
    md << ".";
  }
  if (!v.not_reproduced.empty()) {
    md << " Losses that measuring again did not reproduce:";
    for (const std::string& l : v.not_reproduced) md << " " << l << ";";
  }
  md << "\n\n";
  if (v.ran) {
    md << v.table.points.size() << " points, " << v.passes << " full pass" << (v.passes > 1 ? "es" : "")
       << ": better at " << v.table.better << ", worse at " << v.table.worse
       << "; over all of them (geometric mean of the time ratios): " << ratio_text(v.table.geomean_ratio) << ".\n\n";
    md << "| point | unit | defaults | chosen | ratio (time) | verdict |\n|---|---|---|---|---|---|\n";
    for (const PointVerdict& p : v.table.points) {
      md << "| " << point_name(p.key) << " | " << p.unit << " | " << spread(p.incumbent) << " | " << spread(p.candidate)
         << " | " << bench::format_value(p.ratio) << " | " << to_string(p.verdict) << " |\n";
    }
  }

  md << "\n## Each tunable\n";
  for (const Choice& c : o.choices) {
    md << "\n### " << c.dimension->tunable << " (" << to_string(c.dimension->method) << ")\n\n";
    md << "What: " << c.dimension->question << ". Tried: ";
    for (std::size_t i = 0; i < c.dimension->candidates.size(); ++i) {
      md << (i ? ", " : "") << c.dimension->candidates[i];
    }
    md << ". " << bench::format_duration(c.seconds) << " of jobs.\n\n" << c.why << "\n\n";
    for (const std::string& p : plots) {
      if (p == "search-" + c.dimension->tunable + ".png") md << "![" << c.dimension->tunable << "](" << p << ")\n\n";
    }
    if (!c.curves.empty()) curves_table(md, c);
  }
  return md.str();
}

std::string summary_text(const SearchReport& r) {
  const SearchOutcome& o = r.outcome;
  std::ostringstream out;
  int changes = 0;
  for (const Choice& c : o.choices) {
    if (c.changed() && !c.reverted) {
      ++changes;
      out << "  " << c.dimension->tunable << ": " << c.before << " -> " << c.chosen;
      if (c.confirmation) out << " (" << ratio_text(c.confirmation->geomean_ratio) << " where it matters)";
      if (c.memory_before && c.memory_chosen && *c.memory_before > *c.memory_chosen) {
        out << ", saves " << common::format_size(*c.memory_before - *c.memory_chosen) << " "
            << c.dimension->memory_note;
      }
      out << "\n";
    }
    if (c.reverted)
      out << "  " << c.dimension->tunable << ": reverted to " << c.default_value << ": " << c.revert_reason << "\n";
  }
  std::string head = o.interrupted  ? "interrupted; what was measured is kept for --resume\n"
                     : changes == 0 ? "every tunable stays at its default\n"
                                    : std::to_string(changes) + " tunable" + (changes > 1 ? "s" : "") +
                                          " differ from their defaults:\n";
  std::string tail;
  if (o.verification.ran) {
    tail = "verification: " + o.verification.note + " (" + std::to_string(o.verification.table.points.size()) +
           " points; over all of them: " + ratio_text(o.verification.table.geomean_ratio) + ")\n";
  }
  return head + out.str() + tail;
}

}  // namespace mpf::tune::search
