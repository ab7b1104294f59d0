#include "tune/search/verify.hpp"

#include <algorithm>
#include <set>

#include "tune/bench/catalogue.hpp"

namespace mpf::tune::search {
namespace {

// The probes of the points where `d` found the candidate worse, with only
// those points' sizes.
std::vector<Probe> probes_of_losses(const Decision& d, const std::vector<Probe>& probes) {
  std::vector<Probe> out;
  for (const Probe& p : probes) {
    std::set<long> sizes;
    bool sizeless = false;
    for (const PointVerdict& v : d.points) {
      if (v.verdict != Verdict::worse || v.key.kernel != p.kernel || v.key.np != p.np) continue;
      if (v.key.bytes) {
        sizes.insert(*v.key.bytes);
      } else {
        sizeless = true;
      }
    }
    if (sizes.empty() && !sizeless) continue;
    Probe q = p;
    if (!sizes.empty()) q.sizes.assign(sizes.begin(), sizes.end());
    out.push_back(q);
  }
  return out;
}

// A full or partial pass: `chosen` against the defaults.
Decision pass(Session& s, const Config& chosen, const std::vector<Probe>& probes, int rounds) {
  const Trial t = s.interleave({Config{}, chosen}, probes, rounds);
  if (t.failed(1)) {
    // A job that fails with the values chosen is the worst loss of all.
    Decision d;
    d.worse = 1;
    PointVerdict v;
    v.key = PointKey{"(job failed: " + t.failures[1] + ")", "-", 0, std::nullopt};
    v.verdict = Verdict::worse;
    v.ratio = 1e9;
    d.points.push_back(v);
    return d;
  }
  return judge(t.figures[0], t.figures[1]);
}

Choice* choice_of(std::vector<Choice>& choices, const std::string& tunable) {
  for (Choice& c : choices) {
    if (c.dimension->tunable == tunable) return &c;
  }
  return nullptr;
}

void revert(Verification& v, std::vector<Choice>& choices, Config& chosen, const std::string& tunable,
            const std::string& reason) {
  chosen.erase(tunable);
  v.reverted.push_back(tunable);
  if (Choice* c = choice_of(choices, tunable)) {
    c->reverted = true;
    c->revert_reason = reason;
  }
}

std::string losses_text(const Decision& d) {
  std::string out;
  int shown = 0;
  for (const std::string& l : d.losses()) {
    if (shown++ == 3) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + l;
  }
  return out;
}

}  // namespace

std::vector<Probe> verification_probes(const std::vector<std::string>& kernels, const std::vector<int>& counts) {
  std::vector<Probe> out;
  for (const bench::KernelInfo& k : bench::catalogue()) {
    if (std::find(kernels.begin(), kernels.end(), std::string(k.name)) == kernels.end()) continue;
    for (const int n : bench::process_counts(k, counts)) out.push_back(Probe{.kernel = std::string(k.name), .np = n});
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
  const int rounds = s.settings().rounds;
  v.table = pass(s, chosen, probes, rounds);
  v.passes = 1;
  bool clean = v.table.worse == 0;
  // Up to two rounds of reverts, each followed by a full pass.
  for (int attempt = 0; attempt < 2 && !clean && !chosen.empty(); ++attempt) {
    // A loss seen once may be a job that ran at a bad moment: measured
    // again, only the losses that remain count.
    const std::vector<Probe> suspects = probes_of_losses(v.table, probes);
    Decision again = pass(s, chosen, suspects, s.settings().confirm_rounds);
    if (again.worse == 0) {
      v.not_reproduced = v.table.losses();
      clean = true;
      break;
    }
    const std::vector<Probe> losing = probes_of_losses(again, suspects);
    const std::string losses = losses_text(again);
    // The change whose removal alone clears the losses goes.
    bool cleared = false;
    for (auto it = chosen.rbegin(); it != chosen.rend() && !cleared; ++it) {
      Config without = chosen;
      without.erase(it->first);
      if (pass(s, without, losing, s.settings().confirm_rounds).worse == 0) {
        revert(v, choices, chosen, it->first, "with it, the verification measured " + losses);
        cleared = true;
      }
    }
    if (!cleared) {
      // No single change explains the losses: put every one back.
      const Config all = chosen;
      for (const auto& [name, value] : all) {
        revert(v, choices, chosen, name,
               "the verification measured " + losses + " with the values chosen, and no single value explained it");
      }
    }
    if (chosen.empty()) break;
    v.table = pass(s, chosen, probes, rounds);
    ++v.passes;
    clean = v.table.worse == 0;
  }
  if (!clean && !chosen.empty()) {
    const Config all = chosen;
    for (const auto& [name, value] : all) {
      revert(v, choices, chosen, name, "losses remained after the reverts: " + losses_text(v.table));
    }
  }
  v.note = chosen.empty()       ? "every value went back to its default"
           : v.reverted.empty() ? "no kernel is slower beyond noise with the values chosen"
                                : "after the reverts no kernel is slower beyond noise";
  return v;
}

}  // namespace mpf::tune::search
