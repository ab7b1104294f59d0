#include "tune/bench/results.hpp"

#include <algorithm>
#include <tuple>

#include "tune/bench/catalogue.hpp"

namespace mpf::tune::bench {
namespace {

int kernel_rank(const std::string& name) {
  const auto& all = catalogue();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].name == name) return static_cast<int>(i);
  }
  return static_cast<int>(all.size());
}

}  // namespace

double time_ratio(double a, double b, bool higher_is_better) {
  if (a <= 0 || b <= 0) return 0;
  return higher_is_better ? b / a : a / b;
}

const Series* Results::find(const std::string& implementation, const PointKey& key) const {
  for (const Series& s : series) {
    if (s.implementation == implementation && s.key == key) return &s;
  }
  return nullptr;
}

const Comparison* Results::comparison(const PointKey& key) const {
  for (const Comparison& c : comparisons) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

Results gather(const std::vector<TaggedMeasurement>& measurements, const std::vector<std::string>& implementations) {
  Results r;
  std::map<std::pair<std::string, PointKey>, std::size_t> index;
  std::map<std::pair<std::string, std::string>, int> op_order;  // (kernel, op) -> first appearance
  for (const TaggedMeasurement& t : measurements) {
    const Measurement& m = t.measurement;
    const PointKey key{m.kernel, m.op, m.np, m.bytes};
    op_order.emplace(std::make_pair(m.kernel, m.op), static_cast<int>(op_order.size()));
    auto [it, added] = index.emplace(std::make_pair(t.implementation, key), r.series.size());
    if (added) {
      r.series.push_back(Series{.implementation = t.implementation, .key = key, .unit = m.unit,
                                .higher_is_better = m.higher_is_better});
      if (std::find(r.keys.begin(), r.keys.end(), key) == r.keys.end()) r.keys.push_back(key);
    }
    Series& s = r.series[it->second];
    s.samples.insert(s.samples.end(), m.samples.begin(), m.samples.end());
    s.run_medians.push_back(summarise(m.samples).median);
    s.iters.push_back(m.iters);
    s.warmup = m.warmup;
  }
  for (Series& s : r.series) s.summary = summarise(s.samples);
  std::sort(r.keys.begin(), r.keys.end(), [&](const PointKey& a, const PointKey& b) {
    const auto rank = [&](const PointKey& k) {
      return std::make_tuple(kernel_rank(k.kernel), op_order[{k.kernel, k.op}], k.np, k.bytes.value_or(-1));
    };
    return rank(a) < rank(b);
  });
  if (implementations.size() < 2) return r;
  const std::string& toolkit = implementations.front();
  for (const PointKey& key : r.keys) {
    const Series* mine = r.find(toolkit, key);
    if (mine == nullptr) continue;
    Comparison c{.key = key, .unit = mine->unit, .higher_is_better = mine->higher_is_better,
                 .toolkit = mine->summary.median};
    const Series* best = nullptr;
    for (std::size_t i = 1; i < implementations.size(); ++i) {
      const Series* peer = r.find(implementations[i], key);
      if (peer == nullptr) continue;
      c.ratios[peer->implementation] = time_ratio(mine->summary.median, peer->summary.median, c.higher_is_better);
      // The faster peer: the one whose time is shortest.
      if (best == nullptr || time_ratio(peer->summary.median, best->summary.median, c.higher_is_better) < 1) {
        best = peer;
      }
    }
    if (best == nullptr) continue;
    c.best_peer = best->implementation;
    c.best = best->summary.median;
    c.ratio = time_ratio(c.toolkit, c.best, c.higher_is_better);
    c.within_noise = mine->summary.q1 <= best->summary.q3 && best->summary.q1 <= mine->summary.q3;
    r.comparisons.push_back(std::move(c));
  }
  return r;
}

}  // namespace mpf::tune::bench
