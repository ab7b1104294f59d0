// A whole search: each dimension of the space in order, from the defaults,
// then the verification pass, within the budget.
#pragma once

#include <string>
#include <vector>

#include "tune/search/methods.hpp"
#include "tune/search/verify.hpp"

namespace mpf::tune::search {

// The share of the budget the dimensions may spend before the verification
// pass; the rest is the verification's (a full pass over every kernel
// takes about 3 minutes on 2 CPUs; when the budget runs out while it looks
// for the value behind a loss, every change goes back).
inline constexpr double kSearchShare = 0.5;

struct SearchOutcome {
  std::vector<Choice> choices;  // one per dimension, in search order
  Config chosen;                // the values that differ from the defaults, after verification
  Verification verification;
  bool interrupted = false;  // Ctrl-C: nothing is written but the journal and the reports
  double seconds = 0;        // of jobs
};

SearchOutcome run_search(Session& session, const std::vector<Dimension>& space, const std::vector<Probe>& verification);

}  // namespace mpf::tune::search
