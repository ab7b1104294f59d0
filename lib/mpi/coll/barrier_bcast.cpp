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
using mpf::coll::Task;
using mpf::coll::until;

Task barrier_task(const Communicator& c, mpf::coll::Key key) {
  if (c.size() == 1) co_return;
  const TreeNode node = knomial_node(c.rank, 0, c.size(), radix());
  mpf::coll::Channel& ch = channel();
  auto ignore = [](std::uint32_t, std::span<const Received>) {};
  std::uint32_t seen = 0;
  // Up: every child has arrived (step 0 of each child), then tell the parent.
  for (int child : node.children) {
    const std::uint32_t from = world_of(c, child);
    co_await until(static_cast<std::int32_t>(from), [&] { return ch.try_take(from, key, 0, ignore, &seen); });
  }
  if (node.parent >= 0) {
    const std::uint32_t parent = world_of(c, node.parent);
    const Piece arrived{static_cast<std::int32_t>(parent), 0, nullptr, 0};
    co_await slot_free();
    ch.publish(key, 0, {&arrived, 1}, {&parent, 1});
    // Down: the parent's release (its step 1).
    co_await until(static_cast<std::int32_t>(parent), [&] { return ch.try_take(parent, key, 1, ignore, &seen); });
  }
  if (!node.children.empty()) {
    const std::vector<std::uint32_t> children = worlds_of(c, node.children);
    const Piece release{kEveryConsumer, 0, nullptr, 0};
    co_await slot_free();
    ch.publish(key, 1, {&release, 1}, children);
  }
}

Task bcast_task(const Communicator& c, mpf::coll::Key key, void* buffer, std::uint64_t bytes, int root) {
  if (c.size() == 1 || bytes == 0) co_return;
  const TreeNode node = knomial_node(c.rank, root, c.size(), radix());
  const std::vector<std::uint32_t> children = worlds_of(c, node.children);
  mpf::coll::Channel& ch = channel();
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
      const std::uint32_t parent = world_of(c, node.parent);
      co_await until(static_cast<std::int32_t>(parent), [&] { return ch.try_take(parent, key, s, copy_in, &seen); });
    }
    if (!children.empty()) {
      const Piece piece{kEveryConsumer, offset, data + offset, len};
      co_await slot_free();
      ch.publish(key, s, {&piece, 1}, children);
    }
  }
}

void barrier(Communicator& c, const char* call) {
  const mpf::coll::Key key = c.next_collective(kBarrier, -1);
  run(barrier_task(c, key), c, call, -1);
}

void bcast(Communicator& c, void* buffer, std::uint64_t bytes, int root, const char* call) {
  const mpf::coll::Key key = c.next_collective(kBcast, root);
  run(bcast_task(c, key, buffer, bytes, root), c, call, root);
}

}  // namespace mpf::mpi::coll
