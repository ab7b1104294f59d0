#include "launcher/binding.hpp"

#include <numa.h>
#include <sched.h>

#include <map>

#include "common/binding_rule.hpp"
#include "common/number_ranges.hpp"

namespace mpf::launcher {
namespace {

int node_of(int cpu) {
  if (numa_available() < 0) return 0;
  const int node = numa_node_of_cpu(cpu);
  return node < 0 ? 0 : node;
}

}  // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  return cpus;
}

std::vector<Placement> plan_placements(BindTo bind_to, MapBy map_by, int nranks,
                                       const std::vector<int>& cpus) {
  std::vector<Placement> plan(static_cast<std::size_t>(nranks));
  if (bind_to == BindTo::automatic) {
    bind_to = common::binds_by_default(nranks, static_cast<long>(cpus.size())) ? BindTo::core : BindTo::none;
  }
  if (bind_to == BindTo::none) return plan;

  // CPUs grouped by NUMA node, both in ascending order.
  std::map<int, std::vector<int>> by_node;
  for (int cpu : cpus) by_node[node_of(cpu)].push_back(cpu);
  std::vector<int> nodes;
  for (const auto& [node, list] : by_node) nodes.push_back(node);

  for (int r = 0; r < nranks; ++r) {
    int cpu;
    if (map_by == MapBy::core) {
      cpu = cpus[static_cast<std::size_t>(r) % cpus.size()];
    } else {
      const int node = nodes[static_cast<std::size_t>(r) % nodes.size()];
      const std::vector<int>& list = by_node[node];
      cpu = list[(static_cast<std::size_t>(r) / nodes.size()) % list.size()];
    }
    Placement& p = plan[static_cast<std::size_t>(r)];
    p.numa_node = node_of(cpu);
    p.cpus = bind_to == BindTo::core ? std::vector<int>{cpu} : by_node[p.numa_node];
  }
  return plan;
}

std::string describe_placement(const Placement& p) {
  if (p.cpus.empty()) return "not bound";
  return (p.cpus.size() == 1 ? "cpu " : "cpus ") + common::number_ranges(p.cpus) + " (NUMA node " +
         std::to_string(p.numa_node) + ")";
}

}  // namespace mpf::launcher
