// When is one set of values better than another? The rule every decision of
// the search and of its verification pass uses, in one place.
//
// At one point (kernel, operation, process count, size), the candidate's
// samples are compared with the incumbent's, pooled over interleaved jobs:
//   better  the candidate's interquartile range lies wholly on the better
//           side of the incumbent's, and its median is better by more than
//           kMinEffect;
//   worse   the same the other way round;
//   same    otherwise: the difference is inside the measured noise.
// "More than kMinEffect" is also more than the incumbent's jobs differ from
// each other (job_spread): batches within one job can agree closely while
// whole jobs differ far more, and that is the noise a change must beat.
// A change is taken when it is better at one point at least, worse at none,
// and faster over all points together (Decision::accepted).
#pragma once

#include <string>
#include <vector>

#include "tune/bench/measurement.hpp"
#include "tune/search/measure.hpp"

namespace mpf::tune::search {

// Differences smaller than this share of the median are never taken for a
// gain or a loss, however tight the samples: a 1 % change is not worth a
// tuning file, and a kernel's batches can agree closely with each other and
// still differ by that much from one job to the next.
inline constexpr double kMinEffect = 0.02;

enum class Verdict { better, same, worse };

const char* to_string(Verdict verdict);

struct PointVerdict {
  PointKey key;
  std::string unit;
  bool higher_is_better = false;
  bench::Summary incumbent, candidate;
  double ratio = 1;  // the candidate's time over the incumbent's (below 1: faster)
  Verdict verdict = Verdict::same;
};

// (largest - smallest) / median of the figure's job medians; 0 with fewer than two jobs.
double job_spread(const Figure& f);

PointVerdict judge_point(const PointKey& key, const Figure& incumbent, const Figure& candidate);

struct Decision {
  std::vector<PointVerdict> points;  // the points both measured
  int better = 0, worse = 0;
  double geomean_ratio = 1;  // over all points: below 1, the candidate is faster overall

  // Better somewhere, worse nowhere, and faster overall.
  bool accepted() const { return better > 0 && worse == 0 && geomean_ratio < 1; }
  // The points where it is worse, as "pingpong 32K: 1.12x slower".
  std::vector<std::string> losses() const;
};

Decision judge(const Figures& incumbent, const Figures& candidate);

// "1.12x slower", "1.30x faster", "same".
std::string ratio_text(double ratio);

}  // namespace mpf::tune::search
