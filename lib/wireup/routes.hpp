// The route table: how this rank reaches every rank of the job, built once
// at initialisation from what wire-up says about nodes (SPEC §2).
//
//   world rank -> (node, local index, transport, endpoint)
//
// Ranks on this rank's node are reached through the node's shared memory,
// whose endpoints are local indices (a rank's place among its node's
// ranks, in world order: its index in the node segment); ranks on other
// nodes through the network transport, whose endpoints are world ranks.
// Transports turn world ranks into their endpoints with tables they build
// from this one at setup, so the data path pays one load, never a search.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace mpf::wireup {

enum class Via : std::uint8_t {
  shared_memory,  // a rank on this node (this rank included)
  network,        // a rank on another node
};

struct Route {
  std::uint32_t node;      // the rank's node: 0, 1, ... in the order of each node's lowest rank
  std::uint32_t local;     // its index among its node's ranks
  Via via;                 // the transport that reaches it from this rank
  std::uint32_t endpoint;  // its address in that transport: `local` (shared memory) or its world rank
};

class RouteTable {
 public:
  // `node_of[r]`: any identifier of world rank r's node (equal for ranks on
  // one node); `me`: this rank. Throws std::invalid_argument when `me` is
  // out of range.
  RouteTable(std::span<const std::uint32_t> node_of, std::uint32_t me);
  // Every rank on this rank's node (a job started on one node).
  static RouteTable one_node(std::uint32_t size, std::uint32_t me);

  const Route& operator[](std::uint32_t world) const { return routes_[world]; }
  std::uint32_t size() const { return static_cast<std::uint32_t>(routes_.size()); }
  std::uint32_t me() const { return me_; }
  std::uint32_t nodes() const { return nodes_; }
  // The world ranks on this rank's node, by local index.
  std::span<const std::uint32_t> node_ranks() const { return node_ranks_; }
  bool all_on_this_node() const { return node_ranks_.size() == routes_.size(); }
  // Whether the world ranks `members` are on more than one node.
  bool spans_nodes(std::span<const std::uint32_t> members) const {
    for (const std::uint32_t m : members) {
      if (routes_[m].node != routes_[members.front()].node) return true;
    }
    return false;
  }

 private:
  std::vector<Route> routes_;
  std::vector<std::uint32_t> node_ranks_;
  std::uint32_t me_ = 0;
  std::uint32_t nodes_ = 0;
};

}  // namespace mpf::wireup
