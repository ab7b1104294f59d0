#include "tune/bench/gnuplot.hpp"

#include "common/child_process.hpp"

namespace mpf::tune::bench {

namespace {
constexpr double kGnuplotTimeout = 120;
}

std::optional<GnuplotRun> prepare_plots(const std::string& dir, std::vector<std::string>& problems) {
  GnuplotRun run{.gnuplot = common::find_in_path("gnuplot"), .data = std::filesystem::path(dir) / "plot-data"};
  if (run.gnuplot.empty()) {
    problems.push_back("no plots: gnuplot is not installed (Debian package gnuplot-nox)");
    return std::nullopt;
  }
  std::error_code ec;
  std::filesystem::create_directories(run.data, ec);
  if (ec) {
    problems.push_back("no plots: cannot create " + run.data.string() + ": " + ec.message());
    return std::nullopt;
  }
  return run;
}

bool run_gnuplot(const GnuplotRun& run, const std::filesystem::path& script, std::vector<std::string>& problems) {
  const common::ProcessResult result = common::run_process({run.gnuplot, script.string()}, kGnuplotTimeout);
  if (result.ok()) return true;
  problems.push_back("gnuplot failed on " + script.string() + " (" + result.how_it_ended(kGnuplotTimeout) +
                     "): " + result.err.substr(0, 400));
  return false;
}

std::string gnuplot_quoted(const std::string& text) {
  std::string q = "'";
  for (const char c : text) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

}  // namespace mpf::tune::bench
