// What the search tunes, in the order it tunes it, and how each tunable is
// judged: the search space as a table. A tunable joins the search with one
// Dimension here; the methods (methods.hpp) know nothing of particular
// tunables.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tune/search/measure.hpp"

namespace mpf::tune::search {

enum class Method {
  // A threshold between two protocols: below it (at or below) one, above
  // it the other. Both protocols' curves are measured, coarse then fine
  // where they cross, and the threshold goes where they cross.
  crossover,
  // The best of a few values, all measured interleaved with the incumbent.
  choice,
  // A buffer or a count: the smallest value whose figures stay within noise
  // of the largest ("unlimited") one.
  smallest,
};

const char* to_string(Method method);

struct Dimension {
  std::string tunable;
  std::string group;  // "point-to-point", "buffers", "waiting", "collectives", "one-sided"
  Method method = Method::choice;
  std::string question;  // what is being decided, for the progress line and the report
  // The values tried, as `--set` takes them; ascending for crossover and
  // smallest. For a crossover they are also the message sizes measured.
  std::vector<std::string> candidates{};
  // crossover: the values that put every measured size on the lower
  // protocol (`below`) or on the upper one (`above`)...
  std::string all_below{}, all_above{};
  // ... and which sizes the threshold itself gets: true when a message of
  // exactly the threshold takes the upper protocol (coll_single_copy: "the
  // smallest ... that ranks read straight"), false when it takes the lower
  // one (eager_limit: "the largest message copied through ...").
  bool threshold_is_above = false;
  // crossover: where the protocols tie, the lower threshold (it saves
  // memory) rather than the higher one.
  bool prefer_low = false;
  // The jobs that judge it, given the values chosen so far. A crossover's
  // probes get their sizes from the search.
  std::function<std::vector<Probe>(const Config& current)> probes{};
  // Bytes per rank a value costs, when it is a memory size; none otherwise.
  std::function<std::optional<std::int64_t>(const std::string& value, const Config& current)> memory{};
  std::string memory_note{};  // what the bytes are: "per rank", "per rank, in a job of 64 ranks"
};

// The process counts that matter on a machine of `cpus` CPUs: a pair, one
// rank per CPU, and 4 and 32 ranks per CPU (under --quick, 32 is left out).
struct ProcessCounts {
  int pair = 2, per_cpu = 2, over4 = 8, over32 = 64;
  bool quick = false;
  std::vector<int> oversubscribed() const;  // over4, and over32 unless quick
};
ProcessCounts process_counts(int cpus, bool quick);

// The search space for this machine, in search order: each later dimension
// may depend on the values chosen for earlier ones (the eager limit on the
// rendezvous mode; eager cells and the unexpected pool on the eager limit).
// `kernels` are the kernels this toolkit build has; a dimension whose
// kernels are all missing is left out.
std::vector<Dimension> search_space(const ProcessCounts& np, bool quick, const std::vector<std::string>& kernels);

// The numeric value of a tunable's text ("16KiB" -> 16384), as the toolkit
// parses it; throws common::TunableError when it is none.
std::int64_t numeric_value(const std::string& tunable, const std::string& text);
// A number written as the tunable's kind writes it (sizes with suffixes).
std::string value_text(const std::string& tunable, std::int64_t value);
// Whether two texts are the same value of the tunable ("16KiB", "16384").
bool same_value(const std::string& tunable, const std::string& a, const std::string& b);
// The tunable's default, as text.
std::string default_text(const std::string& tunable);
// The value `config` gives the tunable, or its default.
std::string current_text(const Config& config, const std::string& tunable);

}  // namespace mpf::tune::search
