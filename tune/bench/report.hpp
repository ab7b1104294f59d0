// The reports of a benchmark: a readable table (stdout), JSON (--json, the
// schema share/schemas/mpftune-bench.schema.json), Markdown and PNG plots
// (--out). All read one BenchReport.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/bench/options.hpp"
#include "tune/bench/peers.hpp"
#include "tune/bench/results.hpp"
#include "tune/bench/runner.hpp"

namespace mpf::tune::bench {

struct BenchReport {
  const Options* options = nullptr;
  nlohmann::json machine;
  std::string started, finished;
  double seconds = 0;
  std::vector<Implementation> implementations;  // the toolkit first
  std::vector<std::string> notes;               // peers not found, kernels not built, ...
  Outcome outcome;
  Results results;
};

// One table of a report: points that share a kernel and operation (and, for
// a kernel with sizes, a process count); its rows are sizes or process counts.
struct Table {
  std::string title;         // "pingpong, 2 ranks", "collectives allreduce, 16 ranks", "startup"
  std::string unit;
  bool higher_is_better = false;
  bool rows_are_np = false;  // a kernel without sizes: one row per process count
  std::vector<PointKey> rows;
};
std::vector<Table> tables(const Results& results);

// The implementations a table has a column for: the toolkit, and each peer
// the table's kernel concerns (one that ran it, or says why it cannot).
std::vector<const Implementation*> table_columns(const BenchReport& report, const Table& table);

// Per kernel (and operation), the geometric mean of the toolkit's time
// ratios to the faster peer, and the lowest and highest with their point.
struct RatioSummary {
  std::string what;
  int points = 0;
  double geomean = 0;
  const Comparison* lowest = nullptr;
  const Comparison* highest = nullptr;
};
std::vector<RatioSummary> ratio_summaries(const Results& results);

// 0, 1, 64, 4K, 1M: as the kernels' --sizes takes them.
std::string format_bytes(long bytes);
// Three significant digits, never an exponent.
std::string format_value(double value);
std::string point_label(const PointKey& key);  // "64K", "64K np 16" (collectives), "np 16"
std::string implementation_name(const BenchReport& report, const std::string& id);

std::string text_report(const BenchReport& report);
nlohmann::json json_report(const BenchReport& report);
std::string markdown_report(const BenchReport& report, const std::vector<std::string>& plots,
                            const std::vector<std::string>& plot_problems);

// PNG plots with gnuplot into `dir`; returns the files written (names
// relative to dir) and, in `problems`, why some could not be.
std::vector<std::string> write_plots(const BenchReport& report, const std::string& dir,
                                     std::vector<std::string>& problems);

}  // namespace mpf::tune::bench
