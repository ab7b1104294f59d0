// The collectives as point-to-point messages through the progress engine
// (Algorithm::messages), flat over the group's members (message.hpp): they
// run on any group, and on a group whose members are on several nodes,
// where the slots, cells and board of one node's segment reach only part
// of it, they serve the calls the hierarchical ones (hierarchical.cpp) do
// not (non-commutative reductions, the v-collectives, scans).
//
//   barrier              dissemination (ceil(log2 n) rounds of empty messages)
//   bcast                binomial tree from the root
//   reduce, allreduce    binomial tree to rank 0, combining in rank order
//                        (x0 op x1 op ...: non-commutative operations too),
//                        then to the root, or down the tree again
//   gatherv, scatterv    straight to and from the root
//   alltoallv            every pair at once (all receives posted first)
//   scan, exscan         a chain in rank order
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/message.hpp"

namespace mpf::coll {

Task barrier_messages_task(const Group& c, Key key) {
  const int n = c.size();
  std::uint32_t step = 0;
  for (int distance = 1; distance < n; distance *= 2, ++step) {
    Message in(false, c, key, step, (c.rank - distance + n) % n, nullptr, 0);
    Message out(true, c, key, step, (c.rank + distance) % n, nullptr, 0);
    co_await arrived(out);
    co_await arrived(in);
  }
}

Task bcast_messages_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root) {
  const int n = c.size();
  const int me = (c.rank - root + n) % n;  // place in the tree rooted at 0
  int mask = 1;
  while (mask < n) {
    if ((me & mask) != 0) {
      Message in(false, c, key, 0, (me - mask + root) % n, buffer, bytes);
      co_await arrived(in);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (me + mask < n) {
      Message out(true, c, key, 0, (me + mask + root) % n, buffer, bytes);
      co_await arrived(out);
    }
  }
}

Task reduce_messages_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine, int root) {
  const int n = c.size();
  const std::size_t bytes = static_cast<std::size_t>(count) * combine.element_bytes();
  // acc: this rank's subtree (ranks rank .. rank + 2^k - 1), in rank order.
  std::vector<std::byte> acc(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
  std::vector<std::byte> child(bytes);
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if ((c.rank & mask) != 0) {
      Message up(true, c, key, 0, c.rank - mask, acc.data(), bytes);
      co_await arrived(up);
      break;
    }
    if (c.rank + mask < n) {
      Message in(false, c, key, 0, c.rank + mask, child.data(), bytes);
      co_await arrived(in);
      combine.apply(acc.data(), child.data(), count);  // child = acc op child
      std::swap(acc, child);
    }
  }
  if (root >= 0) {
    if (c.rank == 0 && root == 0) {
      std::memcpy(recv, acc.data(), bytes);
    } else if (c.rank == 0) {
      Message out(true, c, key, 1, root, acc.data(), bytes);
      co_await arrived(out);
    } else if (c.rank == root) {
      Message in(false, c, key, 1, 0, recv, bytes);
      co_await arrived(in);
    }
    co_return;
  }
  if (c.rank == 0) std::memcpy(recv, acc.data(), bytes);
  Task down = bcast_messages_task(c, {key.context, key.seq, key.kind, 0}, recv, bytes, 0);
  co_await finished(down);
}

Task gatherv_messages_task(const Group& c, Key key, const void* send, std::uint64_t send_bytes, void* recv,
                           std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs, int root) {
  if (c.rank != root) {
    Message out(true, c, key, 0, root, send, send_bytes);
    co_await arrived(out);
    co_return;
  }
  auto* out = static_cast<std::byte*>(recv);
  const auto me = static_cast<std::size_t>(c.rank);
  if (send != nullptr && send != out + displs[me] && bytes[me] > 0) std::memcpy(out + displs[me], send, bytes[me]);
  std::vector<std::unique_ptr<Message>> in;
  for (int j = 0; j < c.size(); ++j) {
    const auto ju = static_cast<std::size_t>(j);
    if (j != root) in.push_back(std::make_unique<Message>(false, c, key, 0, j, out + displs[ju], bytes[ju]));
  }
  for (const auto& m : in) co_await arrived(*m);
}

Task scatterv_messages_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> bytes,
                            std::vector<std::uint64_t> displs, void* recv, std::uint64_t recv_bytes, int root) {
  if (c.rank != root) {
    Message in(false, c, key, 0, root, recv, recv_bytes);
    co_await arrived(in);
    co_return;
  }
  const auto* in = static_cast<const std::byte*>(send);
  std::vector<std::unique_ptr<Message>> out;
  for (int j = 0; j < c.size(); ++j) {
    const auto ju = static_cast<std::size_t>(j);
    if (j != root) out.push_back(std::make_unique<Message>(true, c, key, 0, j, in + displs[ju], bytes[ju]));
  }
  const auto me = static_cast<std::size_t>(root);
  if (recv != nullptr && bytes[me] > 0) std::memcpy(recv, in + displs[me], bytes[me]);
  for (const auto& m : out) co_await arrived(*m);
}

Task alltoallv_messages_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> send_bytes,
                             std::vector<std::uint64_t> send_displs, void* recv, std::vector<std::uint64_t> recv_bytes,
                             std::vector<std::uint64_t> recv_displs) {
  const int n = c.size();
  const auto me = static_cast<std::size_t>(c.rank);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (send_bytes[me] > 0) std::memmove(out + recv_displs[me], in + send_displs[me], send_bytes[me]);
  std::vector<std::unique_ptr<Message>> messages;
  for (int k = 1; k < n; ++k) {
    const auto from = static_cast<std::size_t>((c.rank - k + n) % n);
    messages.push_back(
        std::make_unique<Message>(false, c, key, 0, static_cast<int>(from), out + recv_displs[from], recv_bytes[from]));
  }
  for (int k = 1; k < n; ++k) {
    const auto to = static_cast<std::size_t>((c.rank + k) % n);
    messages.push_back(
        std::make_unique<Message>(true, c, key, 0, static_cast<int>(to), in + send_displs[to], send_bytes[to]));
  }
  for (const auto& m : messages) co_await arrived(*m);
}

Task scan_messages_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
                        bool exclusive) {
  const std::size_t bytes = static_cast<std::size_t>(count) * combine.element_bytes();
  // prefix: x0 op ... op x(rank-1), from the rank below; then op this rank's.
  std::vector<std::byte> prefix(bytes),
      mine(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
  if (c.rank > 0) {
    Message in(false, c, key, 0, c.rank - 1, prefix.data(), bytes);
    co_await arrived(in);
    if (exclusive) std::memcpy(recv, prefix.data(), bytes);
    combine.apply(prefix.data(), mine.data(), count);  // mine = prefix op mine
  }
  if (!exclusive) std::memcpy(recv, mine.data(), bytes);
  if (c.rank + 1 < c.size()) {
    Message out(true, c, key, 0, c.rank + 1, mine.data(), bytes);
    co_await arrived(out);
  }
}

}  // namespace mpf::coll
