#include "job/run_registry.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/system_error.hpp"

namespace mpf::job {
namespace fs = std::filesystem;

nlohmann::json to_json(const JobEntry& e) {
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankEntry& r : e.ranks) ranks.push_back({{"rank", r.rank}, {"pid", r.pid}, {"program", r.program}});
  nlohmann::json out = {{"jobid", e.jobid},
                        {"launcher_pid", e.launcher_pid},
                        {"launcher_start_ticks", e.launcher_start_ticks},
                        {"segment_fd", e.segment_fd},
                        {"pmix_tmpdir", e.pmix_tmpdir},
                        {"host", e.host},
                        {"command", e.command},
                        {"start_unix_ms", e.start_unix_ms},
                        {"ranks", ranks}};
  if (e.is_node_part()) {
    out["launcher"] = e.launcher;
    out["job_nodes"] = e.job_nodes;
    out["job_ranks"] = e.job_ranks;
    if (!e.launch_tag.empty()) out["launch_tag"] = e.launch_tag;
  }
  if (!e.nodes.empty()) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const NodeEntry& n : e.nodes) nodes.push_back({{"name", n.name}, {"segment_fd", n.segment_fd}, {"ranks", n.ranks}});
    out["nodes"] = nodes;
  }
  return out;
}

JobEntry job_entry_from_json(const nlohmann::json& j) {
  JobEntry e;
  e.jobid = j.at("jobid").get<std::string>();
  e.launcher_pid = j.at("launcher_pid").get<pid_t>();
  e.launcher_start_ticks = j.at("launcher_start_ticks").get<std::uint64_t>();
  e.segment_fd = j.at("segment_fd").get<int>();
  e.pmix_tmpdir = j.at("pmix_tmpdir").get<std::string>();
  e.host = j.at("host").get<std::string>();
  e.command = j.at("command").get<std::vector<std::string>>();
  e.start_unix_ms = j.at("start_unix_ms").get<std::int64_t>();
  for (const auto& r : j.at("ranks")) {
    e.ranks.push_back({r.at("rank").get<std::uint32_t>(), r.at("pid").get<pid_t>(),
                       r.at("program").get<std::string>()});
  }
  if (j.contains("launcher")) {
    e.launcher = j.at("launcher").get<std::string>();
    e.job_nodes = j.at("job_nodes").get<std::vector<std::string>>();
    e.job_ranks = j.at("job_ranks").get<std::uint32_t>();
    e.launch_tag = j.value("launch_tag", "");
  }
  if (j.contains("nodes")) {
    for (const auto& n : j.at("nodes")) {
      e.nodes.push_back({n.at("name").get<std::string>(), n.at("segment_fd").get<int>(),
                         n.at("ranks").get<std::vector<std::uint32_t>>()});
    }
  }
  return e;
}

std::optional<std::uint64_t> process_start_ticks(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  // The command name (field 2) may contain spaces and parentheses: fields are
  // counted from the last ')'. starttime is field 22, the 20th after it.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  return std::stoull(field);
}

RunRegistry::RunRegistry(std::string directory) : directory_(std::move(directory)) {}

std::string RunRegistry::path_of(const std::string& file_name) const {
  return directory_ + "/" + file_name + ".json";
}

void RunRegistry::publish(const JobEntry& entry) const {
  const std::string name = entry.file_name();
  if (entry.jobid.empty() || name.find('/') != std::string::npos || name[0] == '.') {
    throw std::runtime_error("job id '" + name + "' is not a plain file name");
  }
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec) throw std::runtime_error("cannot create run directory " + directory_ + ": " + ec.message());
  ::chmod(directory_.c_str(), 0700);
  const std::string final_path = path_of(name);
  const std::string temp_path = final_path + ".tmp";
  {
    std::ofstream out(temp_path, std::ios::trunc);
    out << to_json(entry).dump(2) << '\n';
    if (!out) throw std::runtime_error("cannot write " + temp_path);
  }
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    throw std::runtime_error(common::system_error_text("rename " + temp_path, errno));
  }
}

void RunRegistry::remove(const JobEntry& entry) const {
  ::unlink(path_of(entry.file_name()).c_str());
}

std::vector<std::pair<std::string, JobEntry>> RunRegistry::list_files() const {
  std::vector<std::pair<std::string, JobEntry>> jobs;
  std::error_code ec;
  for (const auto& file : fs::directory_iterator(directory_, ec)) {
    if (file.path().extension() != ".json") continue;
    try {
      std::ifstream in(file.path());
      jobs.emplace_back(file.path().string(), job_entry_from_json(nlohmann::json::parse(in)));
    } catch (const std::exception&) {
      // A half-written or foreign file: not a job we can describe.
    }
  }
  return jobs;
}

std::vector<JobEntry> RunRegistry::list() const {
  std::vector<JobEntry> jobs;
  for (auto& [path, entry] : list_files()) jobs.push_back(std::move(entry));
  return jobs;
}

bool RunRegistry::alive(const JobEntry& entry) {
  if (::kill(entry.launcher_pid, 0) != 0 && errno == ESRCH) return false;
  const auto ticks = process_start_ticks(entry.launcher_pid);
  return ticks && *ticks == entry.launcher_start_ticks;
}

std::vector<JobEntry> RunRegistry::clean_dead() const {
  std::vector<JobEntry> cleaned;
  for (auto& [path, entry] : list_files()) {
    if (alive(entry)) continue;
    // Only directories the launcher made for PMIx are removed, whatever the
    // entry says, and only the entry's own file: a damaged entry must not be
    // able to delete anything else.
    const fs::path tmp(entry.pmix_tmpdir);
    if (tmp.filename().string().rfind("mpf-pmix-", 0) == 0) {
      std::error_code ec;
      fs::remove_all(tmp, ec);
    }
    ::unlink(path.c_str());
    cleaned.push_back(std::move(entry));
  }
  return cleaned;
}

void RunRegistry::clean_dead_parts_of(const std::string& host) const {
  for (const auto& [path, entry] : list_files()) {
    if (entry.is_node_part() && entry.host == host && !alive(entry)) ::unlink(path.c_str());
  }
}

void RunRegistry::clean_dead_and_report(const char* program) const {
  const std::vector<JobEntry> cleaned = clean_dead();
  for (const JobEntry& job : cleaned) {
    std::printf("%s: removed job %s (mpfrun pid %d, dead)\n", program, job.jobid.c_str(),
                static_cast<int>(job.launcher_pid));
  }
  std::printf("%s: %zu dead job%s cleaned in %s\n", program, cleaned.size(), cleaned.size() == 1 ? "" : "s",
              directory_.c_str());
}

}  // namespace mpf::job
