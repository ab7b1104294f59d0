// Where each rank runs (--map-by, --bind-to, --report-bindings), planned
// with libnuma before any rank starts. Ranks more than CPUs are allowed: the
// plan wraps round, and the runtime learns from the segment header that the
// job is oversubscribed so that waiting ranks block instead of spinning.
#pragma once

#include <string>
#include <vector>

#include "launcher/options.hpp"

namespace mpf::launcher {

struct Placement {
  std::vector<int> cpus;  // empty: not bound
  int numa_node = -1;     // node whose memory the rank prefers, -1: none
};

// CPUs this process may run on (its affinity mask), ascending.
std::vector<int> allowed_cpus();

// BindTo::automatic is resolved here, against the number of `cpus`.
std::vector<Placement> plan_placements(BindTo bind_to, MapBy map_by, int nranks,
                                       const std::vector<int>& cpus);

// "cpu 0 (NUMA node 0)", "cpus 0-1 (NUMA node 0)" or "not bound".
std::string describe_placement(const Placement& placement);

}  // namespace mpf::launcher
