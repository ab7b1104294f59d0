// What a kernel prints and what it means: the `mpfbench` lines (format in
// tune/kernels/kernel_util.h) parsed into measurements, and the statistics
// of a set of samples.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mpf::tune::bench {

struct MeasurementError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One size of one operation of one kernel run.
struct Measurement {
  std::string kernel;
  std::string op;               // "-" for a kernel with one operation
  int np = 0;
  std::optional<long> bytes;    // none for a kernel without sizes
  std::string unit;             // us, ms, MB/s, Mmsg/s
  bool higher_is_better = false;
  int warmup = 0;               // warm-up iterations
  int iters = 0;                // iterations per timed batch
  std::vector<double> samples;  // one per timed batch, in the order they ran
};

// Everything a kernel run printed that the command reads.
struct KernelOutput {
  std::vector<Measurement> measurements;
  std::string library;  // from "# library: ..."
  bool ended = false;   // the "mpfbench-end" line came
};

// A `mpfbench` line as a measurement; nullopt for any other line. A line
// that starts with "mpfbench " but is malformed throws, naming what is wrong.
std::optional<Measurement> parse_line(std::string_view line);
KernelOutput parse_output(std::string_view text);

struct Summary {
  double median = 0, q1 = 0, q3 = 0, min = 0, max = 0;
  // Interquartile range over the median: the noise of the samples.
  double relative_iqr() const { return median != 0 ? (q3 - q1) / median : 0; }
};

// The q-quantile of sorted values, interpolated between neighbours (the
// same rule as the kernels' own).
double quantile(const std::vector<double>& sorted, double q);
Summary summarise(std::vector<double> samples);

}  // namespace mpf::tune::bench
