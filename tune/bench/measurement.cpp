#include "tune/bench/measurement.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

namespace mpf::tune::bench {
namespace {

constexpr std::string_view kPrefix = "mpfbench ";
constexpr std::string_view kLibrary = "# library: ";
constexpr std::string_view kEnd = "mpfbench-end ";

template <typename T>
T number(const std::map<std::string, std::string>& fields, const std::string& key, std::string_view line) {
  const auto it = fields.find(key);
  if (it == fields.end()) throw MeasurementError("kernel output line lacks " + key + "=: " + std::string(line));
  T value{};
  const std::string& text = it->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    throw MeasurementError("kernel output line has a bad " + key + "=" + text + ": " + std::string(line));
  }
  return value;
}

std::string text(const std::map<std::string, std::string>& fields, const std::string& key, std::string_view line) {
  const auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) {
    throw MeasurementError("kernel output line lacks " + key + "=: " + std::string(line));
  }
  return it->second;
}

}  // namespace

std::optional<Measurement> parse_line(std::string_view line) {
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::map<std::string, std::string> fields;
  std::istringstream words{std::string(line.substr(kPrefix.size()))};
  std::string word;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw MeasurementError("kernel output word '" + word + "' is not key=value: " + std::string(line));
    }
    fields[word.substr(0, eq)] = word.substr(eq + 1);
  }
  Measurement m;
  m.kernel = text(fields, "kernel", line);
  m.op = text(fields, "op", line);
  m.np = number<int>(fields, "np", line);
  const long bytes = number<long>(fields, "bytes", line);
  if (bytes >= 0) m.bytes = bytes;
  m.unit = text(fields, "unit", line);
  const std::string better = text(fields, "better", line);
  if (better != "lower" && better != "higher") {
    throw MeasurementError("kernel output line has better=" + better + ", not lower or higher: " + std::string(line));
  }
  m.higher_is_better = better == "higher";
  m.warmup = number<int>(fields, "warmup", line);
  m.iters = number<int>(fields, "iters", line);
  const int reps = number<int>(fields, "reps", line);
  std::istringstream samples(text(fields, "samples", line));
  std::string sample;
  while (std::getline(samples, sample, ',')) {
    double v = 0;
    const auto [end, error] = std::from_chars(sample.data(), sample.data() + sample.size(), v);
    if (error != std::errc() || end != sample.data() + sample.size()) {
      throw MeasurementError("kernel output line has a bad sample '" + sample + "': " + std::string(line));
    }
    m.samples.push_back(v);
  }
  if (static_cast<int>(m.samples.size()) != reps || reps < 1) {
    throw MeasurementError("kernel output line has " + std::to_string(m.samples.size()) + " samples for reps=" +
                           std::to_string(reps) + ": " + std::string(line));
  }
  return m;
}

KernelOutput parse_output(std::string_view text) {
  KernelOutput out;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(kLibrary, 0) == 0) {
      out.library = line.substr(kLibrary.size());
      while (!out.library.empty() && out.library.back() == ' ') out.library.pop_back();
    } else if (line.rfind(kEnd, 0) == 0) {
      out.ended = true;
    } else if (auto m = parse_line(line)) {
      out.measurements.push_back(std::move(*m));
    }
  }
  return out;
}

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const double frac = pos - static_cast<double>(lo);
  return lo + 1 < sorted.size() ? sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]) : sorted[lo];
}

Summary summarise(std::vector<double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

}  // namespace mpf::tune::bench
