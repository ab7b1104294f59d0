// The three ways a tunable is searched (space.hpp, Method), and what each
// leaves for the report: the value chosen, why, and the measurements that
// say so.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tune/search/session.hpp"
#include "tune/search/space.hpp"
#include "tune/search/verdict.hpp"

namespace mpf::tune::search {

// One measured curve of the evidence: a protocol's figures over sizes, or a
// value's time ratio to the reference.
struct CurvePoint {
  std::string x;        // "32K", "get", "200000"
  double position = 0;  // for plots: the size, the value, or the candidate's index
  bench::Summary y{};
};
struct Curve {
  std::string title;  // "pingpong np 2, eager (eager_limit=256KiB)"
  std::string unit;
  bool higher_is_better = false;
  std::vector<CurvePoint> points{};
};

struct Choice {
  const Dimension* dimension = nullptr;
  std::string default_value;
  std::string before;  // the value when the step began (the default, or a tuning's under --resume)
  std::string chosen;  // the value after the step (before, when nothing was better)
  bool changed() const { return chosen != before; }
  std::string why;                                               // one or two sentences
  std::vector<Curve> curves{};                                   // what was measured, as the report plots it
  std::optional<Decision> confirmation{};                        // the chosen value against `before`, fresh jobs
  std::optional<std::int64_t> memory_before{}, memory_chosen{};  // bytes, when the tunable is a memory size
  double seconds = 0;                                            // of jobs this step ran
  bool skipped = false;  // not searched (budget spent, kernels missing, the incumbent failed)
  // Set by the verification pass when it puts the default back.
  bool reverted = false;
  std::string revert_reason{};
};

// Searches `dimension` from the values in `current` (which it updates with
// the choice).
Choice search_dimension(Session& session, const Dimension& dimension, Config& current);

}  // namespace mpf::tune::search
