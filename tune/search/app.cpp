#include "tune/search/app.hpp"

#include <algorithm>

#include "common/child_process.hpp"
#include "tune/search/mpfrun_measurer.hpp"

namespace mpf::tune::search {

namespace {

// mpfrun stops a job at its --timeout and says what the ranks were doing;
// mpftune stops mpfrun this much later.
constexpr double kMpfrunMargin = 15;
constexpr std::size_t kAppValues = 4;

std::string last_line(const std::string& text) {
  std::string line;
  for (std::size_t end = text.size(); end > 0;) {
    const std::size_t start = text.rfind('\n', end - 1);
    line = text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
    if (!line.empty()) return line;
    if (start == std::string::npos) break;
    end = start;
  }
  return line;
}

}  // namespace

AppMeasurer::AppMeasurer(std::string mpfrun, std::string command, double timeout)
    : mpfrun_(std::move(mpfrun)), command_(std::move(command)), timeout_(timeout) {}

Figures AppMeasurer::run(const Config& config, const Probe& probe) {
  std::vector<std::string> argv = {mpfrun_};
  const std::vector<std::string> sets = set_options(config);
  argv.insert(argv.end(), sets.begin(), sets.end());
  argv.insert(argv.end(), {"--timeout", std::to_string(static_cast<long>(timeout_)), "-n", std::to_string(probe.np),
                           "/bin/sh", "-c", command_});
  const common::ProcessResult r = common::run_process(argv, timeout_ + kMpfrunMargin);
  spent_ += r.seconds;
  if (common::interrupted()) throw Interrupted{};
  if (!r.ok()) {
    const std::string why = last_line(r.err);
    throw MeasureError(r.how_it_ended(timeout_) + (why.empty() ? "" : ": " + why));
  }
  Figures out;
  out[PointKey{kAppKernel, "-", probe.np, std::nullopt}] = one_job("s", false, {r.seconds});
  return out;
}

std::vector<Dimension> app_space(const std::vector<Dimension>& space, int np) {
  std::vector<Dimension> out;
  for (const Dimension& d : space) {
    Dimension a = d;
    a.method = Method::choice;
    // At most kAppValues values spread over the range, the default among them.
    const std::string def = default_text(d.tunable);
    std::vector<std::string> values;
    const std::size_t n = d.candidates.size();
    for (std::size_t i = 0; i < kAppValues && n > 0; ++i) {
      const std::string& v = d.candidates[std::min(n - 1, i * (n - 1) / std::max<std::size_t>(1, kAppValues - 1))];
      if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    }
    bool has_default = false;
    for (const std::string& v : values) has_default = has_default || same_value(d.tunable, v, def);
    if (!has_default) values.push_back(def);
    a.candidates = values;
    a.question = d.question + " (for the application's run time)";
    a.probes = [np](const Config&) { return std::vector<Probe>{{.kernel = kAppKernel, .np = np}}; };
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace mpf::tune::search
