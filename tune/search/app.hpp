// mpftune --app "COMMAND" -n N: the same search for one application's run
// time instead of the kernels. Each job is the whole application under
// mpfrun, timed from start to exit; every tunable of the search space is a
// choice among a few of its values; the verification runs the application
// with the defaults and with the values chosen. What it writes is an
// application tuning file, for `mpfrun --tuning FILE` on that application.
#pragma once

#include <string>
#include <vector>

#include "tune/search/measure.hpp"
#include "tune/search/space.hpp"

namespace mpf::tune::search {

// The point of an application's jobs: kernel "app", its rank count, no size.
inline constexpr const char* kAppKernel = "app";

class AppMeasurer : public Measurer {
 public:
  // `command` runs with /bin/sh -c under mpfrun on each rank.
  AppMeasurer(std::string mpfrun, std::string command, double timeout);
  Figures run(const Config& config, const Probe& probe) override;
  double spent() const override { return spent_; }

 private:
  std::string mpfrun_, command_;
  double timeout_;
  double spent_ = 0;
};

// Every dimension of `space` as a choice among at most four of its values
// (the default among them), judged by the application's run time.
std::vector<Dimension> app_space(const std::vector<Dimension>& space, int np);

}  // namespace mpf::tune::search
