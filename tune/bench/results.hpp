// The samples of all runs gathered per implementation and measured point
// (kernel, operation, process count, size), their statistics, and the
// comparison of the toolkit with the other MPIs.
//
// The ratio is always one of times: the toolkit's time over the faster
// peer's (for a bandwidth or a rate, the peer's figure over the toolkit's),
// so below 1 the toolkit is faster and above 1 it is slower, whatever the
// unit. It is "within noise" when the interquartile ranges of the two
// overlap.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tune/bench/measurement.hpp"
#include "tune/bench/runner.hpp"

namespace mpf::tune::bench {

struct PointKey {
  std::string kernel;
  std::string op;
  int np = 0;
  std::optional<long> bytes;
  auto operator<=>(const PointKey&) const = default;
};

struct Series {
  std::string implementation;
  PointKey key;
  std::string unit;
  bool higher_is_better = false;
  std::vector<double> samples{};    // every timed batch of every run
  std::vector<double> run_medians{};  // one per run: how much runs differ
  std::vector<int> iters{};         // iterations per batch, per run
  int warmup = 0;                   // warm-up iterations of the last run
  Summary summary{};                // of `samples`
};

struct Comparison {
  PointKey key;
  std::string unit;
  bool higher_is_better = false;
  double toolkit = 0;            // the toolkit's median
  std::string best_peer{};       // id of the faster peer
  double best = 0;               // its median
  double ratio = 0;              // toolkit time / faster peer time
  bool within_noise = false;
  std::map<std::string, double> ratios{};  // the time ratio to each peer
};

struct Results {
  std::vector<PointKey> keys;  // in report order: kernel, operation, np, size
  std::vector<Series> series;
  std::vector<Comparison> comparisons;

  const Series* find(const std::string& implementation, const PointKey& key) const;
  const Comparison* comparison(const PointKey& key) const;
};

// `implementations` are ids, the toolkit's first.
Results gather(const std::vector<TaggedMeasurement>& measurements, const std::vector<std::string>& implementations);

// The time ratio of a to b (a's time over b's) for figures in this direction.
double time_ratio(double a, double b, bool higher_is_better);

}  // namespace mpf::tune::bench
