// The progress display of a long benchmark, on standard error: one line
// rewritten in place on a terminal (or one line per run with --progress when
// standard error is not one), saying which run is going, how many are done
// and about how long the rest will take. Runs of the same kind in an earlier
// repetition predict the later ones; until there is one, the average does.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace mpf::tune::bench {

class Progress {
 public:
  // Shown when `forced` or when standard error is a terminal. `kinds` has
  // one entry per run to come, naming its kind.
  Progress(bool forced, const std::vector<std::string>& kinds);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A run starts: `what` describes it, `kind` groups runs that take alike.
  void start(const std::string& what, const std::string& kind);
  void finish_run(double seconds);
  // A message that must not be overwritten (a failure, a skipped kernel).
  void note(const std::string& message);
  bool shown() const { return shown_; }

 private:
  void draw(const std::string& what);
  void clear();

  bool shown_, tty_;
  int total_, done_ = 0;
  std::string kind_;
  double spent_ = 0;
  std::map<std::string, double> seconds_by_kind_;
  std::map<std::string, int> remaining_by_kind_;  // runs not finished yet
  std::chrono::steady_clock::time_point t0_;
  bool line_open_ = false;
};

std::string format_duration(double seconds);

}  // namespace mpf::tune::bench
