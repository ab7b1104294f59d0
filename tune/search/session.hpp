// The state every step of a search shares: the measurer, the budget, the
// number of interleaved rounds, and the progress display.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "tune/search/measure.hpp"

namespace mpf::tune::search {

struct SessionSettings {
  double budget_seconds = 600;  // of jobs, for the whole search and its verification
  int rounds = 2;               // interleaved jobs per config when a step explores
  int confirm_rounds = 3;       // when a step confirms a change against the incumbent
  bool show_progress = false;   // on standard error (always when it is a terminal)
};

// The samples of several configs measured together.
struct Trial {
  std::vector<Figures> figures;       // per config, pooled over rounds and probes
  std::vector<std::string> failures;  // per config: how its first failed job ended, or ""
  bool failed(std::size_t config) const { return !failures[config].empty(); }
};

class Session {
 public:
  Session(Measurer& measurer, SessionSettings settings);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs every probe under every config, `rounds` times: in round r the
  // configs go in an order rotated by r, probe by probe, so that a drift of
  // the machine falls on all of them alike. A config whose job fails runs
  // no more jobs; its failure is kept.
  Trial interleave(const std::vector<Config>& configs, const std::vector<Probe>& probes, int rounds);

  const SessionSettings& settings() const { return settings_; }
  double spent() const { return measurer_.spent(); }
  double budget_left() const { return settings_.budget_seconds - spent(); }

  // The progress line's step ("3/17 eager_limit: crossover of eager and
  // rendezvous") and how much of the budget the steps after it may take.
  void begin_step(int index, int count, const std::string& what);
  // A line that stays (a decision, a failure).
  void note(const std::string& line);

 private:
  void draw(const std::string& job);
  void clear();

  Measurer& measurer_;
  SessionSettings settings_;
  bool shown_, tty_;
  bool line_open_ = false;
  std::string step_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace mpf::tune::search
