#include "tune/bench/machine.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "common/machine.hpp"
#include "tune/bench/peers.hpp"

namespace mpf::tune::bench {
namespace {

std::string os_name() {
  std::ifstream in("/etc/os-release");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "unknown";
}

}  // namespace

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

nlohmann::json describe_machine() {
  nlohmann::json m;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  m["hostname"] = host;
  // The fingerprint a tuning file records (common/machine.hpp), under this report's names.
  const common::MachineFingerprint fingerprint = common::MachineFingerprint::current();
  m["cpu_model"] = fingerprint.cpu_model;
  m["logical_cpus"] = fingerprint.cpus;
  m["usable_cpus"] = usable_cpus();
  // The CPU flag a hypervisor sets for its guests.
  std::istringstream flags(common::cpuinfo_field("flags"));
  bool hypervisor = false;
  for (std::string f; flags >> f;) hypervisor = hypervisor || f == "hypervisor";
  m["hypervisor"] = hypervisor;
  m["memory_bytes"] = fingerprint.memory_bytes;
  m["kernel"] = common::kernel_description();
  m["os"] = os_name();
  double load[3] = {0, 0, 0};
  if (::getloadavg(load, 3) == 3) m["load_average"] = {load[0], load[1], load[2]};
  m["date"] = utc_now();
  return m;
}

std::string machine_line(const nlohmann::json& m) {
  std::ostringstream s;
  s << m.value("cpu_model", "unknown CPU") << ", " << m.value("usable_cpus", 0) << " CPUs";
  if (m.value("hypervisor", false)) s << " (virtual machine)";
  s << ", " << m.value("memory_bytes", std::int64_t{0}) / (std::int64_t{1} << 30) << " GiB, "
    << m.value("kernel", "") << ", " << m.value("os", "");
  return s.str();
}

}  // namespace mpf::tune::bench
