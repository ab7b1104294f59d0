// What the plots of `mpftune bench` and of the search share: where their
// data and script go (DIR/plot-data, kept so a plot can be redrawn by
// hand), gnuplot's quoting, and running the script.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mpf::tune::bench {

struct GnuplotRun {
  std::string gnuplot;         // the program
  std::filesystem::path data;  // DIR/plot-data, created
};

// gnuplot in PATH and DIR/plot-data created; nullopt (with the reason in
// `problems`) when either is not possible.
std::optional<GnuplotRun> prepare_plots(const std::string& dir, std::vector<std::string>& problems);

// Runs `script`; false (with gnuplot's complaint in `problems`) when it fails.
bool run_gnuplot(const GnuplotRun& run, const std::filesystem::path& script, std::vector<std::string>& problems);

// A gnuplot single-quoted string ('it''s').
std::string gnuplot_quoted(const std::string& text);

}  // namespace mpf::tune::bench
