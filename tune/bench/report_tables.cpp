// What every report shares: the grouping of points into tables, the ratio
// summaries and the way numbers are written.
#include <cmath>
#include <cstdio>
#include <map>

#include "tune/bench/catalogue.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {

std::string format_bytes(long bytes) {
  if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return std::to_string(bytes >> 20) + "M";
  if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) return std::to_string(bytes >> 10) + "K";
  return std::to_string(bytes);
}

std::string format_value(double v) {
  char text[32];
  const double a = std::fabs(v);
  const char* format = a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string point_label(const PointKey& key) {
  const KernelInfo* kernel = find_kernel(key.kernel);
  const bool scaling = kernel != nullptr && kernel->ranks == Ranks::scaling;
  if (!key.bytes) return "np " + std::to_string(key.np);
  return format_bytes(*key.bytes) + (scaling ? " np " + std::to_string(key.np) : "");
}

std::string implementation_name(const BenchReport& report, const std::string& id) {
  for (const Implementation& i : report.implementations) {
    if (i.id == id) return i.name;
  }
  return id;
}

std::vector<Table> tables(const Results& results) {
  std::vector<Table> out;
  std::map<std::string, std::size_t> index;
  for (const PointKey& key : results.keys) {
    std::string title = key.kernel + (key.op == "-" ? "" : " " + key.op);
    const bool by_np = !key.bytes.has_value();
    if (!by_np) title += ", " + std::to_string(key.np) + (key.np == 1 ? " rank" : " ranks");
    auto [it, added] = index.emplace(title, out.size());
    if (added) {
      const Series* any = nullptr;
      for (const Series& s : results.series) {
        if (s.key == key) any = &s;
      }
      out.push_back(Table{.title = title, .unit = any ? any->unit : "", .higher_is_better = any && any->higher_is_better,
                          .rows_are_np = by_np, .rows = {}});
    }
    out[it->second].rows.push_back(key);
  }
  return out;
}

std::vector<const Implementation*> table_columns(const BenchReport& report, const Table& table) {
  std::vector<const Implementation*> out;
  const std::string kernel = table.rows.empty() ? "" : table.rows.front().kernel;
  for (const Implementation& i : report.implementations) {
    if (out.empty() || i.kernels.count(kernel) > 0 || i.unavailable.count(kernel) > 0) out.push_back(&i);
  }
  return out;
}

std::vector<RatioSummary> ratio_summaries(const Results& results) {
  std::vector<RatioSummary> out;
  std::map<std::string, std::size_t> index;
  std::map<std::string, double> log_sum;
  for (const Comparison& c : results.comparisons) {
    if (c.ratio <= 0) continue;
    const std::string what = c.key.kernel + (c.key.op == "-" ? "" : " " + c.key.op);
    auto [it, added] = index.emplace(what, out.size());
    if (added) out.push_back(RatioSummary{.what = what});
    RatioSummary& s = out[it->second];
    ++s.points;
    log_sum[what] += std::log(c.ratio);
    if (s.lowest == nullptr || c.ratio < s.lowest->ratio) s.lowest = &c;
    if (s.highest == nullptr || c.ratio > s.highest->ratio) s.highest = &c;
  }
  for (RatioSummary& s : out) s.geomean = std::exp(log_sum[s.what] / s.points);
  return out;
}

}  // namespace mpf::tune::bench
