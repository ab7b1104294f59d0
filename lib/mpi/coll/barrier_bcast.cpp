// Barrier and broadcast on k-nomial trees over the collective slots.
#include <algorithm>
#include <cstring>

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/context.hpp"
#include "mpi/coll/tree.hpp"

namespace mpf::mpi::coll {

using mpf::coll::kEveryConsumer;
using mpf::coll::Piece;
using mpf::coll::Received;

void barrier(Communicator& c, const char* call) {
  const mpf::coll::Key key = c.next_collective(kBarrier, -1);
  if (c.size() == 1) return;
  const TreeNode node = knomial_node(c.rank, 0, c.size(), radix());
  mpf::coll::Channel& ch = channel();
  const progress::BlockedCall b = blocked(c, call);
  auto ignore = [](std::uint32_t, std::span<const Received>) {};
  // Up: every child has arrived (step 0 of each child), then tell the parent.
  for (int child : node.children) ch.take(world_of(c, child), key, 0, ignore, waiting_for(b, c, child));
  if (node.parent >= 0) {
    const std::uint32_t parent = world_of(c, node.parent);
    const Piece arrived{static_cast<std::int32_t>(parent), 0, nullptr, 0};
    ch.publish(key, 0, {&arrived, 1}, {&parent, 1}, b);
    // Down: the parent's release (its step 1).
    ch.take(parent, key, 1, ignore, waiting_for(b, c, node.parent));
  }
  if (!node.children.empty()) {
    const std::vector<std::uint32_t> children = worlds_of(c, node.children);
    const Piece release{kEveryConsumer, 0, nullptr, 0};
    ch.publish(key, 1, {&release, 1}, children, b);
  }
}

void bcast(Communicator& c, void* buffer, std::uint64_t bytes, int root, const char* call) {
  const mpf::coll::Key key = c.next_collective(kBcast, root);
  if (c.size() == 1 || bytes == 0) return;
  const TreeNode node = knomial_node(c.rank, root, c.size(), radix());
  const std::vector<std::uint32_t> children = worlds_of(c, node.children);
  mpf::coll::Channel& ch = channel();
  const progress::BlockedCall b = blocked(c, call, root);
  auto* data = static_cast<std::byte*>(buffer);
  const std::uint64_t chunk = ch.capacity();
  const auto steps = static_cast<std::uint32_t>((bytes + chunk - 1) / chunk);
  for (std::uint32_t s = 0; s < steps; ++s) {
    const std::uint64_t offset = s * chunk;
    const auto len = static_cast<std::uint32_t>(std::min(chunk, bytes - offset));
    if (node.parent >= 0) {
      ch.take(
          world_of(c, node.parent), key, s,
          [&](std::uint32_t, std::span<const Received> pieces) {
            for (const Received& p : pieces) std::memcpy(data + p.offset, p.data, p.bytes);
          },
          waiting_for(b, c, node.parent));
    }
    if (!children.empty()) {
      const Piece piece{kEveryConsumer, offset, data + offset, len};
      ch.publish(key, s, {&piece, 1}, children, b);
    }
  }
}

}  // namespace mpf::mpi::coll
