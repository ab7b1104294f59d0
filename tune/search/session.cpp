#include "tune/search/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "tune/bench/progress.hpp"

namespace mpf::tune::search {

Session::Session(Measurer& measurer, SessionSettings settings)
    : measurer_(measurer),
      settings_(settings),
      shown_(settings.show_progress || ::isatty(STDERR_FILENO) == 1),
      tty_(::isatty(STDERR_FILENO) == 1),
      t0_(std::chrono::steady_clock::now()) {}

Session::~Session() { clear(); }

void Session::clear() {
  if (line_open_) std::fputs("\r\033[K", stderr);
  line_open_ = false;
}

void Session::begin_step(int index, int count, const std::string& what) {
  step_ = "[" + std::to_string(index) + "/" + std::to_string(count) + "] " + what;
  draw("");
}

void Session::note(const std::string& line) {
  if (!shown_) return;
  clear();
  std::fprintf(stderr, "mpftune: %s\n", line.c_str());
  std::fflush(stderr);
}

void Session::draw(const std::string& job) {
  if (!shown_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const double left = std::max(0.0, budget_left());
  char line[640];
  std::snprintf(line, sizeof line, "mpftune: %s%s%s (%s elapsed, at most %s left)", step_.c_str(),
                job.empty() ? "" : ": ", job.c_str(), bench::format_duration(elapsed).c_str(),
                bench::format_duration(left).c_str());
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%.*s", 200, line);
    line_open_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

Trial Session::interleave(const std::vector<Config>& configs, const std::vector<Probe>& probes, int rounds) {
  Trial trial;
  trial.figures.resize(configs.size());
  trial.failures.resize(configs.size());
  const std::size_t n = configs.size();
  for (int round = 0; round < rounds; ++round) {
    for (const Probe& probe : probes) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = (i + static_cast<std::size_t>(round)) % n;
        if (trial.failed(c)) continue;
        draw(probe.kernel + " np=" + std::to_string(probe.np) + " with " + describe(configs[c]));
        try {
          pool(trial.figures[c], measurer_.run(configs[c], probe));
        } catch (const MeasureError& e) {
          trial.failures[c] = e.what();
          note(probe.kernel + " np=" + std::to_string(probe.np) + " with " + describe(configs[c]) +
               " failed: " + e.what());
        }
      }
    }
  }
  return trial;
}

}  // namespace mpf::tune::search
