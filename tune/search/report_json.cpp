#include "common/version.hpp"
#include "tune/search/report.hpp"

namespace mpf::tune::search {
namespace {

nlohmann::json summary_json(const bench::Summary& s) {
  return {{"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"min", s.min}, {"max", s.max}};
}

nlohmann::json curve_json(const Curve& c) {
  nlohmann::json points = nlohmann::json::array();
  for (const CurvePoint& p : c.points) {
    points.push_back({{"x", p.x}, {"position", p.position}, {"value", summary_json(p.y)}});
  }
  return {{"title", c.title}, {"unit", c.unit}, {"higher_is_better", c.higher_is_better}, {"points", points}};
}

nlohmann::json point_json(const PointVerdict& v) {
  return {{"kernel", v.key.kernel},
          {"op", v.key.op},
          {"np", v.key.np},
          {"bytes", v.key.bytes ? nlohmann::json(*v.key.bytes) : nlohmann::json(nullptr)},
          {"unit", v.unit},
          {"higher_is_better", v.higher_is_better},
          {"before", summary_json(v.incumbent)},
          {"after", summary_json(v.candidate)},
          {"ratio", v.ratio},
          {"verdict", to_string(v.verdict)}};
}

nlohmann::json decision_json(const Decision& d) {
  nlohmann::json points = nlohmann::json::array();
  for (const PointVerdict& v : d.points) points.push_back(point_json(v));
  return {{"geomean_ratio", d.geomean_ratio}, {"better", d.better}, {"worse", d.worse}, {"points", points}};
}

nlohmann::json choice_json(const Choice& c) {
  const Dimension& d = *c.dimension;
  nlohmann::json j = {{"name", d.tunable},
                      {"group", d.group},
                      {"method", to_string(d.method)},
                      {"question", d.question},
                      {"candidates", d.candidates},
                      {"default", c.default_value},
                      {"before", c.before},
                      {"chosen", c.chosen},
                      {"changed", c.changed() && !c.reverted},
                      {"skipped", c.skipped},
                      {"why", c.why},
                      {"reverted", c.reverted},
                      {"seconds", c.seconds}};
  if (c.reverted) j["revert_reason"] = c.revert_reason;
  if (c.memory_before && c.memory_chosen) {
    j["memory"] = {{"before_bytes", *c.memory_before},
                   {"chosen_bytes", *c.memory_chosen},
                   {"saved_bytes", *c.memory_before - *c.memory_chosen},
                   {"what", d.memory_note}};
  }
  if (c.confirmation) j["confirmation"] = decision_json(*c.confirmation);
  nlohmann::json curves = nlohmann::json::array();
  for (const Curve& k : c.curves) curves.push_back(curve_json(k));
  j["curves"] = curves;
  return j;
}

}  // namespace

nlohmann::json json_report(const SearchReport& r) {
  const SearchOutcome& o = r.outcome;
  nlohmann::json tunables = nlohmann::json::array();
  for (const Choice& c : o.choices) tunables.push_back(choice_json(c));
  nlohmann::json chosen = nlohmann::json::object();
  for (const auto& [name, value] : o.chosen) chosen[name] = value;
  const Verification& v = o.verification;
  nlohmann::json verification = {{"ran", v.ran},
                                 {"note", v.note},
                                 {"passes", v.passes},
                                 {"reverted", v.reverted},
                                 {"not_reproduced", v.not_reproduced}};
  if (v.ran) verification["table"] = decision_json(v.table);
  return {
      {"report", "mpftune-search"},
      {"format_version", 1},
      {"mpf_version", std::string(common::kVersion)},
      {"command_line", r.options->command_line},
      {"machine", r.machine},
      {"started", r.started},
      {"finished", r.finished},
      {"status", o.interrupted ? "interrupted" : "finished"},
      {"quick", r.options->quick},
      {"budget_seconds", r.options->budget_seconds()},
      {"job_seconds", o.seconds},
      {"wall_seconds", r.wall_seconds},
      {"replayed_jobs", r.replayed_jobs},
      {"process_counts", {{"pair", r.np.pair}, {"per_cpu", r.np.per_cpu}, {"oversubscribed", r.np.oversubscribed()}}},
      {"tunables", tunables},
      {"chosen", chosen},
      {"verification", verification},
      {"tuning_file", r.tuning_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.tuning_file)},
      {"tuning_note", r.tuning_note},
      {"application", r.options->app.empty() ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"command", r.options->app}, {"np", r.options->app_np}}}};
}

}  // namespace mpf::tune::search
