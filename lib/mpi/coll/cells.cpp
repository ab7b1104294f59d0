// The collectives whose pieces fit a collective cell (coll/cells.hpp): a
// barrier, and bcast, reduce, allreduce and allgather of at most
// coll_short_limit bytes per rank. A message here is one cache-line
// transfer to one peer, so the algorithms pick the fewest sequential
// messages:
//
//   barrier     dissemination on communicators of up to coll_exchange_max
//               ranks (log2 n rounds, every rank busy in each: one transfer
//               at 2 ranks), otherwise the k-nomial tree up and down (each
//               rank waits twice, which matters when ranks outnumber CPUs
//               and every wait may be a sleep)
//   bcast       the k-nomial tree from the root
//   allreduce   recursive doubling on a power-of-two communicator of up to
//               coll_exchange_max ranks: partners combine lower op higher,
//               so every rank computes the same bits; otherwise reduce, then
//               bcast from rank 0
//   reduce      the k-nomial tree rooted at rank 0, children combined in
//               rank order (the result does not depend on the root), then
//               to the root
//   allgather   every rank posts its block to every other, staggered
//   alltoall    every rank posts each peer its block, staggered, then
//               takes its own (MPI_Alltoall's equal blocks; a v-collective's
//               small pairs go through the cells within alltoallv_task); on
//               more than 8 x coll_exchange_max ranks, Bruck's algorithm
//               when half the blocks fit a cell: log2 n messages per rank
//               instead of n - 1, so log2 n wake-ups instead of n - 1
#include <algorithm>
#include <cstring>

#include "mpi/coll/algorithms.hpp"
#include "mpi/coll/context.hpp"
#include "mpi/coll/ops.hpp"
#include "mpi/coll/tree.hpp"
#include "mpi/datatype.hpp"

namespace mpf::mpi::coll {

using mpf::coll::Task;

namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// acc = acc op other when this rank's data comes first, other op acc when
// the other's does (`other_first`): canonical order for any operation.
void combine(MPI_Op op, bool commutative, bool other_first, const std::byte* other, std::byte* acc, std::byte* scratch,
             int count, MPI_Datatype type, std::size_t bytes) {
  if (other_first || commutative) {
    apply_op(op, other, acc, count, type);
  } else {
    std::memcpy(scratch, other, bytes);
    apply_op(op, acc, scratch, count, type);
    std::memcpy(acc, scratch, bytes);
  }
}

}  // namespace

namespace {

Task barrier_cells_task(const Communicator& c, mpf::coll::Key key) {
  const int n = c.size();
  if (n <= exchange_max()) {
    // Dissemination: in round k, tell rank + 2^k and hear from rank - 2^k.
    std::uint32_t step = 0;
    for (int distance = 1; distance < n; distance *= 2, ++step) {
      co_await post(world_of(c, (c.rank + distance) % n), key, step, nullptr, 0);
      co_await take(world_of(c, (c.rank - distance + n) % n), key, step, nullptr, 0);
    }
    co_return;
  }
  const TreeNode node = knomial_node(c.rank, 0, n, radix());
  // Up: every child has arrived, then tell the parent; down: the release.
  for (int child : node.children) co_await take(world_of(c, child), key, 0, nullptr, 0);
  if (node.parent >= 0) {
    co_await post(world_of(c, node.parent), key, 0, nullptr, 0);
    co_await take(world_of(c, node.parent), key, 1, nullptr, 0);
  }
  for (int child : node.children) co_await post(world_of(c, child), key, 1, nullptr, 0);
}

}  // namespace

Task barrier_task(const Communicator& c, mpf::coll::Key key) {
  if (c.size() == 1) return {};
  if (on_board(c)) return barrier_board_task(key);
  return barrier_cells_task(c, key);
}

Task bcast_cells_task(const Communicator& c, mpf::coll::Key key, void* buffer, std::uint32_t bytes, int root) {
  const TreeNode node = knomial_node(c.rank, root, c.size(), radix());
  if (node.parent >= 0) co_await take(world_of(c, node.parent), key, 0, buffer, bytes);
  for (int child : node.children) co_await post(world_of(c, child), key, 0, buffer, bytes);
}

Task reduce_cells_task(const Communicator& c, mpf::coll::Key key, const void* send, void* recv, int count,
                       MPI_Datatype type, MPI_Op op, int root) {
  const auto bytes = static_cast<std::uint32_t>(static_cast<std::size_t>(count) * *datatype_size(type));
  const bool commutative = op_is_commutative(op);
  const int n = c.size();
  alignas(16) std::byte acc[mpf::coll::kMaxCellData];
  alignas(16) std::byte scratch[mpf::coll::kMaxCellData];
  std::memcpy(acc, send, bytes);
  if (root < 0 && power_of_two(n) && n <= exchange_max()) {
    // Recursive doubling: after round k each rank holds its block of 2^(k+1).
    std::uint32_t step = 0;
    for (int distance = 1; distance < n; distance *= 2, ++step) {
      const int partner = c.rank ^ distance;
      const std::uint32_t peer = world_of(c, partner);
      co_await post(peer, key, step, acc, bytes);
      co_await mpf::coll::until(static_cast<std::int32_t>(peer), [&] {
        return cells().try_take(peer, key, step, [&](const std::byte* data, std::uint32_t) {
          combine(op, commutative, partner < c.rank, data, acc, scratch, count, type, bytes);
        });
      });
    }
    std::memcpy(recv, acc, bytes);
    co_return;
  }
  // Up the tree rooted at rank 0: this rank's subtree, children in rank order.
  const TreeNode node = knomial_node(c.rank, 0, n, radix());
  for (int child : node.children) {
    const std::uint32_t from = world_of(c, child);
    co_await mpf::coll::until(static_cast<std::int32_t>(from), [&] {
      return cells().try_take(from, key, 0, [&](const std::byte* data, std::uint32_t) {
        combine(op, commutative, false, data, acc, scratch, count, type, bytes);
      });
    });
  }
  if (node.parent >= 0) co_await post(world_of(c, node.parent), key, 0, acc, bytes);
  if (root < 0) {
    // Down: rank 0's result through the same tree.
    if (node.parent >= 0) {
      co_await take(world_of(c, node.parent), key, 1, recv, bytes);
    } else {
      std::memcpy(recv, acc, bytes);
    }
    for (int child : node.children) co_await post(world_of(c, child), key, 1, recv, bytes);
  } else if (c.rank == 0 && root == 0) {
    std::memcpy(recv, acc, bytes);
  } else if (c.rank == 0) {
    co_await post(world_of(c, root), key, 1, acc, bytes);
  } else if (c.rank == root) {
    co_await take(world_of(c, 0), key, 1, recv, bytes);
  }
}

Task allgatherv_cells_task(const Communicator& c, mpf::coll::Key key, const void* send, void* recv,
                           std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs) {
  const int n = c.size();
  const auto me = static_cast<std::size_t>(c.rank);
  auto* out = static_cast<std::byte*>(recv);
  if (send != out + displs[me] && bytes[me] > 0) std::memmove(out + displs[me], send, bytes[me]);
  for (int k = 1; k < n; ++k) {
    co_await post(world_of(c, (c.rank + k) % n), key, 0, out + displs[me], static_cast<std::uint32_t>(bytes[me]));
  }
  for (int k = 1; k < n; ++k) {
    const auto from = static_cast<std::size_t>((c.rank - k + n) % n);
    co_await take(world_of(c, static_cast<int>(from)), key, 0, out + displs[from],
                  static_cast<std::uint32_t>(bytes[from]));
  }
}

Task alltoall_cells_task(const Communicator& c, mpf::coll::Key key, const void* send, void* recv,
                         std::uint32_t bytes) {
  const int n = c.size();
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const auto at = [bytes](int rank) { return static_cast<std::size_t>(rank) * bytes; };
  std::memcpy(out + at(c.rank), in + at(c.rank), bytes);
  for (int k = 1; k < n; ++k) {
    const int to = (c.rank + k) % n;
    co_await post(world_of(c, to), key, 0, in + at(to), bytes);
  }
  for (int k = 1; k < n; ++k) {
    const int from = (c.rank - k + n) % n;
    co_await take(world_of(c, from), key, 0, out + at(from), bytes);
  }
}

Task alltoall_bruck_task(const Communicator& c, mpf::coll::Key key, const void* send, void* recv,
                         std::uint32_t bytes) {
  if (bytes == 0) co_return;  // nothing to move, on every rank alike (the blocks are equal)
  const int n = c.size();
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const auto at = [bytes](int i) { return static_cast<std::size_t>(i) * bytes; };
  // tmp[i]: the block on its way to rank + i; after the rounds, the block
  // that came from rank - i.
  std::vector<std::byte> tmp(at(n)), message(at((n + 1) / 2));
  for (int i = 0; i < n; ++i) std::memcpy(tmp.data() + at(i), in + at((c.rank + i) % n), bytes);
  std::uint32_t step = 0;
  for (int k = 1; k < n; k *= 2, ++step) {
    // Round k: the blocks whose index has bit k go to rank + k.
    std::size_t m = 0;
    for (int i = k; i < n; ++i) {
      if ((i & k) != 0) std::memcpy(message.data() + at(static_cast<int>(m++)), tmp.data() + at(i), bytes);
    }
    const auto length = static_cast<std::uint32_t>(m * bytes);
    co_await post(world_of(c, (c.rank + k) % n), key, step, message.data(), length);
    co_await take(world_of(c, (c.rank - k + n) % n), key, step, message.data(), length);
    m = 0;
    for (int i = k; i < n; ++i) {
      if ((i & k) != 0) std::memcpy(tmp.data() + at(i), message.data() + at(static_cast<int>(m++)), bytes);
    }
  }
  for (int i = 0; i < n; ++i) std::memcpy(out + at((c.rank - i + n) % n), tmp.data() + at(i), bytes);
}

}  // namespace mpf::mpi::coll
