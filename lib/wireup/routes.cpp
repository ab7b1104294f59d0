#include "wireup/routes.hpp"

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace mpf::wireup {

RouteTable::RouteTable(std::span<const std::uint32_t> node_of, std::uint32_t me) : me_(me) {
  if (me >= node_of.size()) {
    throw std::invalid_argument("rank " + std::to_string(me) + " is not in a job of " +
                                std::to_string(node_of.size()) + " ranks");
  }
  std::unordered_map<std::uint32_t, std::uint32_t> node_index;  // identifier -> 0, 1, ... in rank order
  std::vector<std::uint32_t> ranks_on;                          // per node index: ranks seen so far
  routes_.reserve(node_of.size());
  for (std::uint32_t r = 0; r < node_of.size(); ++r) {
    const auto [at, added] = node_index.emplace(node_of[r], static_cast<std::uint32_t>(ranks_on.size()));
    if (added) ranks_on.push_back(0);
    const std::uint32_t node = at->second;
    const std::uint32_t local = ranks_on[node]++;
    const bool here = node_of[r] == node_of[me];
    routes_.push_back({node, local, here ? Via::shared_memory : Via::network, here ? local : r});
    if (here) node_ranks_.push_back(r);
  }
  nodes_ = static_cast<std::uint32_t>(ranks_on.size());
}

RouteTable RouteTable::one_node(std::uint32_t size, std::uint32_t me) {
  return RouteTable(std::vector<std::uint32_t>(size, 0), me);
}

}  // namespace mpf::wireup
