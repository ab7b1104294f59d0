#include "tune/search/verify.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tune/bench/catalogue.hpp"

namespace mpf::tune::search {
namespace {

using Keys = std::set<PointKey>;

Keys worse_keys(const Decision& d) {
  Keys out;
  for (const PointVerdict& v : d.points) {
    if (v.verdict == Verdict::worse) out.insert(v.key);
  }
  return out;
}

// The probes that measure `keys` again: each probe of a kernel and process
// count with a point there, with only those points' sizes.
std::vector<Probe> probes_of(const Keys& keys, const std::vector<Probe>& probes) {
  std::vector<Probe> out;
  for (const Probe& p : probes) {
    std::set<long> sizes;
    bool sizeless = false;
    for (const PointKey& k : keys) {
      if (k.kernel != p.kernel || k.np != p.np) continue;
      if (k.bytes) {
        sizes.insert(*k.bytes);
      } else {
        sizeless = true;
      }
    }
    if (sizes.empty() && !sizeless) continue;
    Probe q = p;
    if (!sizes.empty() && !sizeless) q.sizes.assign(sizes.begin(), sizes.end());
    out.push_back(q);
  }
  return out;
}

// `candidate` against the defaults on `probes`. A job that fails with the
// candidate is the worst loss of all: it counts as a loss at every point.
Decision pass(Session& s, const Config& candidate, const std::vector<Probe>& probes, int rounds) {
  const Trial t = s.interleave({Config{}, candidate}, probes, rounds);
  if (t.failed(1)) {
    Decision d;
    d.worse = 1;
    PointVerdict v;
    v.key = PointKey{"(a job failed: " + t.failures[1] + ")", "-", 0, std::nullopt};
    v.verdict = Verdict::worse;
    v.ratio = 1e9;
    d.points.push_back(v);
    return d;
  }
  return judge(t.figures[0], t.figures[1]);
}

// Of `suspects` (points worse in one pass), those worse again when measured
// afresh: with hundreds of points, a few are beyond the noise in any one
// pass by chance, and only a loss that comes back is one.
Keys confirmed(Session& s, const Config& chosen, const Keys& suspects, const std::vector<Probe>& probes) {
  if (suspects.empty()) return {};
  const Decision again = pass(s, chosen, probes_of(suspects, probes), s.settings().confirm_rounds);
  Keys out;
  for (const PointKey& k : worse_keys(again)) {
    if (suspects.count(k) > 0 || k.np == 0) out.insert(k);  // np 0: a failed job
  }
  return out;
}

std::string names(const Keys& keys, const Decision* detail = nullptr) {
  std::string out;
  int shown = 0;
  for (const PointKey& k : keys) {
    if (shown++ == 3) return out + ", ...";
    std::string ratio;
    if (detail != nullptr) {
      for (const PointVerdict& v : detail->points) {
        if (v.key == k) ratio = ": " + ratio_text(v.ratio);
      }
    }
    out += (out.empty() ? "" : ", ") + point_name(k) + ratio;
  }
  return out;
}

void revert(Verification& v, std::vector<Choice>& choices, Config& chosen, const std::string& tunable,
            const std::string& reason) {
  chosen.erase(tunable);
  v.reverted.push_back(tunable);
  for (Choice& c : choices) {
    if (c.dimension != nullptr && c.dimension->tunable == tunable) {
      c.reverted = true;
      c.revert_reason = reason;
    }
  }
}

}  // namespace

std::vector<Probe> verification_probes(const std::vector<std::string>& kernels, const std::vector<int>& counts,
                                       int short_from) {
  std::vector<Probe> out;
  for (const bench::KernelInfo& k : bench::catalogue()) {
    if (std::find(kernels.begin(), kernels.end(), std::string(k.name)) == kernels.end()) continue;
    for (const int n : bench::process_counts(k, counts)) {
      Probe p{.kernel = std::string(k.name), .np = n};
      if (n >= short_from && !k.timed_by_bench) p.args = {"--quick"};
      out.push_back(std::move(p));
    }
  }
  return out;
}

Verification verify(Session& s, const std::vector<Probe>& probes, Config& chosen, std::vector<Choice>& choices) {
  Verification v;
  if (chosen.empty()) {
    v.note = "no value differs from its default: nothing to verify";
    return v;
  }
  v.ran = true;
  const double start = s.spent();
  v.table = pass(s, chosen, probes, s.settings().rounds);
  v.passes = 1;
  const double full_pass = s.spent() - start;
  auto confirm_table = [&]() {
    const Keys suspects = worse_keys(v.table);
    Keys kept = confirmed(s, chosen, suspects, probes);
    for (const PointKey& k : suspects) {
      if (kept.count(k) == 0) v.not_reproduced.push_back(point_name(k));
    }
    return kept;
  };
  Keys losses = confirm_table();
  for (int round = 0; round < 4 && !chosen.empty(); ++round) {
    if (losses.empty()) {
      // Clean. After reverts, the values left get a full pass of their
      // own when the budget has room for one.
      if (v.reverted.empty() || v.passes > 1 || s.budget_left() < full_pass) break;
      v.table = pass(s, chosen, probes, s.settings().rounds);
      ++v.passes;
      losses = confirm_table();
      continue;
    }
    const Decision& seen = v.table;
    if (s.budget_left() <= 0) {
      // No time left to find which value loses: none of them stays.
      const Config all = chosen;
      for (const auto& [name, value] : all) {
        revert(v, choices, chosen, name,
               "the verification lost at " + names(losses, &seen) +
                   " and the budget was spent before it could tell which value did");
      }
      break;
    }
    const std::vector<Probe> losing = probes_of(losses, probes);
    // Each change alone, against the defaults, at the lost points: the
    // ones that lose there go.
    const Config all = chosen;
    bool any = false;
    for (const auto& [name, value] : all) {
      const Keys alone = worse_keys(pass(s, Config{{name, value}}, losing, s.settings().rounds));
      Keys explained;
      for (const PointKey& k : alone) {
        if (losses.count(k) > 0) explained.insert(k);
      }
      if (!explained.empty()) {
        revert(v, choices, chosen, name, "alone, it lost at " + names(explained, &seen) + " in the verification");
        any = true;
      }
    }
    if (!any) {
      // No change alone explains the losses: they come from several
      // together. The later choices were made given the earlier ones, so
      // they go first, one more at a time, until the losses are gone.
      std::vector<std::string> later_first;
      for (auto c = choices.rbegin(); c != choices.rend(); ++c) {
        if (c->dimension != nullptr && chosen.count(c->dimension->tunable) > 0) {
          later_first.push_back(c->dimension->tunable);
        }
      }
      for (const auto& [name, value] : all) {
        if (std::find(later_first.begin(), later_first.end(), name) == later_first.end()) later_first.push_back(name);
      }
      Config kept = chosen;
      std::vector<std::string> removed;
      for (const std::string& name : later_first) {
        kept.erase(name);
        removed.push_back(name);
        if (kept.empty()) break;
        Keys left;
        for (const PointKey& k : worse_keys(pass(s, kept, losing, s.settings().rounds))) {
          if (losses.count(k) > 0) left.insert(k);
        }
        if (left.empty()) break;
      }
      std::string together;
      for (const auto& [name, value] : all) together += (together.empty() ? "" : ", ") + name;
      for (const std::string& name : removed) {
        revert(v, choices, chosen, name,
               "together (" + together + ") the values chosen lost at " + names(losses, &seen) +
                   " in the verification, no value alone did, and taking back the later choices down to this one "
                   "cleared it");
      }
    }
    if (chosen.empty()) break;
    // What remains, at the points that were lost.
    const Decision again = pass(s, chosen, losing, s.settings().confirm_rounds);
    Keys still;
    for (const PointKey& k : worse_keys(again)) {
      if (losses.count(k) > 0 || k.np == 0) still.insert(k);
    }
    losses = std::move(still);
  }
  if (!losses.empty() && !chosen.empty()) {
    const Config all = chosen;
    for (const auto& [name, value] : all) {
      revert(v, choices, chosen, name, "losses remained after the reverts: " + names(losses, &v.table));
    }
  }
  v.note = chosen.empty()       ? "every value went back to its default"
           : v.reverted.empty() ? "no kernel is slower beyond noise with the values chosen"
                                : "after the reverts no kernel is slower beyond noise";
  return v;
}

}  // namespace mpf::tune::search
