// The hierarchical collectives (Algorithm::hierarchical), for a group whose
// members are on several nodes: each node's members exchange among
// themselves (messages between ranks of one node go through shared memory)
// and one leader per node exchanges over the network, so that each node's
// data crosses the network once per collective instead of once per rank.
// A broadcast's leader on the root's node is the root; elsewhere a node's
// leader is its lowest member. Messages as in messages.cpp
// (message.hpp), each phase a step of its own.
//
//   barrier            to each node's leader, dissemination among the
//                      leaders, back from each leader
//   bcast              binomial among the leaders from the root, then
//                      binomial within each node from its leader
//   reduce, allreduce  binomial within each node to its leader, binomial
//                      among the leaders to rank 0, then to the root, or
//                      down as bcast: commutative operations only (nodes
//                      combine out of rank order), in an order that depends
//                      on the group alone, so every root gets the same bits
#include <algorithm>
#include <cstring>
#include <span>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/message.hpp"
#include "core/runtime.hpp"

namespace mpf::coll {
namespace {

// Steps (a tag's low 8 bits): one per phase, the dissemination's from kRounds.
constexpr std::uint32_t kUp = 0, kAcross = 1, kDown = 2, kAcrossDown = 3, kRounds = 8;

// The group's members by node, from the route table, once per group.
const NodeLayout& layout(const Group& c) {
  if (c.nodes) return *c.nodes;
  const wireup::RouteTable& routes = core::Runtime::instance().routes();
  NodeLayout l;
  std::vector<std::uint32_t> ids;  // node number -> the route table's node id
  for (int r = 0; r < c.size(); ++r) {
    const std::uint32_t id = routes[c.world_of(r)].node;
    const auto at = std::find(ids.begin(), ids.end(), id);
    l.node_of.push_back(static_cast<std::uint32_t>(at - ids.begin()));
    if (at == ids.end()) {
      ids.push_back(id);
      l.first.push_back(r);
    }
  }
  for (int r = 0; r < c.size(); ++r) {
    if (l.node_of[static_cast<std::size_t>(r)] == l.node_of[static_cast<std::size_t>(c.rank)]) l.mine.push_back(r);
  }
  return c.nodes.emplace(std::move(l));
}

// The group split by node, for a collective rooted at `top`.
struct Split {
  std::vector<int> local;    // this node's members, its leader first, then in rank order
  std::vector<int> leaders;  // one per node: `top` first, then in order of their nodes' first members
  bool leads = false;        // this rank is its node's leader
};

Split split(const Group& c, int top) {
  const NodeLayout& l = layout(c);
  const std::uint32_t top_node = l.node_of[static_cast<std::size_t>(top)];
  const std::uint32_t my_node = l.node_of[static_cast<std::size_t>(c.rank)];
  Split s;
  s.leaders.reserve(l.first.size());
  s.leaders.push_back(top);
  for (std::uint32_t n = 0; n < l.first.size(); ++n) {
    if (n != top_node) s.leaders.push_back(l.first[n]);
  }
  const int leader = my_node == top_node ? top : l.first[my_node];
  s.local.reserve(l.mine.size());
  s.local.push_back(leader);
  for (const int r : l.mine) {
    if (r != leader) s.local.push_back(r);
  }
  s.leads = leader == c.rank;
  return s;
}

int index_in(std::span<const int> list, int rank) {
  const auto it = std::find(list.begin(), list.end(), rank);
  return it == list.end() ? -1 : static_cast<int>(it - list.begin());
}

// Binomial broadcast of `bytes` at `buffer` over `list`, from list[0].
Task bcast_over(const Group& c, Key key, std::uint32_t step, std::span<const int> list, void* buffer,
                std::uint64_t bytes) {
  const int n = static_cast<int>(list.size());
  const int me = index_in(list, c.rank);
  int mask = 1;
  while (mask < n) {
    if ((me & mask) != 0) {
      Message in(false, c, key, step, list[static_cast<std::size_t>(me - mask)], buffer, bytes);
      co_await arrived(in);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (me + mask < n) {
      Message out(true, c, key, step, list[static_cast<std::size_t>(me + mask)], buffer, bytes);
      co_await arrived(out);
    }
  }
}

// Binomial reduction over `list` to list[0]: `acc` holds this rank's
// contribution, and at list[0] ends holding everyone's (`scratch` as large).
Task reduce_over(const Group& c, Key key, std::uint32_t step, std::span<const int> list, std::vector<std::byte>& acc,
                 std::vector<std::byte>& scratch, int count, Combine combine) {
  const int n = static_cast<int>(list.size());
  const int me = index_in(list, c.rank);
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((me & mask) != 0) {
      Message up(true, c, key, step, list[static_cast<std::size_t>(me - mask)], acc.data(), acc.size());
      co_await arrived(up);
      break;
    }
    if (me + mask < n) {
      Message in(false, c, key, step, list[static_cast<std::size_t>(me + mask)], scratch.data(), scratch.size());
      co_await arrived(in);
      combine.apply(acc.data(), scratch.data(), count);  // scratch = acc op scratch
      std::swap(acc, scratch);
    }
  }
}

// Broadcast from split.leaders[0]: across the leaders, then within nodes.
Task bcast_split(const Group& c, Key key, const Split& s, std::uint32_t across, std::uint32_t down, void* buffer,
                 std::uint64_t bytes) {
  if (s.leads) {
    Task leaders = bcast_over(c, key, across, s.leaders, buffer, bytes);
    co_await finished(leaders);
  }
  Task node = bcast_over(c, key, down, s.local, buffer, bytes);
  co_await finished(node);
}

}  // namespace

Task barrier_hierarchical_task(const Group& c, Key key) {
  const Split s = split(c, 0);
  if (!s.leads) {
    Message up(true, c, key, kUp, s.local.front(), nullptr, 0);
    co_await arrived(up);
  } else {
    std::vector<std::unique_ptr<Message>> in;
    for (std::size_t i = 1; i < s.local.size(); ++i) {
      in.push_back(std::make_unique<Message>(false, c, key, kUp, s.local[i], nullptr, 0));
    }
    for (const auto& m : in) co_await arrived(*m);
    // Dissemination among the leaders.
    const int n = static_cast<int>(s.leaders.size()), me = index_in(s.leaders, c.rank);
    std::uint32_t round = kRounds;
    for (int distance = 1; distance < n; distance *= 2, ++round) {
      Message from(false, c, key, round, s.leaders[static_cast<std::size_t>((me - distance + n) % n)], nullptr, 0);
      Message to(true, c, key, round, s.leaders[static_cast<std::size_t>((me + distance) % n)], nullptr, 0);
      co_await arrived(to);
      co_await arrived(from);
    }
  }
  Task down = bcast_over(c, key, kDown, s.local, nullptr, 0);
  co_await finished(down);
}

Task bcast_hierarchical_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root) {
  const Split s = split(c, root);
  Task all = bcast_split(c, key, s, kAcross, kDown, buffer, bytes);
  co_await finished(all);
}

Task reduce_hierarchical_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
                              int root) {
  // Always combined towards rank 0, whatever the root: the same bits at
  // every root and in allreduce (the order depends on the group alone).
  const Split s = split(c, 0);
  const std::size_t bytes = static_cast<std::size_t>(count) * combine.element_bytes();
  std::vector<std::byte> acc(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
  std::vector<std::byte> scratch(bytes);
  Task node = reduce_over(c, key, kUp, s.local, acc, scratch, count, combine);
  co_await finished(node);
  if (s.leads) {
    Task leaders = reduce_over(c, key, kAcross, s.leaders, acc, scratch, count, combine);
    co_await finished(leaders);
  }
  if (root < 0) {
    if (c.rank == 0) std::memcpy(recv, acc.data(), bytes);
    Task down = bcast_split(c, key, s, kAcrossDown, kDown, recv, bytes);
    co_await finished(down);
  } else if (root == 0) {
    if (c.rank == 0) std::memcpy(recv, acc.data(), bytes);
  } else if (c.rank == 0) {
    Message out(true, c, key, kAcrossDown, root, acc.data(), bytes);
    co_await arrived(out);
  } else if (c.rank == root) {
    Message in(false, c, key, kAcrossDown, 0, recv, bytes);
    co_await arrived(in);
  }
}

}  // namespace mpf::coll
