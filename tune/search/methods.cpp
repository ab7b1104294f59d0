#include "tune/search/methods.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "tune/bench/report.hpp"

namespace mpf::tune::search {
namespace {

// The probes with `sizes` (for a kernel without sizes, as they are).
std::vector<Probe> sized(std::vector<Probe> probes, const std::vector<long>& sizes) {
  for (Probe& p : probes) p.sizes = sizes;
  return probes;
}

// A step's jobs: what the measurer counted while it ran.
class StepClock {
 public:
  explicit StepClock(const Session& s) : session_(s), start_(s.spent()) {}
  double seconds() const { return session_.spent() - start_; }

 private:
  const Session& session_;
  double start_;
};

// The figures at one size.
Figures at_size(const Figures& all, long bytes) {
  Figures out;
  for (const auto& [key, figure] : all) {
    if (key.bytes && *key.bytes == bytes) out.emplace(key, figure);
  }
  return out;
}

// ---- crossover ----------------------------------------------------------------------

enum class Side { below, above, tie };

// Which protocol a size goes better with, from the lower protocol's figures
// (`below`) and the upper one's: a point where one is better beyond noise
// and none where the other is decides; points that disagree are settled by
// the geometric mean of all of them.
Side side_at(const Figures& below, const Figures& above) {
  const Decision d = judge(below, above);
  if (d.better > 0 && d.worse == 0) return Side::above;
  if (d.worse > 0 && d.better == 0) return Side::below;
  if (d.better > 0) return d.geomean_ratio < 1 ? Side::above : Side::below;
  return Side::tie;
}

struct CrossoverCurves {
  Figures below, above;
};

void add_crossover_curves(Choice& c, const Dimension& d, const CrossoverCurves& m) {
  // One curve per point (kernel, op, np) and protocol, over sizes.
  std::map<std::tuple<std::string, std::string, int>, std::pair<Curve, Curve>> by_point;
  for (const bool above : {false, true}) {
    for (const auto& [key, figure] : above ? m.above : m.below) {
      if (!key.bytes) continue;
      auto& pair = by_point[{key.kernel, key.op, key.np}];
      Curve& curve = above ? pair.second : pair.first;
      if (curve.title.empty()) {
        std::string point = key.kernel + (key.op != "-" ? " " + key.op : "") + " np " + std::to_string(key.np);
        curve.title = point + ", " + d.tunable + "=" + (above ? d.all_above : d.all_below);
        curve.unit = figure.unit;
        curve.higher_is_better = figure.higher_is_better;
      }
      curve.points.push_back(
          {bench::format_bytes(*key.bytes), static_cast<double>(*key.bytes), bench::summarise(figure.samples)});
    }
  }
  for (auto& [point, pair] : by_point) {
    for (Curve* curve : {&pair.first, &pair.second}) {
      std::sort(curve->points.begin(), curve->points.end(),
                [](const CurvePoint& a, const CurvePoint& b) { return a.position < b.position; });
      c.curves.push_back(std::move(*curve));
    }
  }
}

// Measures both protocols at `sizes` and appends what they gave; returns
// false when a job failed (the choice says which).
bool measure_sides(Session& s, const Dimension& d, const Config& cur, const std::vector<long>& sizes, int rounds,
                   CrossoverCurves& m, Choice& c) {
  const std::vector<Config> configs = {with(cur, d.tunable, d.all_below), with(cur, d.tunable, d.all_above)};
  const Trial t = s.interleave(configs, sized(d.probes(cur), sizes), rounds);
  for (std::size_t i = 0; i < 2; ++i) {
    if (t.failed(i)) {
      c.skipped = true;
      c.why = "the job with " + describe(configs[i]) + " failed: " + t.failures[i];
      return false;
    }
  }
  pool(m.below, t.figures[0]);
  pool(m.above, t.figures[1]);
  return true;
}

// The sizes in (a, b) of the dimension's grid.
std::vector<long> between(const std::vector<long>& grid, long a, long b) {
  std::vector<long> out;
  for (const long v : grid) {
    if (v > a && v < b) out.push_back(v);
  }
  return out;
}

// A change to `chosen` measured afresh against `before`: taken when better
// beyond noise somewhere and worse nowhere, or, for a smaller memory size
// (`saves_memory`), when worse nowhere.
bool confirm(Session& s, const Dimension& d, const Config& cur, const std::vector<Probe>& probes, Choice& c,
             bool saves_memory) {
  const std::vector<Config> configs = {cur, with(cur, d.tunable, c.chosen)};
  const Trial t = s.interleave(configs, probes, s.settings().confirm_rounds);
  if (t.failed(1)) {
    c.why += " A job with " + d.tunable + "=" + c.chosen + " failed (" + t.failures[1] + "); kept " + c.before + ".";
    c.chosen = c.before;
    return false;
  }
  if (t.failed(0)) {
    c.why += " A job with " + d.tunable + "=" + c.before + " failed (" + t.failures[0] + "); took " + c.chosen + ".";
    return true;
  }
  c.confirmation = judge(t.figures[0], t.figures[1]);
  const Decision& dec = *c.confirmation;
  const bool taken = saves_memory ? dec.worse == 0 : dec.accepted();
  if (taken) {
    c.why += " Against " + c.before + ", measured again: " + ratio_text(dec.geomean_ratio) + " over " +
             std::to_string(dec.points.size()) + (dec.points.size() == 1 ? " point" : " points") + ", better at " +
             std::to_string(dec.better) + ", worse at none.";
  } else {
    c.why += " Against " + c.before + ", measured again: " + ratio_text(dec.geomean_ratio) +
             (dec.worse > 0 ? ", worse at " + std::to_string(dec.worse) + (dec.worse == 1 ? " point" : " points")
                            : ", better at none beyond noise") +
             "; kept " + c.before + ".";
    c.chosen = c.before;
  }
  return taken;
}

Choice crossover(Session& s, const Dimension& d, Config& cur, Choice c) {
  const std::int64_t floor = numeric_value(d.tunable, d.all_above);
  std::vector<long> grid;
  for (const std::string& v : d.candidates) {
    const std::int64_t n = numeric_value(d.tunable, v);
    if (d.threshold_is_above ? n >= floor : n > floor) grid.push_back(n);
  }
  std::vector<long> coarse;
  for (std::size_t i = 0; i < grid.size(); i += 2) coarse.push_back(grid[i]);
  if (coarse.back() != grid.back()) coarse.push_back(grid.back());

  CrossoverCurves m;
  if (!measure_sides(s, d, cur, coarse, s.settings().rounds, m, c)) return c;
  auto side = [&m](long size) { return side_at(at_size(m.below, size), at_size(m.above, size)); };
  // The lower protocol holds up to the first size where the upper one wins.
  auto prefix_end = [&](const std::vector<long>& sizes) -> std::optional<std::size_t> {
    std::optional<std::size_t> end;
    for (std::size_t i = 0; i < sizes.size() && side(sizes[i]) != Side::above; ++i) end = i;
    return end;
  };
  std::optional<std::size_t> end = prefix_end(coarse);
  // Fine: the grid between the last coarse size the lower protocol keeps
  // (holds; or, preferring low, wins) and the next one, where the curves
  // cross.
  if (end && d.prefer_low) {
    std::optional<std::size_t> win;
    for (std::size_t i = 0; i <= *end; ++i) {
      if (side(coarse[i]) == Side::below) win = i;
    }
    end = win;
  }
  const long lo = end ? coarse[*end] : -1;
  const long hi = end ? (*end + 1 < coarse.size() ? coarse[*end + 1] : grid.back() + 1) : coarse.front();
  const std::vector<long> fine = between(grid, lo, hi);
  if (!fine.empty() && !measure_sides(s, d, cur, fine, s.settings().confirm_rounds, m, c)) return c;

  std::vector<long> measured;
  for (const long v : grid) {
    if (!at_size(m.below, v).empty()) measured.push_back(v);
  }
  end = prefix_end(measured);
  // The largest size the lower protocol keeps; -1: none.
  long last_below = -1;
  if (end) {
    for (std::size_t i = 0; i <= *end; ++i) {
      if (!d.prefer_low || side(measured[i]) == Side::below) last_below = measured[i];
    }
  }
  add_crossover_curves(c, d, m);

  // The threshold that puts `last_below` on the lower protocol and the next
  // size on the upper one.
  std::int64_t threshold = 0;
  if (!d.threshold_is_above) {
    threshold = last_below >= 0 ? last_below : numeric_value(d.tunable, d.all_above);
  } else {
    auto next = last_below >= 0 ? std::upper_bound(grid.begin(), grid.end(), last_below) : grid.begin();
    threshold = next != grid.end() ? *next : grid.back();
  }
  const std::string lower = d.tunable + "=" + d.all_below, upper = d.tunable + "=" + d.all_above;
  if (last_below < 0) {
    c.why = "The upper protocol (" + upper + ") is as fast or faster from the smallest size measured, " +
            bench::format_bytes(grid.front()) + ".";
  } else if (last_below == measured.back()) {
    c.why = "The lower protocol (" + lower + ") is as fast or faster at every size measured, up to " +
            bench::format_bytes(last_below) + ".";
  } else {
    c.why = "The curves cross after " + bench::format_bytes(last_below) + ": up to there the lower protocol (" + lower +
            ") is as fast or faster" + (d.prefer_low ? " and faster at that size" : "") +
            ", beyond it the upper one (" + upper + ") wins.";
  }
  c.chosen = value_text(d.tunable, threshold);
  const std::int64_t before = numeric_value(d.tunable, c.before);
  if (threshold == before) {
    c.why += " That is the value already in use.";
    return c;
  }
  // Confirmed at the sizes whose protocol the change moves. A threshold
  // that loses at its far end (the last size it moves) steps back towards
  // the value in use, one measured size at a time, up to twice.
  for (int retry = 0;; ++retry) {
    const long a = std::min<std::int64_t>(before, threshold), b = std::max<std::int64_t>(before, threshold);
    std::vector<long> moved;
    for (const long v : grid) {
      if (d.threshold_is_above ? v >= a && v < b : v > a && v <= b) moved.push_back(v);
    }
    if (moved.empty()) moved.push_back(d.threshold_is_above ? a : b);
    if (confirm(s, d, cur, sized(d.probes(cur), moved), c, d.prefer_low && threshold < before)) {
      cur[d.tunable] = c.chosen;
      return c;
    }
    // Only a raised threshold steps back (the moved sizes then shrink from the top).
    if (retry == 2 || d.threshold_is_above || threshold < before || moved.size() < 2) return c;
    threshold = moved[moved.size() - 2];
    c.chosen = value_text(d.tunable, threshold);
    c.why += " Stepping back to " + c.chosen + ":";
  }
}

// ---- choice -------------------------------------------------------------------------

Curve ratio_curve(const std::string& title) {
  return Curve{.title = title, .unit = "time ratio", .higher_is_better = false};
}

CurvePoint ratio_point(const std::string& value, double position, const Decision& d) {
  bench::Summary y;
  y.median = d.geomean_ratio;
  y.q1 = y.min = 1e300;
  y.q3 = y.max = 0;
  for (const PointVerdict& p : d.points) {
    y.q1 = y.min = std::min(y.min, p.ratio);
    y.q3 = y.max = std::max(y.max, p.ratio);
  }
  if (d.points.empty()) y.q1 = y.min = y.q3 = y.max = 1;
  return {value, position, y};
}

Choice choose(Session& s, const Dimension& d, Config& cur, Choice c) {
  std::vector<Config> configs = {cur};
  std::vector<std::string> values = {c.before};
  for (const std::string& v : d.candidates) {
    if (v != c.before) {
      configs.push_back(with(cur, d.tunable, v));
      values.push_back(v);
    }
  }
  const std::vector<Probe> probes = d.probes(cur);
  const Trial t = s.interleave(configs, probes, s.settings().rounds);
  if (t.failed(0)) {
    c.skipped = true;
    c.why = "the job with the value in use failed: " + t.failures[0];
    return c;
  }
  Curve curve = ratio_curve("time ratio to " + d.tunable + "=" + c.before + " (geometric mean, range over points)");
  curve.points.push_back({c.before, 0, bench::Summary{.median = 1, .q1 = 1, .q3 = 1, .min = 1, .max = 1}});
  std::optional<std::size_t> best;
  double best_ratio = 1;
  std::vector<std::string> failed;
  for (std::size_t i = 1; i < configs.size(); ++i) {
    if (t.failed(i)) {
      failed.push_back(values[i]);
      continue;
    }
    const Decision dec = judge(t.figures[0], t.figures[i]);
    curve.points.push_back(ratio_point(values[i], static_cast<double>(i), dec));
    if (dec.accepted() && dec.geomean_ratio < best_ratio) {
      best = i;
      best_ratio = dec.geomean_ratio;
    }
  }
  c.curves.push_back(std::move(curve));
  std::string failures;
  for (const std::string& f : failed) failures += (failures.empty() ? "" : ", ") + f;
  if (!failures.empty()) failures = " Jobs with " + failures + " failed; those values are out.";
  if (!best) {
    c.why =
        "No value was better than " + c.before + " beyond noise somewhere without being worse elsewhere." + failures;
    return c;
  }
  c.chosen = values[*best];
  c.why = d.tunable + "=" + c.chosen + " was the best: " + ratio_text(best_ratio) + " than " + c.before +
          " over the points measured." + failures;
  if (confirm(s, d, cur, probes, c, false)) cur[d.tunable] = c.chosen;
  return c;
}

// ---- smallest -----------------------------------------------------------------------

Choice smallest(Session& s, const Dimension& d, Config& cur, Choice c) {
  const std::vector<Probe> probes = d.probes(cur);
  const std::string reference = d.candidates.back();
  Curve curve = ratio_curve("time ratio to " + d.tunable + "=" + reference + " (geometric mean, range over points)");
  std::size_t lo = 0, hi = d.candidates.size() - 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const std::string& value = d.candidates[mid];
    const Trial t =
        s.interleave({with(cur, d.tunable, reference), with(cur, d.tunable, value)}, probes, s.settings().rounds);
    if (t.failed(0)) {
      c.skipped = true;
      c.why = "the job with " + d.tunable + "=" + reference + " failed: " + t.failures[0];
      return c;
    }
    bool holds = !t.failed(1);
    if (holds) {
      const Decision dec = judge(t.figures[0], t.figures[1]);
      curve.points.push_back(ratio_point(value, static_cast<double>(numeric_value(d.tunable, value)), dec));
      holds = dec.worse == 0;
    }
    if (holds) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  std::sort(curve.points.begin(), curve.points.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.position < b.position; });
  c.curves.push_back(std::move(curve));
  c.chosen = d.candidates[hi];
  c.why = d.tunable + "=" + c.chosen + " is the smallest value tried whose figures stay within noise of " + reference +
          "'s.";
  const std::int64_t before = numeric_value(d.tunable, c.before), chosen = numeric_value(d.tunable, c.chosen);
  if (chosen == before) {
    c.why += " That is the value already in use.";
    return c;
  }
  if (confirm(s, d, cur, probes, c, chosen < before)) cur[d.tunable] = c.chosen;
  return c;
}

}  // namespace

Choice search_dimension(Session& s, const Dimension& d, Config& current) {
  Choice c;
  c.dimension = &d;
  c.default_value = default_text(d.tunable);
  c.before = current_text(current, d.tunable);
  c.chosen = c.before;
  const StepClock clock(s);
  switch (d.method) {
    case Method::crossover:
      c = crossover(s, d, current, std::move(c));
      break;
    case Method::choice:
      c = choose(s, d, current, std::move(c));
      break;
    case Method::smallest:
      c = smallest(s, d, current, std::move(c));
      break;
  }
  if (d.memory) {
    c.memory_before = d.memory(c.before, current);
    c.memory_chosen = d.memory(c.chosen, current);
  }
  c.seconds = clock.seconds();
  return c;
}

}  // namespace mpf::tune::search
