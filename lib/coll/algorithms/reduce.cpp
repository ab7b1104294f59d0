// Reductions: reduce and allreduce on the k-nomial tree rooted at rank 0,
// and the scans on a chain (short reduce and allreduce: cells.cpp). Data moves in chunks of whole elements that fit
// a collective slot, so a large reduction pipelines through the tree.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/algorithms/tree.hpp"

namespace mpf::coll {

namespace {

// Step s of a reduction of `count` elements: as many whole elements as one
// slot holds.
struct Chunk {
  int elements;        // in this step
  std::size_t offset;  // bytes from the start of the buffers
  std::uint32_t bytes;
};

int chunk_elements(std::size_t element) {
  return static_cast<int>(std::max<std::size_t>(1, channel().capacity() / element));
}

Chunk chunk_of(std::uint32_t s, int per_step, int count, std::size_t element) {
  const int first = static_cast<int>(s) * per_step;
  const int n = std::min(per_step, count - first);
  return {n, static_cast<std::size_t>(first) * element, static_cast<std::uint32_t>(static_cast<std::size_t>(n) * element)};
}

Task reduce_slot_task(const Group& c, Key key, const void* send, void* recv, int count,
                      Combine combine, int root, int radix) {
  const std::size_t element = combine.element_bytes();
  const bool all = root < 0;
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = static_cast<const std::byte*>(send);
  if (c.size() == 1) {
    if (count > 0 && in != out) std::memcpy(out, in, static_cast<std::size_t>(count) * element);
    co_return;
  }
  if (count == 0) co_return;
  // The tree is rooted at rank 0 whatever the root: the same combination
  // order, hence the same result, for every root.
  const TreeNode node = knomial_node(c.rank, 0, c.size(), radix);
  const std::vector<std::uint32_t> children = worlds_of(c, node.children);
  const bool commutative = combine.commutative();
  Channel& ch = channel();
  const int per_step = std::min(count, chunk_elements(element));
  std::vector<std::byte> acc(static_cast<std::size_t>(per_step) * element);
  std::vector<std::byte> scratch(commutative ? 0 : acc.size());
  const auto steps = static_cast<std::uint32_t>((count + per_step - 1) / per_step);
  std::uint32_t seen = 0;
  for (std::uint32_t s = 0; s < steps; ++s) {
    const Chunk chunk = chunk_of(s, per_step, count, element);
    std::memcpy(acc.data(), in + chunk.offset, chunk.bytes);
    // Up: this rank's subtree, in rank order: acc = acc op child.
    auto add_child = [&](std::uint32_t, std::span<const Received> pieces) {
      if (commutative) {
        combine.apply(pieces[0].data, acc.data(), chunk.elements);
      } else {
        std::memcpy(scratch.data(), pieces[0].data, chunk.bytes);
        combine.apply(acc.data(), scratch.data(), chunk.elements);
        std::swap(acc, scratch);
      }
    };
    for (std::uint32_t child : children) {
      co_await until(static_cast<std::int32_t>(child), [&] { return ch.try_take(child, key, 2 * s, add_child, &seen); });
    }
    if (node.parent >= 0) {
      const std::uint32_t parent = c.world_of(node.parent);
      const Piece piece{static_cast<std::int32_t>(parent), chunk.offset, acc.data(), chunk.bytes};
      co_await slot_free();
      ch.publish(key, 2 * s, {&piece, 1}, {&parent, 1});
    }
    auto copy_out = [&](std::uint32_t, std::span<const Received> pieces) {
      for (const Received& p : pieces) std::memcpy(out + p.offset, p.data, p.bytes);
    };
    if (all) {
      // Down: rank 0's result through the same tree.
      if (node.parent >= 0) {
        const std::uint32_t parent = c.world_of(node.parent);
        co_await until(static_cast<std::int32_t>(parent),
                       [&] { return ch.try_take(parent, key, 2 * s + 1, copy_out, &seen); });
      } else {
        std::memcpy(out + chunk.offset, acc.data(), chunk.bytes);
      }
      if (!children.empty()) {
        const Piece piece{kEveryConsumer, chunk.offset, out + chunk.offset, chunk.bytes};
        co_await slot_free();
        ch.publish(key, 2 * s + 1, {&piece, 1}, children);
      }
    } else if (c.rank == 0 && root == 0) {
      std::memcpy(out + chunk.offset, acc.data(), chunk.bytes);
    } else if (c.rank == 0) {
      const std::uint32_t to = c.world_of(root);
      const Piece piece{static_cast<std::int32_t>(to), chunk.offset, acc.data(), chunk.bytes};
      co_await slot_free();
      ch.publish(key, 2 * s + 1, {&piece, 1}, {&to, 1});
    } else if (c.rank == root) {
      const std::uint32_t zero = c.world_of(0);
      co_await until(static_cast<std::int32_t>(zero), [&] { return ch.try_take(zero, key, 2 * s + 1, copy_out, &seen); });
    }
  }
}

}  // namespace

Choice reduce_choice(const Group& c, int count, Combine combine, int root) {
  const std::size_t element = combine.element_bytes();
  const Operation operation = root < 0 ? Operation::allreduce : Operation::reduce;
  return c.plan.choose_reduction(operation, static_cast<std::uint64_t>(count) * element, [&] {
    return c.plan.reduction(combine.commutative(), combine.exact(), element);
  });
}

Task reduce_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine, int root) {
  if (count == 0) return {};
  const Choice choice = reduce_choice(c, count, combine, root);
  const auto radix = [&choice] { return static_cast<int>(choice.parameters().radix); };
  const auto piece = [&choice] { return choice.parameters().piece_bytes; };
  switch (choice.algorithm) {
    case Algorithm::board: return reduce_board_task(c, key, send, recv, count, combine, root);
    case Algorithm::board_sum:
      // In rank order unless any order gives the same bits.
      return reduce_board_sum_task(c, key, send, recv, count, combine, root, !combine.exact(), piece());
    case Algorithm::board_single_copy:
      return reduce_board_single_task(c, key, send, recv, count, combine, root, choice.parameters());
    case Algorithm::doubling: return allreduce_doubling_task(c, key, send, recv, count, combine);
    case Algorithm::cells: return reduce_cells_task(c, key, send, recv, count, combine, root, radix());
    case Algorithm::single_copy: return reduce_single_task(c, key, send, recv, count, combine, root, piece());
    case Algorithm::slots: return reduce_slot_task(c, key, send, recv, count, combine, root, radix());
    case Algorithm::messages: return reduce_messages_task(c, key, send, recv, count, combine, root);
    case Algorithm::hierarchical: return reduce_hierarchical_task(c, key, send, recv, count, combine, root);
    default: break;
  }
  unplanned(root < 0 ? Operation::allreduce : Operation::reduce, choice.algorithm);
}

Task scan_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine, bool exclusive) {
  const std::size_t element = combine.element_bytes();
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = static_cast<const std::byte*>(send);
  if (count == 0) co_return;
  if (c.plan.across_nodes()) {
    Task messages = scan_messages_task(c, key, send, recv, count, combine, exclusive);
    co_await finished(messages);
    co_return;
  }
  Channel& ch = channel();
  const int per_step = std::min(count, chunk_elements(element));
  std::vector<std::byte> mine(static_cast<std::size_t>(per_step) * element);
  const auto steps = static_cast<std::uint32_t>((count + per_step - 1) / per_step);
  std::uint32_t seen = 0;
  for (std::uint32_t s = 0; s < steps; ++s) {
    const Chunk chunk = chunk_of(s, per_step, count, element);
    // mine = prefix of the ranks below op this rank's contribution; the
    // exclusive scan's result is that prefix alone.
    std::memcpy(mine.data(), in + chunk.offset, chunk.bytes);
    if (c.rank > 0) {
      const std::uint32_t prev = c.world_of(c.rank - 1);
      auto add_prefix = [&](std::uint32_t, std::span<const Received> pieces) {
        if (exclusive) std::memcpy(out + chunk.offset, pieces[0].data, chunk.bytes);
        combine.apply(pieces[0].data, mine.data(), chunk.elements);
      };
      co_await until(static_cast<std::int32_t>(prev), [&] { return ch.try_take(prev, key, s, add_prefix, &seen); });
    }
    if (!exclusive) std::memcpy(out + chunk.offset, mine.data(), chunk.bytes);
    if (c.rank + 1 < c.size()) {
      const std::uint32_t next = c.world_of(c.rank + 1);
      const Piece piece{static_cast<std::int32_t>(next), chunk.offset, mine.data(), chunk.bytes};
      co_await slot_free();
      ch.publish(key, s, {&piece, 1}, {&next, 1});
    }
  }
}

void reduce(Group& c, const void* send, void* recv, int count, Combine combine, int root,
            const char* call) {
  const Key key = c.next_collective(root < 0 ? kAllreduce : kReduce, root);
  if (reduce_by_steps(c, key, send, recv, count, combine, root, call)) return;
  run(reduce_task(c, key, send, recv, count, combine, root), c, call, root);
}

void scan(Group& c, const void* send, void* recv, int count, Combine combine, bool exclusive,
          const char* call) {
  const Key key = c.next_collective(exclusive ? kExscan : kScan, -1);
  run(scan_task(c, key, send, recv, count, combine, exclusive), c, call, -1);
}

}  // namespace mpf::coll
