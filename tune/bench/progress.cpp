#include "tune/bench/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace mpf::tune::bench {

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  }
  return text;
}

Progress::Progress(bool forced, const std::vector<std::string>& kinds)
    : shown_(forced || ::isatty(STDERR_FILENO) == 1),
      tty_(::isatty(STDERR_FILENO) == 1),
      total_(static_cast<int>(kinds.size())),
      t0_(std::chrono::steady_clock::now()) {
  for (const std::string& k : kinds) ++remaining_by_kind_[k];
}

Progress::~Progress() { clear(); }

void Progress::clear() {
  if (line_open_) std::fputs("\r\033[K", stderr);
  line_open_ = false;
}

void Progress::start(const std::string& what, const std::string& kind) {
  kind_ = kind;
  draw(what);
}

void Progress::draw(const std::string& what) {
  if (!shown_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::string eta;
  if (done_ > 0) {
    // The runs still to finish: one of a kind seen before takes what the
    // last of that kind took, another the average of all runs so far.
    const double average = spent_ / done_;
    double left = 0;
    for (const auto& [k, n] : remaining_by_kind_) {
      const auto seen = seconds_by_kind_.find(k);
      left += n * (seen != seconds_by_kind_.end() ? seen->second : average);
    }
    eta = ", about " + format_duration(left) + " left";
  }
  char line[512];
  std::snprintf(line, sizeof line, "mpftune: [%d/%d] %s (%s elapsed%s)", done_ + 1, total_, what.c_str(),
                format_duration(elapsed).c_str(), eta.c_str());
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line);
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

void Progress::finish_run(double seconds) {
  ++done_;
  spent_ += seconds;
  seconds_by_kind_[kind_] = seconds;
  if (auto it = remaining_by_kind_.find(kind_); it != remaining_by_kind_.end() && it->second > 0) --it->second;
}

void Progress::note(const std::string& message) {
  clear();
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
}

}  // namespace mpf::tune::bench
