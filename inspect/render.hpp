// The text view of mpfinspect, made from the same JSON as --json.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace mpf::inspect {

std::string render_job_list(const nlohmann::json& jobs);
// All ranks, or only `rank` (with its tunables too).
std::string render_job(const nlohmann::json& job, std::optional<std::uint32_t> rank);
// "deadlocked: ..." or "not deadlocked: ...", one line per finding.
std::string render_deadlock(const nlohmann::json& analysis);
// The job (or `rank`) and the deadlock analysis below it: what --watch and
// mpfrun's --timeout show.
std::string render_job_and_deadlock(const nlohmann::json& job, std::optional<std::uint32_t> rank);

}  // namespace mpf::inspect
