// The verification pass: before anything is written, every kernel runs with
// the defaults and with the values chosen, interleaved, and a tunable whose
// choice makes any kernel slower beyond noise goes back to its default. The
// search never makes the machine slower: when reverting tunables one at a
// time does not clear a loss, every change goes.
#pragma once

#include <string>
#include <vector>

#include "tune/search/methods.hpp"

namespace mpf::tune::search {

struct Verification {
  bool ran = false;                   // false: nothing changed, or the budget was spent
  std::string note;                   // why it did not run, or how it ended
  Decision table;                     // the chosen values against the defaults, per point (the last full pass)
  std::vector<std::string> reverted;  // tunables put back, in order
  int passes = 0;                     // full passes over every kernel
  // Losses of the last full pass that measuring those points again did not
  // reproduce (a job that ran at a bad moment): they revert nothing.
  std::vector<std::string> not_reproduced;
};

// Kernels and process counts the verification runs: every kernel of
// `kernels` (those built), a pair kernel at 2 ranks, the others at each of
// `counts`; at `short_from` ranks and more, with the kernel's short list of
// sizes (--quick), which keeps a pass over 64-rank jobs within minutes.
std::vector<Probe> verification_probes(const std::vector<std::string>& kernels, const std::vector<int>& counts,
                                       int short_from);

// Verifies `chosen` (updated: reverted tunables leave it), marking the
// reverted choices in `choices`.
Verification verify(Session& session, const std::vector<Probe>& probes, Config& chosen, std::vector<Choice>& choices);

}  // namespace mpf::tune::search
