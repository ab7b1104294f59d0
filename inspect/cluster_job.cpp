#include "inspect/cluster_job.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include "common/child_process.hpp"
#include "inspect/job_state.hpp"

namespace mpf::inspect {
namespace {

bool is_slurm_id(const std::string& text) {
  static const std::regex id(R"(^[0-9]+(\.[0-9]+)?$)");
  return std::regex_match(text, id);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

// The last lines of what a command printed on its standard error, for a
// message.
std::string tail_of(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  constexpr std::size_t kKept = 600;
  if (t.size() > kKept) t = "..." + t.substr(t.size() - kKept);
  for (char& c : t) {
    if (c == '\n') c = ';';
  }
  return t;
}

// The nodes of Slurm job `job` ("%D %N": how many, and their list).
std::pair<int, std::string> allocation_nodes(const std::string& job, double timeout) {
  const common::ProcessResult r = common::run_process({"squeue", "-h", "-o", "%D %N", "--jobs=" + job}, timeout);
  if (!r.ok()) {
    throw InspectError("cannot ask Slurm for job " + job + "'s nodes: squeue " + r.how_it_ended(timeout) +
                       (r.err.empty() ? std::string() : ": " + tail_of(r.err)));
  }
  int count = 0;
  char list[4096] = {};
  if (std::sscanf(r.out.c_str(), "%d %4095s", &count, list) != 2 || count <= 0) return {0, ""};
  return {count, list};
}

// Every node's parts of the job, read there by this program (--node-parts)
// in one srun step beside the job's own; each line of their output comes
// back as "TASK: text".
nlohmann::json gather_through_srun(const std::string& job, const std::string& selector, const SlurmReach& reach) {
  int count = reach.node_count;
  std::string nodelist = reach.nodelist;
  if (nodelist.empty() || count <= 0) {
    std::tie(count, nodelist) = allocation_nodes(job, reach.timeout_seconds);
    if (count == 0) throw InspectError("Slurm has no running job " + job);
  }
  // One task on every node, whatever the allocation's own task count.
  std::vector<std::string> argv = {"srun",
                                   "--jobid=" + job,
                                   "--overlap",
                                   "--quiet",
                                   "--label",
                                   "--nodelist=" + nodelist,
                                   "--nodes=" + std::to_string(count),
                                   "--ntasks=" + std::to_string(count),
                                   "--ntasks-per-node=1",
                                   reach.helper,
                                   "--node-parts",
                                   selector};
  const common::ProcessResult r = common::run_process(argv, reach.timeout_seconds);
  std::map<int, std::string> texts;
  static const std::regex labelled(R"(^\s*([0-9]+): (.*)$)");
  std::size_t start = 0;
  for (std::size_t nl; (nl = r.out.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = r.out.substr(start, nl - start);
    std::smatch m;
    if (std::regex_match(line, m, labelled)) texts[std::stoi(m[1])] += m[2];
  }
  nlohmann::json out = {{"nodes", nlohmann::json::array()}, {"problems", nlohmann::json::array()}};
  for (const auto& [task, text] : texts) {
    try {
      const nlohmann::json answer = nlohmann::json::parse(text);
      for (const auto& n : answer.at("nodes")) out["nodes"].push_back(n);
      for (const auto& p : answer.at("problems")) out["problems"].push_back(p);
    } catch (const nlohmann::json::exception& e) {
      out["problems"].push_back(
          {{"node", "task " + std::to_string(task)}, {"why", std::string("garbled answer: ") + e.what()}});
    }
  }
  if (!r.ok())
    out["srun"] = "srun " + r.how_it_ended(reach.timeout_seconds) + (r.err.empty() ? "" : ": " + tail_of(r.err));
  return out;
}

}  // namespace

bool selects(const std::string& selector, const job::JobEntry& e) {
  if (!e.is_node_part()) return false;
  if (e.jobid == selector || (!e.launch_tag.empty() && e.launch_tag == selector)) return true;
  return e.launcher == "srun" && e.jobid.rfind(selector + ".", 0) == 0;
}

nlohmann::json read_parts_here(const job::RunRegistry& registry, const std::string& selector, const std::string& node) {
  nlohmann::json out = {{"nodes", nlohmann::json::array()}, {"problems", nlohmann::json::array()}};
  for (const job::JobEntry& e : registry.list()) {
    if (!selects(selector, e) || (!node.empty() && e.host != node) || e.nodes.size() != 1) continue;
    if (!job::RunRegistry::alive(e)) {
      out["problems"].push_back({{"node", e.host},
                                 {"why", "its first rank (pid " + std::to_string(e.launcher_pid) +
                                             "), which holds the node's segment, has ended"}});
      continue;
    }
    try {
      nlohmann::json part = read_node_of_process(e.launcher_pid, e.nodes.front(), e.job_nodes.size() > 1);
      part["entry"] = job::to_json(e);
      out["nodes"].push_back(std::move(part));
    } catch (const InspectError& x) {
      out["problems"].push_back({{"node", e.host}, {"why", x.what()}});
    }
  }
  return out;
}

std::optional<nlohmann::json> read_launched_job(const job::RunRegistry& registry, const std::string& selector,
                                                const SlurmReach& reach) {
  nlohmann::json found = read_parts_here(registry, selector, "");
  std::map<std::string, nlohmann::json> parts;  // by node
  std::map<std::string, std::string> problems;  // by node
  std::set<std::string> ids;                    // the jobs `selector` names (one, unless a job has several steps)
  const auto take = [&](const nlohmann::json& answer) {
    for (const auto& n : answer.at("nodes")) {
      ids.insert(n.at("entry").at("jobid").get<std::string>());
      parts.emplace(n.at("name").get<std::string>(), n);
    }
    for (const auto& p : answer.at("problems"))
      problems.emplace(p.at("node").get<std::string>(), p.at("why").get<std::string>());
  };
  take(found);
  // The job's nodes, as its parts say.
  const auto job_nodes = [&] {
    std::vector<std::string> names;
    if (!parts.empty()) names = parts.begin()->second.at("entry").at("job_nodes").get<std::vector<std::string>>();
    return names;
  };
  const auto missing = [&] {
    std::vector<std::string> names;
    for (const std::string& n : job_nodes()) {
      if (parts.count(n) == 0) names.push_back(n);
    }
    return names;
  };
  std::string launcher, slurm_job = reach.slurm_job;
  if (!parts.empty()) {
    const nlohmann::json& entry = parts.begin()->second.at("entry");
    launcher = entry.at("launcher").get<std::string>();
    const std::string id = entry.at("jobid").get<std::string>();
    if (launcher == "srun") slurm_job = id.substr(0, id.find('.'));
  } else if (slurm_job.empty() && is_slurm_id(selector)) {
    slurm_job = selector.substr(0, selector.find('.'));
  }
  std::string unreached;  // why srun could not ask every node
  const bool slurm = !slurm_job.empty() && (launcher.empty() || launcher == "srun");
  if ((parts.empty() || !missing().empty()) && slurm) {
    if (common::find_in_path("srun").empty()) {
      unreached = "srun, which reads a Slurm job's other nodes, is not on PATH";
    } else {
      nlohmann::json answer;
      try {
        answer = gather_through_srun(slurm_job, selector, reach);
      } catch (const InspectError&) {
        // Slurm does not know the job (or cannot be asked): with nothing
        // of it here, there is no such job.
        if (parts.empty() && problems.empty()) return std::nullopt;
        throw;
      }
      take(answer);
      if (answer.contains("srun")) unreached = answer["srun"].get<std::string>();
    }
  }
  if (parts.empty()) {
    if (problems.empty() && unreached.empty()) return std::nullopt;
    std::string why;
    for (const auto& [node, what] : problems) why += (why.empty() ? "" : "; ") + ("node " + node + ": " + what);
    if (!unreached.empty()) why += (why.empty() ? "" : "; ") + unreached;
    throw InspectError("cannot read job " + selector + ": " + why);
  }
  if (ids.size() > 1) {
    throw InspectError("'" + selector + "' names several running jobs (" + joined({ids.begin(), ids.end()}) +
                       "): give the one to inspect");
  }
  const nlohmann::json entry = parts.begin()->second.at("entry");
  const std::string jobid = entry.at("jobid").get<std::string>();
  if (const std::vector<std::string> lost = missing(); !lost.empty()) {
    std::string why;
    for (const std::string& n : lost) {
      std::string what = problems.count(n) != 0 ? problems[n]
                         : !slurm ? "it is another machine, which mpfinspect reaches only for a job srun started; run "
                                    "mpfinspect there"
                         : !unreached.empty() ? unreached
                                              : "mpfinspect found no part of the job registered there";
      why += (why.empty() ? "" : "; ") + ("node " + n + ": " + what);
    }
    throw InspectError("job " + jobid + ": " + std::to_string(lost.size()) + " of its " +
                       std::to_string(job_nodes().size()) + " nodes could not be read (" + why + ")");
  }
  std::vector<nlohmann::json> nodes;
  for (const std::string& n : job_nodes()) nodes.push_back(parts.at(n));
  return assemble_job({{"jobid", jobid},
                       {"launcher", entry.at("launcher")},
                       {"host", job_nodes().front()},
                       {"command", entry.at("command")}},
                      nodes);
}

std::string this_program() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("mpfinspect");
}

}  // namespace mpf::inspect
