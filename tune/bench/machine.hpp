// The machine the numbers were measured on, for the JSON and the reports:
// a benchmark result means nothing without it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace mpf::tune::bench {

// hostname, cpu_model, logical_cpus, usable_cpus, hypervisor, memory_bytes,
// kernel, os, load_average (1, 5, 15 min) and date (UTC, ISO 8601).
nlohmann::json describe_machine();

// The current time as ISO 8601 UTC, e.g. 2026-11-21T16:29:03Z.
std::string utc_now();

// One line: "Intel Xeon @ 2.80GHz, 2 CPUs (virtual machine), Linux 6.1.0, Debian 12".
std::string machine_line(const nlohmann::json& machine);

}  // namespace mpf::tune::bench
