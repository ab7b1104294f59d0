// The JSON report (--json FILE, or bench.json under --out), described by
// share/schemas/mpftune-bench.schema.json: settings, machine, MPIs, every
// run, every point's samples and statistics, and the comparison.
#include "common/version.hpp"
#include "tune/bench/report.hpp"

namespace mpf::tune::bench {
namespace {

constexpr int kFormatVersion = 1;

nlohmann::json bytes_json(const PointKey& key) { return key.bytes ? nlohmann::json(*key.bytes) : nlohmann::json(); }

}  // namespace

nlohmann::json json_report(const BenchReport& r) {
  const Options& o = *r.options;
  nlohmann::json j;
  j["report"] = "mpftune-bench";
  j["format_version"] = kFormatVersion;
  j["mpf_version"] = common::kVersion;
  j["command_line"] = o.command_line;
  j["started"] = r.started;
  j["finished"] = r.finished;
  j["duration_seconds"] = r.seconds;
  j["machine"] = r.machine;
  nlohmann::json kernels = nlohmann::json::array();
  for (const std::string& k : o.kernels) kernels.push_back(k);
  j["settings"] = {{"kernels", kernels},
                   {"np", o.process_counts()},
                   {"repeat", o.repetitions()},
                   {"reps", o.reps > 0 ? nlohmann::json(o.reps) : nlohmann::json()},
                   {"rep_ms", o.rep_ms > 0 ? nlohmann::json(o.rep_ms) : nlohmann::json()},
                   {"bind_to", o.bind_to},
                   {"timeout_seconds", o.timeout},
                   {"quick", o.quick},
                   {"compare", o.compare}};
  j["implementations"] = nlohmann::json::array();
  for (const Implementation& i : r.implementations) {
    j["implementations"].push_back({{"id", i.id},
                                    {"name", i.name},
                                    {"launcher", i.launcher},
                                    {"compiler", i.compiler},
                                    {"flags", i.flags},
                                    {"library", i.library},
                                    {"kernels", i.kernels},
                                    {"unavailable", i.unavailable}});
  }
  j["notes"] = r.notes;
  j["runs"] = nlohmann::json::array();
  for (const RunRecord& run : r.outcome.runs) {
    j["runs"].push_back({{"implementation", run.implementation},
                         {"kernel", run.kernel},
                         {"np", run.np},
                         {"repetition", run.repetition},
                         {"binding", run.binding},
                         {"status", run.status},
                         {"message", run.message},
                         {"seconds", run.seconds},
                         {"command", run.command}});
  }
  j["results"] = nlohmann::json::array();
  for (const PointKey& key : r.results.keys) {
    for (const Implementation& i : r.implementations) {
      const Series* s = r.results.find(i.id, key);
      if (s == nullptr) continue;
      const Summary& m = s->summary;
      j["results"].push_back({{"implementation", s->implementation},
                              {"kernel", key.kernel},
                              {"op", key.op},
                              {"np", key.np},
                              {"bytes", bytes_json(key)},
                              {"unit", s->unit},
                              {"better", s->higher_is_better ? "higher" : "lower"},
                              {"median", m.median},
                              {"q1", m.q1},
                              {"q3", m.q3},
                              {"min", m.min},
                              {"max", m.max},
                              {"relative_iqr", m.relative_iqr()},
                              {"warmup", s->warmup},
                              {"iters", s->iters},
                              {"run_medians", s->run_medians},
                              {"samples", s->samples}});
    }
  }
  j["comparison"] = nlohmann::json::array();
  for (const Comparison& c : r.results.comparisons) {
    j["comparison"].push_back({{"kernel", c.key.kernel},
                               {"op", c.key.op},
                               {"np", c.key.np},
                               {"bytes", bytes_json(c.key)},
                               {"unit", c.unit},
                               {"better", c.higher_is_better ? "higher" : "lower"},
                               {"toolkit_median", c.toolkit},
                               {"best_peer", c.best_peer},
                               {"best_peer_median", c.best},
                               {"ratio", c.ratio},
                               {"within_noise", c.within_noise},
                               {"ratios", c.ratios}});
  }
  return j;
}

}  // namespace mpf::tune::bench
