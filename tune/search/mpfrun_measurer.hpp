// The measurer of a real search: each probe is one job of the toolkit's
// kernel through mpfrun, with the config as `--set` options and no tuning
// file (so a search starts from the defaults whatever file is installed,
// and a bad one cannot spoil it).
#pragma once

#include "tune/bench/options.hpp"
#include "tune/bench/peers.hpp"
#include "tune/search/measure.hpp"

namespace mpf::tune::search {

class MpfrunMeasurer : public Measurer {
 public:
  // `kernel_options`: --quick, --reps and --rep-ms for every job, the
  // binding policy and the timeout.
  MpfrunMeasurer(bench::Implementation toolkit, bench::Options kernel_options);
  Figures run(const Config& config, const Probe& probe) override;
  double spent() const override { return spent_; }

 private:
  bench::Implementation toolkit_;
  bench::Options options_;
  double spent_ = 0;
};

// The mpfrun options that give a job `config` and no tuning file.
std::vector<std::string> set_options(const Config& config);

}  // namespace mpf::tune::search
