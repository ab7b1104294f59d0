// The readable report on standard output: for each table, a column per MPI
// (median and noise) and the toolkit's ratio to the faster peer; alone, the
// toolkit's median, quartiles, extremes and iterations.
#include <algorithm>
#include <sstream>

#include "tune/bench/machine.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {
namespace {

std::string pad(const std::string& s, std::size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string noise(const Summary& s) {
  return "±" + std::to_string(static_cast<int>(s.relative_iqr() * 50 + 0.5)) + "%";
}

// Rows of cells, each column as wide as its widest cell; numbers (every
// column but the first `left` ones) aligned right.
std::string layout(const std::vector<std::vector<std::string>>& rows, std::size_t left = 0) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t i = 0; i < row.size(); ++i) line += "  " + pad(row[i], width[i], i >= left);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string text_report(const BenchReport& r) {
  std::ostringstream out;
  const bool compare = r.implementations.size() > 1;
  out << "mpftune bench on " << r.machine.value("hostname", "") << ": " << machine_line(r.machine) << "\n";
  for (const Implementation& i : r.implementations) {
    out << "  " << i.id << ": " << i.short_library() << "\n";
  }
  out << "Medians of all timed batches; noise is half the interquartile range, relative to the median.";
  if (compare) {
    out << "\nratio: the toolkit's time over the faster peer's (for MB/s and Mmsg/s the inverse of the figures): "
           "below 1 the toolkit is faster;\n(noise) when the two interquartile ranges overlap.";
  }
  out << "\n";
  for (const Table& t : tables(r.results)) {
    out << "\n" << t.title << " (" << t.unit << ", " << (t.higher_is_better ? "higher" : "lower") << " is better)\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {t.rows_are_np ? "ranks" : "bytes"};
    const std::vector<const Implementation*> columns = table_columns(r, t);
    if (compare) {
      for (const Implementation* i : columns) header.push_back(i->name);
      header.insert(header.end(), {"ratio", "faster peer"});
    } else {
      header.insert(header.end(), {"median", "q1..q3", "min..max", "iters"});
    }
    rows.push_back(header);
    for (const PointKey& key : t.rows) {
      std::vector<std::string> row = {t.rows_are_np ? std::to_string(key.np) : format_bytes(*key.bytes)};
      if (compare) {
        for (const Implementation* i : columns) {
          const Series* s = r.results.find(i->id, key);
          row.push_back(s ? format_value(s->summary.median) + " " + noise(s->summary) : "-");
        }
        const Comparison* c = r.results.comparison(key);
        row.push_back(c ? format_value(c->ratio) + (c->within_noise ? " (noise)" : "") : "-");
        row.push_back(c ? implementation_name(r, c->best_peer) : "");
      } else {
        const Series* s = r.results.find(r.implementations.front().id, key);
        if (s == nullptr) continue;
        const Summary& m = s->summary;
        row.insert(row.end(), {format_value(m.median), format_value(m.q1) + ".." + format_value(m.q3),
                               format_value(m.min) + ".." + format_value(m.max),
                               std::to_string(s->iters.empty() ? 0 : s->iters.back())});
      }
      rows.push_back(row);
    }
    out << layout(rows);
  }
  const auto summaries = ratio_summaries(r.results);
  if (!summaries.empty()) {
    out << "\nThe toolkit against the faster peer (time ratio; geometric mean over the points, and the extremes):\n";
    std::vector<std::vector<std::string>> rows = {{"kernel", "points", "geomean", "lowest", "highest"}};
    for (const RatioSummary& s : summaries) {
      rows.push_back({s.what, std::to_string(s.points), format_value(s.geomean),
                      format_value(s.lowest->ratio) + " at " + point_label(s.lowest->key),
                      format_value(s.highest->ratio) + " at " + point_label(s.highest->key)});
    }
    out << layout(rows, 1);
  }
  for (const bool complete : {false, true}) {
    bool header = false;
    for (const RunRecord& run : r.outcome.runs) {
      if (run.status == kOk || run.complete() != complete) continue;
      if (!header) {
        out << (complete ? "\nRuns that failed after printing all their results (which are counted):\n"
                         : "\nRuns that did not finish (their finished sizes are counted):\n");
      }
      header = true;
      out << "  " << run.kernel << " np=" << run.np << " " << implementation_name(r, run.implementation)
          << ", repetition " << run.repetition + 1 << ": " << run.message << "\n";
    }
  }
  if (!r.notes.empty()) {
    out << "\n";
    for (const std::string& n : r.notes) out << n << "\n";
  }
  return out.str();
}

}  // namespace mpf::tune::bench
