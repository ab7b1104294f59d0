// mpfrun: starts a parallel job, wires it up, watches it, cleans up after it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <exception>
#include <vector>

#include "coll/rules.hpp"
#include "common/tunables.hpp"
#include "job/run_registry.hpp"
#include "launcher/job_runner.hpp"
#include "launcher/options.hpp"
#include "launcher/report.hpp"
#include "launcher/srun_launch.hpp"

extern char** environ;

namespace {

constexpr int kUsageStatus = 2;
constexpr int kInternalStatus = 1;

// If mpfrun was started with a standard descriptor closed, the first file it
// opens would take that number and ranks would write into it.
void ensure_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  }
}

mpf::common::Tunables resolve_tunables(const mpf::launcher::Options& o) {
  std::vector<std::string> sets;
  if (!o.tuning_file.empty()) sets.push_back("tuning_file=" + o.tuning_file);
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  return mpf::common::Tunables::resolve(environ, sets);
}

}  // namespace

int main(int argc, char** argv) {
  ensure_standard_descriptors();
  using namespace mpf::launcher;
  Options options;
  mpf::common::Tunables tunables = mpf::common::Tunables::defaults();
  try {
    ParseResult parsed = parse_command_line(argc, argv);
    if (!parsed.options) return parsed.exit_code;
    options = std::move(*parsed.options);
    tunables = resolve_tunables(options);
    // The collective rules are checked now, not by every rank at start.
    mpf::coll::rules_from(tunables);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mpfrun: %s\n", e.what());
    return kUsageStatus;
  } catch (const mpf::common::TunableError& e) {
    std::fprintf(stderr, "mpfrun: %s\n", e.what());
    return kUsageStatus;
  }
  // Printed here, once for the job: the ranks' copies of the table carry no warnings.
  for (const std::string& warning : tunables.warnings()) {
    std::fprintf(stderr, "mpfrun: warning: %s\n", warning.c_str());
  }

  if (options.list_params) {
    std::fputs(tunables.table_text().c_str(), stdout);
    return 0;
  }
  if (options.cleanup) {
    mpf::job::RunRegistry(mpf::common::resolved_run_dir(tunables)).clean_dead_and_report("mpfrun");
    return 0;
  }

  if (!options.report_path.empty()) {
    // Found out now, not after the job has run.
    const std::filesystem::path report(options.report_path);
    const std::string dir = report.parent_path().empty() ? "." : report.parent_path().string();
    if (::access(dir.c_str(), W_OK) != 0 || (::access(report.c_str(), F_OK) == 0 && ::access(report.c_str(), W_OK) != 0)) {
      std::fprintf(stderr, "mpfrun: --report %s: cannot be written (%s)\n", options.report_path.c_str(),
                   std::strerror(errno));
      return kUsageStatus;
    }
  }

  JobRecord job;
  int status;
  try {
    // Inside a Slurm allocation of several nodes, srun starts the ranks.
    status = launches_through_srun(options) ? run_through_srun(options, tunables, job)
                                            : run_job(options, tunables, job);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mpfrun: %s\n", e.what());
    return kUsageStatus;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpfrun: %s\n", e.what());
    return kInternalStatus;
  }
  if (!options.report_path.empty()) {
    try {
      write_report(options.report_path, job_report(options, tunables, job));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpfrun: %s\n", e.what());
      if (status == 0) status = kInternalStatus;
    }
  }
  return status;
}
