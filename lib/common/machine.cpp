#include "common/machine.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <vector>

namespace mpf::common {

namespace {

std::string cpus_text(int cpus) { return std::to_string(cpus) + (cpus == 1 ? " CPU" : " CPUs"); }

std::string memory_text(std::int64_t bytes) { return std::to_string(rounded_gib(bytes)) + " GiB of memory"; }

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += ", ";
    out += part;
  }
  return out;
}

}  // namespace

MachineFingerprint MachineFingerprint::current() {
  MachineFingerprint m;
  m.cpu_model = cpuinfo_field("model name");
  if (m.cpu_model.empty()) m.cpu_model = "unknown";  // e.g. arm64 kernels, which name no model
  m.cpus = static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  m.memory_bytes = pages > 0 && page_bytes > 0 ? static_cast<std::int64_t>(pages) * page_bytes : 0;
  return m;
}

std::string cpuinfo_field(std::string_view key) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string_view name = std::string_view(line).substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name == key) return line.substr(std::min(line.size(), colon + 2));
  }
  return {};
}

std::string kernel_description() {
  utsname u{};
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::int64_t rounded_gib(std::int64_t bytes) {
  constexpr std::int64_t kGiB = std::int64_t{1} << 30;
  return bytes / kGiB + (bytes % kGiB >= kGiB / 2 ? 1 : 0);  // no overflow near INT64_MAX
}

std::string describe(const MachineFingerprint& machine) {
  return joined({machine.cpu_model, cpus_text(machine.cpus), memory_text(machine.memory_bytes)});
}

std::string machine_difference(const MachineFingerprint& measured, const MachineFingerprint& here) {
  std::vector<std::string> there_parts, here_parts;
  if (measured.cpu_model != here.cpu_model) {
    there_parts.push_back(measured.cpu_model);
    here_parts.push_back(here.cpu_model);
  }
  if (measured.cpus != here.cpus) {
    there_parts.push_back(cpus_text(measured.cpus));
    here_parts.push_back(cpus_text(here.cpus));
  }
  if (rounded_gib(measured.memory_bytes) != rounded_gib(here.memory_bytes)) {
    there_parts.push_back(memory_text(measured.memory_bytes));
    here_parts.push_back(memory_text(here.memory_bytes));
  }
  if (there_parts.empty()) return {};
  return joined(there_parts) + "; this one: " + joined(here_parts);
}

}  // namespace mpf::common
