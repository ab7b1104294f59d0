// The JSON report of `mpfrun --report FILE.json` (schema:
// share/schemas/mpfrun-report.schema.json): the job, the tunables in effect,
// and per rank its pid, how it ended, its wall time and its counters.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/tunables.hpp"
#include "launcher/job.hpp"
#include "launcher/options.hpp"

namespace mpf::launcher {

nlohmann::json job_report(const Options& options, const common::Tunables& tunables, const JobRecord& job);

// Writes the report; throws std::runtime_error naming the file on failure.
void write_report(const std::string& path, const nlohmann::json& report);

}  // namespace mpf::launcher
