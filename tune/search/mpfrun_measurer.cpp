#include "tune/search/mpfrun_measurer.hpp"

#include "common/child_process.hpp"
#include "tune/bench/runner.hpp"

namespace mpf::tune::search {

std::vector<std::string> set_options(const Config& config) {
  std::vector<std::string> out = {"--set", "tuning_file="};
  for (const auto& [name, value] : config) out.insert(out.end(), {"--set", name + "=" + value});
  return out;
}

MpfrunMeasurer::MpfrunMeasurer(bench::Implementation toolkit, bench::Options kernel_options)
    : toolkit_(std::move(toolkit)), options_(std::move(kernel_options)) {}

Figures MpfrunMeasurer::run(const Config& config, const Probe& probe) {
  if (toolkit_.kernels.count(probe.kernel) == 0) {
    throw MeasureError("kernel " + probe.kernel + " is not built for this toolkit");
  }
  bench::Implementation impl = toolkit_;
  impl.launcher_options = set_options(config);
  bench::RunRecord run;
  run.implementation = impl.id;
  run.kernel = probe.kernel;
  run.np = probe.np;
  run.binding = bench::resolve_binding(options_.bind_to, probe.np);
  std::vector<bench::TaggedMeasurement> measured;
  bench::run_one(options_, impl, run, probe.kernel_args(), measured);
  spent_ += run.seconds;
  if (common::interrupted()) throw Interrupted{};
  if (!run.complete()) throw MeasureError(run.message + " (" + common::shell_words(run.command) + ")");
  Figures out;
  for (const bench::TaggedMeasurement& t : measured) {
    const bench::Measurement& m = t.measurement;
    out[PointKey{m.kernel, m.op, m.np, m.bytes}] = one_job(m.unit, m.higher_is_better, m.samples);
  }
  if (out.empty()) throw MeasureError("the job printed no measurement (" + common::shell_words(run.command) + ")");
  return out;
}

}  // namespace mpf::tune::search
