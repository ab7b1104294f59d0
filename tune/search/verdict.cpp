#include "tune/search/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tune/bench/report.hpp"

namespace mpf::tune::search {

const char* to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::better:
      return "better";
    case Verdict::same:
      return "same";
    case Verdict::worse:
      return "worse";
  }
  return "?";
}

double job_spread(const Figure& f) {
  if (f.job_medians.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(f.job_medians.begin(), f.job_medians.end());
  const double median = bench::summarise(f.job_medians).median;
  return median > 0 ? (*hi - *lo) / median : 0;
}

PointVerdict judge_point(const PointKey& key, const Figure& incumbent, const Figure& candidate) {
  PointVerdict v{.key = key,
                 .unit = incumbent.unit,
                 .higher_is_better = incumbent.higher_is_better,
                 .incumbent = bench::summarise(incumbent.samples),
                 .candidate = bench::summarise(candidate.samples)};
  const bench::Summary& a = v.incumbent;
  const bench::Summary& b = v.candidate;
  if (a.median <= 0 || b.median <= 0) return v;
  v.ratio = bench::time_ratio(b.median, a.median, v.higher_is_better);
  // In "time" terms the candidate is faster when its whole IQR is below the
  // incumbent's (above, for a rate).
  const bool apart_faster = v.higher_is_better ? b.q1 > a.q3 : b.q3 < a.q1;
  const bool apart_slower = v.higher_is_better ? b.q3 < a.q1 : b.q1 > a.q3;
  // The difference must also exceed how much the incumbent's own jobs
  // differ from each other: on a virtual machine a job can run 2x slower
  // than the one before it with nothing changed.
  const double effect = std::max(kMinEffect, job_spread(incumbent));
  if (apart_faster && v.ratio < 1 - effect) v.verdict = Verdict::better;
  if (apart_slower && v.ratio > 1 + effect) v.verdict = Verdict::worse;
  return v;
}

Decision judge(const Figures& incumbent, const Figures& candidate) {
  Decision d;
  double log_sum = 0;
  for (const auto& [key, a] : incumbent) {
    const auto b = candidate.find(key);
    if (b == candidate.end() || a.samples.empty() || b->second.samples.empty()) continue;
    PointVerdict v = judge_point(key, a, b->second);
    d.better += v.verdict == Verdict::better;
    d.worse += v.verdict == Verdict::worse;
    log_sum += std::log(v.ratio);
    d.points.push_back(std::move(v));
  }
  if (!d.points.empty()) d.geomean_ratio = std::exp(log_sum / static_cast<double>(d.points.size()));
  return d;
}

std::string ratio_text(double ratio) {
  char text[48];
  if (std::fabs(ratio - 1) < 0.005) return "same";
  if (ratio < 1) {
    std::snprintf(text, sizeof text, "%.2fx faster", 1 / ratio);
  } else {
    std::snprintf(text, sizeof text, "%.2fx slower", ratio);
  }
  return text;
}

std::vector<std::string> Decision::losses() const {
  std::vector<std::string> out;
  for (const PointVerdict& p : points) {
    if (p.verdict == Verdict::worse) out.push_back(point_name(p.key) + ": " + ratio_text(p.ratio));
  }
  return out;
}

}  // namespace mpf::tune::search
