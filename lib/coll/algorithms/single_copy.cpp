// Large collectives by single-copy reads (coll_single_copy tunable): each
// rank tells its peers, through the collective cells, where its buffers
// are, and the peers read what they need straight from them with Cross
// Memory Attach, one copy, where the collective slots take two (in, then
// out). A last exchange of messages keeps every rank in the call until no
// peer reads its buffers any more.
//
//   bcast       every rank reads the root's buffer; with a CPU per rank
//               the root meanwhile writes the end of each reader's (a
//               1/n share), so that all the CPUs copy
//   reduce,     reduce-scatter, then allgather (or gather at the root):
//   allreduce   rank r combines block r of every rank's input, in rank
//               order (x0 op x1 op ...), reading each from its owner, then
//               writes the reduced block into every rank's output (the
//               root's). Each rank reads from all others,
//               which pays when they all run at once (up to
//               coll_exchange_max ranks), or beyond that when each
//               block is large enough to be worth a read of its own.
//   alltoall    every rank reads its block from each peer's send buffer
//   allgather   every rank reads each peer's block
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/scratch.hpp"

namespace mpf::coll {

namespace {

// read_peer and write_peer: `bytes` between `local` and address `remote` of
// world rank `peer`.
void copy_with_peer(bool write, std::uint32_t peer, void* local, std::uint64_t remote, std::size_t bytes,
                    const char* what) {
  core::Runtime& rt = core::Runtime::instance();
  if (bytes == 0) return;
  if (peer == rt.transport().rank()) {
    if (write) {
      std::memmove(reinterpret_cast<void*>(remote), local, bytes);
    } else {
      std::memmove(local, reinterpret_cast<const void*>(remote), bytes);
    }
    return;
  }
  // The node's collectives exchange buffer addresses, which is what the
  // shared-memory transport exposes.
  shm::Transport& transport = rt.transport();
  const transport::RemoteMemory memory{remote, 0};
  const common::Status copy =
      write ? transport.put(peer, memory, 0, local, bytes) : transport.get(peer, local, memory, 0, bytes);
  if (copy != common::Status::done) [[unlikely]] {
    rt.abort(1, std::string(copy == common::Status::retry ? "the kernel refused Cross Memory Attach ("
                                                          : "Cross Memory Attach failed (") +
                    (write ? "process_vm_writev" : "process_vm_readv") + ") to rank " + std::to_string(peer) +
                    " in a single-copy " + what +
                    "; run with --set coll_single_copy=0 (or MPF_COLL_SINGLE_COPY=0) to move large collectives "
                    "through shared memory instead");
  }
}

}  // namespace

void read_peer(std::uint32_t peer, void* local, std::uint64_t remote, std::size_t bytes, const char* what) {
  copy_with_peer(false, peer, local, remote, bytes, what);
}

void write_peer(std::uint32_t peer, std::uint64_t remote, const void* local, std::size_t bytes, const char* what) {
  copy_with_peer(true, peer, const_cast<void*>(local), remote, bytes, what);
}

const std::byte* reduce_span(const Group& c, const std::vector<Exposed>& peers, const std::byte* own,
                             std::size_t offset, int elements, Combine combine, std::byte* a,
                             std::byte* b, std::byte* last) {
  const int n = c.size();
  const std::size_t len = static_cast<std::size_t>(elements) * combine.element_bytes();
  // acc = x0, then acc op x_j into a buffer that does not hold acc (the
  // last one into `last`, if given): apply writes its second operand.
  const std::byte* acc = a;
  if (c.rank == 0 && own != nullptr) {
    acc = own + offset;  // read only
  } else {
    read_peer(c.world_of(0), a, peers[0].in + offset, len, "reduction");
  }
  for (int j = 1; j < n; ++j) {
    std::byte* target = j == n - 1 && last != nullptr ? last : (acc == a ? b : a);
    if (j == c.rank && own != nullptr) {
      combine.apply_into(acc, own + offset, target, elements);  // no copy of x_j first
    } else {
      read_peer(c.world_of(j), target, peers[static_cast<std::size_t>(j)].in + offset, len, "reduction");
      combine.apply(acc, target, elements);  // target = acc op x_j
    }
    acc = target;
  }
  return acc;
}

namespace {

// Step 0: every rank's Exposed to every other (the whole communicator).
Task exchange_exposed(const Group& c, Key key, Exposed mine, std::vector<Exposed>& all) {
  const int n = c.size();
  all[static_cast<std::size_t>(c.rank)] = mine;
  for (int k = 1; k < n; ++k) co_await post(c.world_of((c.rank + k) % n), key, 0, &mine, sizeof mine);
  for (int k = 1; k < n; ++k) {
    const int from = (c.rank - k + n) % n;
    co_await take(c.world_of(from), key, 0, &all[static_cast<std::size_t>(from)], sizeof(Exposed));
  }
}

// Step `step`: an empty message to every other rank and one from each.
Task all_signal(const Group& c, Key key, std::uint32_t step) {
  const int n = c.size();
  for (int k = 1; k < n; ++k) co_await post(c.world_of((c.rank + k) % n), key, step, nullptr, 0);
  for (int k = 1; k < n; ++k) co_await take(c.world_of((c.rank - k + n) % n), key, step, nullptr, 0);
}

// The bytes of a Bcast of `bytes` to `n` ranks that the root writes into
// each reader's buffer (its end) while the reader reads the rest: a 1/n
// share, in whole pages, so that every rank copies about as much. Only
// when every rank of the node has a CPU: otherwise the copies take turns
// on the CPUs anyway, and the root's writes would only add messages.
std::uint64_t bcast_root_share(std::uint64_t bytes, int n) {
  if (core::Runtime::instance().transport().oversubscribed()) return 0;
  constexpr std::uint64_t kPage = 4096;
  return bytes / static_cast<std::uint64_t>(n) / kPage * kPage;
}

}  // namespace

Task bcast_single_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root) {
  const int n = c.size();
  const std::uint32_t from = c.world_of(root);
  const std::uint64_t share = bcast_root_share(bytes, n);
  auto* data = static_cast<std::byte*>(buffer);
  if (c.rank == root) {
    const Exposed mine{address(buffer), 0};
    for (int k = 1; k < n; ++k) co_await post(c.world_of((root + k) % n), key, 0, &mine, sizeof mine);
    if (share > 0) {
      // Step 2: a reader's buffer; step 3: its end is written.
      for (int k = 1; k < n; ++k) {
        const std::uint32_t reader = c.world_of((root + k) % n);
        Exposed at;
        co_await take(reader, key, 2, &at, sizeof at);
        write_peer(reader, at.out + (bytes - share), data + (bytes - share), share, "broadcast");
        co_await post(reader, key, 3, nullptr, 0);
      }
    }
    // Done: every rank has read the buffer.
    for (int k = 1; k < n; ++k) co_await take(c.world_of((root + k) % n), key, 1, nullptr, 0);
    co_return;
  }
  if (share > 0) {
    const Exposed mine{0, address(buffer)};
    co_await post(from, key, 2, &mine, sizeof mine);
  }
  Exposed at;
  co_await take(from, key, 0, &at, sizeof at);
  read_peer(from, buffer, at.in, bytes - share, "broadcast");
  if (share > 0) co_await take(from, key, 3, nullptr, 0);
  co_await post(from, key, 1, nullptr, 0);
}

Task reduce_single_task(const Group& c, Key key, const void* send, void* recv, int count,
                        Combine combine, int root, std::uint64_t piece_bytes) {
  const int n = c.size();
  const std::size_t element = combine.element_bytes();
  auto* out = static_cast<std::byte*>(recv);
  // Block r: rank r's share of the elements, in rank order. Equal shares,
  // but for MPI_Reduce, whose other ranks must also write their block into
  // the root's output: there the root's share is larger, 1 + 0.6 / (n - 1)
  // of the others', so that they finish together (writing a block costs
  // about as much as reading one peer's part of it, 0.6 of reading and
  // combining it).
  const std::int64_t share = 5 * std::int64_t{n - 1}, root_share = root >= 0 ? share + 3 : share;
  const std::int64_t shares = share * (n - 1) + root_share;
  auto first = [&](int r) {
    const std::int64_t before = share * r + (root >= 0 && r > root ? root_share - share : 0);
    return static_cast<std::size_t>(before * count / shares);
  };
  const std::size_t mine = first(c.rank) * element, mine_bytes = first(c.rank + 1) * element - mine;
  // Where this rank's reduced block goes: its place in the output, or, for
  // a rank other than the root of MPI_Reduce (whose receive buffer does not
  // count), a buffer of its own until it is written into the root's.
  auto keeps_result = [root](int r) { return root < 0 || r == root; };
  Scratch own_block(keeps_result(c.rank) ? 0 : mine_bytes);
  std::byte* block = keeps_result(c.rank) ? out + mine : own_block.data();
  std::vector<Exposed> peers(static_cast<std::size_t>(n));
  Task exchange = exchange_exposed(c, key, {address(send), keeps_result(c.rank) ? address(recv) : 0}, peers);
  co_await finished(exchange);
  // Reduce-scatter, a piece at a time so that both operands stay in cache,
  // the last combination straight into the block. In place, this rank's
  // input is its output, so rank 0 copies it before combining into it.
  const std::size_t chunk_elements = std::max<std::size_t>(1, piece_bytes / element);
  const std::size_t chunk_bytes = std::min(chunk_elements, first(c.rank + 1) - first(c.rank)) * element;
  Scratch a(chunk_bytes), b(chunk_bytes);
  const auto* own = send == recv ? nullptr : static_cast<const std::byte*>(send);
  for (std::size_t e = first(c.rank); e < first(c.rank + 1); e += chunk_elements) {
    const std::size_t m = std::min(chunk_elements, first(c.rank + 1) - e);
    const std::size_t offset = e * element;
    reduce_span(c, peers, own, offset, static_cast<int>(m), combine, a.data(), b.data(), block + (offset - mine));
  }
  // Then this rank writes its block into the output of every other rank
  // that keeps the result. Only this rank reads block `mine` of a peer's
  // input, so in place the result may go over it at once, with no step
  // between. Written by its maker rather than read by each peer: a peer's
  // read takes copies of lines that this rank writes again at its next
  // call, which must then win them back, dearly when the host runs the
  // two CPUs on different caches (a 2-rank Allreduce of 1 MiB varied
  // twice as much with reads as with writes).
  for (int k = 1; k < n; ++k) {
    const int j = (c.rank + k) % n;
    if (!keeps_result(j)) continue;
    write_peer(c.world_of(j), peers[static_cast<std::size_t>(j)].out + mine, block, mine_bytes, "reduction");
  }
  // Step 1: every block is in every output (so no rank reads or writes a
  // peer's buffers any more).
  Task done = all_signal(c, key, 1);
  co_await finished(done);
}

namespace {

// Exposes `send`, then calls read(j, rank j's send address) for every rank
// j (this one included), starting with this one, then waits until no rank
// reads any more: the shape of alltoall and allgather. On the board the
// exposing and the waiting are two board calls, each one wait per rank.
Task read_every_rank(const Group& c, Key key, const void* send,
                     std::function<void(int, std::uint64_t)> read) {
  const int n = c.size();
  const bool flat = c.plan.on_board();
  const std::uint64_t call = flat ? board().reserve_rows(2) : 0;
  std::vector<Exposed> peers(static_cast<std::size_t>(n));
  const Exposed mine{address(send), 0};
  Task exchange = flat ? exposed_board_task(c, key, call, mine, peers) : exchange_exposed(c, key, mine, peers);
  co_await finished(exchange);
  for (int k = 0; k < n; ++k) {
    const int j = (c.rank + k) % n;
    read(j, peers[static_cast<std::size_t>(j)].in);
  }
  Task done = flat ? arrive_board_task(c, key, call + 1) : all_signal(c, key, 1);
  co_await finished(done);
}

}  // namespace

Task alltoall_single_task(const Group& c, Key key, const void* send, void* recv,
                          std::uint64_t bytes) {
  auto* out = static_cast<std::byte*>(recv);
  const auto me = static_cast<std::uint64_t>(c.rank);
  return read_every_rank(c, key, send, [&c, out, bytes, me](int j, std::uint64_t in) {
    read_peer(c.world_of(j), out + static_cast<std::size_t>(j) * bytes, in + me * bytes, bytes, "alltoall");
  });
}

Task allgatherv_single_task(const Group& c, Key key, const void* send, void* recv,
                            std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs) {
  auto* out = static_cast<std::byte*>(recv);
  return read_every_rank(c, key, send,
                         [&c, out, bytes = std::move(bytes), displs = std::move(displs)](int j, std::uint64_t in) {
                           const auto i = static_cast<std::size_t>(j);
                           read_peer(c.world_of(j), out + displs[i], in, bytes[i], "allgather");
                         });
}

}  // namespace mpf::coll
