// The journal of a search: every job it ran, appended to DIR/journal.jsonl
// as it ends, so that a search stopped by Ctrl-C (or by the end of a
// session) can be resumed with --resume. A resumed search runs from the
// start again, and the journal answers each job it had already run with
// what that job gave: the search is deterministic given its measurements,
// so it takes the same decisions and goes on measuring where it stopped.
// The budget counts the replayed jobs' seconds too.
//
// The first line says what the search was (toolkit version, machine,
// options); a journal of another search is refused, naming what differs.
#pragma once

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tune/search/measure.hpp"

namespace mpf::tune::search {

struct JournalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class JournalMeasurer : public Measurer {
 public:
  // Starts a new journal at `path` with `header`, or (resume) reads the
  // one there, which must have been started with an equal header.
  JournalMeasurer(Measurer& inner, const std::string& path, const nlohmann::json& header, bool resume);
  Figures run(const Config& config, const Probe& probe) override;
  double spent() const override { return replayed_seconds_ + inner_.spent(); }
  int replayed() const { return replayed_; }
  int recorded() const { return static_cast<int>(entries_.size()); }

 private:
  struct Entry {
    double seconds = 0;
    std::string failure;  // the job failed: how
    Figures figures;
  };
  Measurer& inner_;
  std::string path_;
  std::ofstream out_;
  std::map<std::pair<std::string, int>, Entry> entries_;  // (config and probe, occurrence) -> what it gave
  std::map<std::string, int> asked_;                      // occurrences asked for so far
  double replayed_seconds_ = 0;
  int replayed_ = 0;
};

}  // namespace mpf::tune::search
