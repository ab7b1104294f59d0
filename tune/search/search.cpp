#include "tune/search/search.hpp"

#include "tune/bench/progress.hpp"

namespace mpf::tune::search {

SearchOutcome run_search(Session& s, const std::vector<Dimension>& space, const std::vector<Probe>& verification) {
  SearchOutcome out;
  Config current;
  const int steps = static_cast<int>(space.size()) + 1;
  try {
    for (std::size_t i = 0; i < space.size(); ++i) {
      const Dimension& d = space[i];
      if (s.spent() > kSearchShare * s.settings().budget_seconds) {
        Choice c;
        c.dimension = &d;
        c.default_value = default_text(d.tunable);
        c.before = c.chosen = current_text(current, d.tunable);
        c.skipped = true;
        c.why = "not searched: the search had spent its share of the budget (--budget)";
        out.choices.push_back(std::move(c));
        continue;
      }
      s.begin_step(static_cast<int>(i) + 1, steps, d.tunable + ": " + d.question);
      out.choices.push_back(search_dimension(s, d, current));
      const Choice& c = out.choices.back();
      s.note(d.tunable + ": " +
             (c.skipped     ? "not searched: " + c.why
              : c.changed() ? c.before + " -> " + c.chosen
                            : "stays " + c.chosen) +
             " (" + bench::format_duration(c.seconds) + ")");
    }
    // Values equal to their default are not changes.
    for (auto it = current.begin(); it != current.end();) {
      it = same_value(it->first, it->second, default_text(it->first)) ? current.erase(it) : std::next(it);
    }
    s.begin_step(steps, steps, "verification: the values chosen against the defaults");
    out.chosen = current;
    out.verification = verify(s, verification, out.chosen, out.choices);
    s.note("verification: " + out.verification.note);
  } catch (const Interrupted&) {
    out.interrupted = true;
    out.chosen = current;
  }
  out.seconds = s.spent();
  return out;
}

}  // namespace mpf::tune::search
