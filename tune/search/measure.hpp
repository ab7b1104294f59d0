// What the tunable search measures, and under which values:
//   Config    the tunables a job runs with, by name (as `mpfrun --set` takes
//             them); a tunable left out keeps its default
//   Probe     one job: a kernel at a process count, with the sizes and
//             operations the question needs (never the whole kernel)
//   Figures   what one job (or several, pooled) gave: samples per point
//   Measurer  what runs a probe: mpfrun (MpfrunMeasurer), the journal that
//             replays a run for --resume, or the cost model of the tests
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tune/bench/results.hpp"

namespace mpf::tune::search {

using bench::PointKey;

// Tunable name -> value text. Ordered, so that equal configs print alike.
using Config = std::map<std::string, std::string>;

// "eager_limit=32KiB ring_slots=64", or "defaults" for the empty config.
std::string describe(const Config& config);

// `base` with `name` set to `value`.
Config with(Config base, const std::string& name, const std::string& value);

struct Probe {
  std::string kernel;
  int np = 2;
  std::vector<long> sizes{};        // empty: the kernel's own (its --quick list under --quick)
  std::vector<std::string> ops{};   // empty: all its operations
  std::vector<std::string> args{};  // further kernel options, e.g. {"--messages", "64"}

  // The kernel's options for this probe (--sizes, --ops and args).
  std::vector<std::string> kernel_args() const;
  // "pingpong np=2 sizes=1K,2K ops=- args=": names the probe in the journal.
  std::string key() const;
};

// The samples of one point, from one job or pooled over several.
struct Figure {
  std::string unit;
  bool higher_is_better = false;
  std::vector<double> samples{};
  // The median of each job's samples: how much jobs differ, which the
  // samples of one job (batches a few ms apart) do not show.
  std::vector<double> job_medians{};
};

// A figure of one job: its samples and their median as its job median.
Figure one_job(std::string unit, bool higher_is_better, std::vector<double> samples);
using Figures = std::map<PointKey, Figure>;

// "pingpong 32K np 2", "collectives allreduce 4K np 8", "token_ring np 64".
std::string point_name(const PointKey& key);

// Appends b's samples to a's, point by point.
void pool(Figures& into, const Figures& more);

struct MeasureError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Ctrl-C or SIGTERM: the search stops where it is, keeping what it measured.
struct Interrupted {};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // One job of `probe` under `config`: its figures. Throws MeasureError,
  // saying how the job ended, when it failed, and Interrupted when the
  // user stopped mpftune.
  virtual Figures run(const Config& config, const Probe& probe) = 0;
  // Seconds of jobs so far, the ones a resumed search replays included:
  // what --budget counts, the same in a run and in its resumption.
  virtual double spent() const = 0;
};

}  // namespace mpf::tune::search
