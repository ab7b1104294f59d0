#include "launcher/report.hpp"

#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "coll/plan.hpp"
#include "common/version.hpp"
#include "shm/counters.hpp"

namespace mpf::launcher {
namespace {

// RFC 3339 UTC with milliseconds, e.g. "2026-11-21T14:03:12.345Z".
std::string utc_time(std::int64_t unix_ns) {
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1'000'000'000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(unix_ns / 1'000'000 % 1000));
  return buf;
}

// MPI_COMM_WORLD's collective plan, as its ranks built it: the rules in
// effect, in order, with the facts they were chosen for.
nlohmann::json world_plan(const common::Tunables& tunables, const JobRecord& job) {
  const auto nranks = static_cast<std::uint32_t>(job.ranks.size());
  const coll::JobFacts facts = coll::launch_facts(tunables, nranks, job.cpus);
  // Across virtual nodes the world's collectives go by messages (the
  // board, slots and cells are one node's).
  const coll::Plan plan = coll::Plan::build(coll::rules_from(tunables), facts,
                                            {.ranks = nranks, .world = true, .across_nodes = job.nodes > 1});
  nlohmann::json rules = nlohmann::json::array();
  for (const coll::Rule& rule : plan.as_rules()) rules.push_back(coll::to_json(rule));
  return {{"communicator", "MPI_COMM_WORLD"},
          {"ranks", nranks},
          {"ranks_per_cpu", facts.ranks_per_cpu()},
          {"board", plan.on_board()},
          {"rules", std::move(rules)}};
}

}  // namespace

nlohmann::json job_report(const Options& options, const common::Tunables& tunables, const JobRecord& job) {
  nlohmann::json apps = nlohmann::json::array();
  for (const AppContext& a : options.apps) {
    apps.push_back({{"program", a.program}, {"path", a.program_path}, {"args", a.args}, {"ranks", a.nranks}});
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankRecord& r : job.ranks) {
    nlohmann::json rank = {
        {"rank", r.rank},
        {"pid", r.pid},
        {"host", job.host},
        {"node", r.rank < job.node_of.size() ? job.node_of[r.rank] : job.host},
        {"program", options.apps[r.app].program},
        {"exit_code", r.exit_code >= 0 ? nlohmann::json(r.exit_code) : nlohmann::json(nullptr)},
        {"signal", r.term_signal > 0 ? nlohmann::json(r.term_signal) : nlohmann::json(nullptr)},
        {"signal_name", r.term_signal > 0 ? nlohmann::json(::strsignal(r.term_signal)) : nlohmann::json(nullptr)},
        {"state", r.state_known ? shm::to_string(r.final_state) : "unknown"},
        {"wall_seconds", r.end_ns > r.start_ns ? static_cast<double>(r.end_ns - r.start_ns) * 1e-9 : 0.0},
        {"counters", nlohmann::json::object()}};
    for (std::size_t i = 0; i < r.counters.size(); ++i) rank["counters"][std::string(shm::kCounterFields[i].name)] = r.counters[i];
    ranks.push_back(std::move(rank));
  }
  return {{"report", "mpfrun"},
          {"format_version", 1},
          {"mpf_version", std::string(common::kVersion)},
          {"job",
           {{"jobid", job.jobid},
            {"command", options.command_line},
            {"host", job.host},
            {"ranks", job.ranks.size()},
            {"apps", apps},
            {"start", utc_time(job.start_unix_ns)},
            {"end", utc_time(job.end_unix_ns)},
            {"wall_seconds", static_cast<double>(job.end_unix_ns - job.start_unix_ns) * 1e-9},
            {"exit_status", job.exit_status},
            {"outcome", job.outcome},
            {"segment_bytes", job.segment_bytes},
            {"segment_resident_bytes", job.segment_resident_bytes},
            {"nodes", job.nodes},
            {"transports", job.nodes > 1 ? nlohmann::json::array({"shared memory", "network"})
                                         : nlohmann::json::array({"shared memory"})},
            {"network_provider", job.nodes > 1 ? nlohmann::json(tunables.text(common::Tunable::net_provider))
                                               : nlohmann::json(nullptr)}}},
          {"tunables", tunables.to_json()},
          {"collective_plan", world_plan(tunables, job)},
          {"ranks", ranks}};
}

void write_report(const std::string& path, const nlohmann::json& report) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error("--report " + path + ": cannot be written (" + std::strerror(errno) + ")");
  out << report.dump(2) << '\n';
  if (!out) throw std::runtime_error("--report " + path + ": write failed");
}

}  // namespace mpf::launcher
