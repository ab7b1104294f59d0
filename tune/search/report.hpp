// The reports of a search: JSON (schema share/schemas/mpftune-search.schema.json),
// Markdown and PNG plots with gnuplot. Each tunable's default, chosen value
// and why, with the curves measured; the verification, kernel by kernel;
// what was reverted; how long it took.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune/search/options.hpp"
#include "tune/search/search.hpp"
#include "tune/search/space.hpp"

namespace mpf::tune::search {

struct SearchReport {
  const Options* options = nullptr;
  nlohmann::json machine;  // bench::describe_machine()
  std::string started, finished;
  double wall_seconds = 0;
  ProcessCounts np;
  SearchOutcome outcome;
  std::string tuning_file;  // written to; empty when nothing was written
  std::string tuning_note;  // why nothing was written, or what was
  int replayed_jobs = 0;    // answered from the journal (--resume)
};

nlohmann::json json_report(const SearchReport& report);
std::string markdown_report(const SearchReport& report, const std::vector<std::string>& plots);
// One PNG per tunable with curves, into `dir`; returns the files written
// (relative to dir) and, in `problems`, why some could not be.
std::vector<std::string> write_plots(const SearchReport& report, const std::string& dir,
                                     std::vector<std::string>& problems);
// The few lines printed at the end: each change, the reverts, the file written.
std::string summary_text(const SearchReport& report);

}  // namespace mpf::tune::search
