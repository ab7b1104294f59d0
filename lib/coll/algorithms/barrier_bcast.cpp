// Broadcast on the k-nomial tree over the collective slots (the barrier
// and short broadcasts are in cells.cpp), and the blocking forms.
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/algorithms/tree.hpp"

namespace mpf::coll {

namespace {

Task bcast_slot_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root,
                     int radix) {
  const TreeNode node = knomial_node(c.rank, root, c.size(), radix);
  const std::vector<std::uint32_t> children = worlds_of(c, node.children);
  Channel& ch = channel();
  auto* data = static_cast<std::byte*>(buffer);
  const std::uint64_t chunk = ch.capacity();
  const auto steps = static_cast<std::uint32_t>((bytes + chunk - 1) / chunk);
  auto copy_in = [&](std::uint32_t, std::span<const Received> pieces) {
    for (const Received& p : pieces) std::memcpy(data + p.offset, p.data, p.bytes);
  };
  std::uint32_t seen = 0;
  for (std::uint32_t s = 0; s < steps; ++s) {
    const std::uint64_t offset = s * chunk;
    const auto len = static_cast<std::uint32_t>(std::min(chunk, bytes - offset));
    if (node.parent >= 0) {
      const std::uint32_t parent = c.world_of(node.parent);
      co_await until(static_cast<std::int32_t>(parent), [&] { return ch.try_take(parent, key, s, copy_in, &seen); });
    }
    if (!children.empty()) {
      const Piece piece{kEveryConsumer, offset, data + offset, len};
      co_await slot_free();
      ch.publish(key, s, {&piece, 1}, children);
    }
  }
}

}  // namespace

Task bcast_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root) {
  if (c.size() == 1 || bytes == 0) return {};
  const Choice choice = c.plan.choose(Operation::bcast, bytes);
  const auto radix = [&choice] { return static_cast<int>(choice.parameters().radix); };
  switch (choice.algorithm) {
    case Algorithm::board: return bcast_board_task(c, key, buffer, bytes, root, false);
    case Algorithm::board_stage: return bcast_board_task(c, key, buffer, bytes, root, true);
    case Algorithm::cells: return bcast_cells_task(c, key, buffer, static_cast<std::uint32_t>(bytes), root, radix());
    case Algorithm::single_copy: return bcast_single_task(c, key, buffer, bytes, root);
    case Algorithm::slots: return bcast_slot_task(c, key, buffer, bytes, root, radix());
    case Algorithm::messages: return bcast_messages_task(c, key, buffer, bytes, root);
    case Algorithm::hierarchical: return bcast_hierarchical_task(c, key, buffer, bytes, root);
    default: break;
  }
  unplanned(Operation::bcast, choice.algorithm);
}

void barrier(Group& c, const char* call) {
  const Key key = c.next_collective(kBarrier, -1);
  if (!barrier_by_steps(c, key, call)) run(barrier_task(c, key), c, call, -1);
}

void bcast(Group& c, void* buffer, std::uint64_t bytes, int root, const char* call) {
  const Key key = c.next_collective(kBcast, root);
  if (!bcast_by_steps(c, key, buffer, bytes, root, call)) run(bcast_task(c, key, buffer, bytes, root), c, call, root);
}

}  // namespace mpf::coll
