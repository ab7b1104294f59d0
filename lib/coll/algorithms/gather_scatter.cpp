// Gather and scatter straight to and from the root, and all-to-all with
// every rank publishing its blocks in turn (seed 002 §3.3: direct transfers
// beat staged ones on shared memory, when ranks do not all pick the same
// peer at once — so rank r serves r+1, r+2, ... and reads from r-1, r-2, ...).
// All-to-all blocks that fit a collective cell go through the pair's cells.
#include <algorithm>
#include <cstring>
#include <set>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/pending.hpp"

namespace mpf::coll {

namespace {

// A block for one consumer, cut into steps of at most a slot.
struct Block {
  int dest;  // comm rank
  const std::byte* data;
  std::uint64_t bytes;
};

// Cuts `blocks` into steps: each step's pieces fit one slot (with their
// 64-byte alignment) and the slot's piece table.
std::vector<std::vector<Piece>> plan_steps(const Group& c, const std::vector<Block>& blocks,
                                           std::uint32_t capacity) {
  std::vector<std::vector<Piece>> steps(1);
  std::uint32_t used = 0;
  for (const Block& block : blocks) {
    std::uint64_t offset = 0;
    do {
      if (used >= capacity || steps.back().size() == kCollPieces) {
        steps.emplace_back();
        used = 0;
      }
      const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(capacity - used, block.bytes - offset));
      steps.back().push_back(
          {static_cast<std::int32_t>(c.world_of(block.dest)), offset, block.data + offset, len});
      used += Channel::aligned(len);
      offset += len;
    } while (offset < block.bytes);
  }
  if (steps.back().empty()) steps.pop_back();
  return steps;
}

std::vector<std::uint32_t> consumers_of(const std::vector<Piece>& step) {
  std::set<std::uint32_t> set;
  for (const Piece& p : step) set.insert(static_cast<std::uint32_t>(p.dest));
  return {set.begin(), set.end()};
}

// Receives `bytes` from comm rank `from` (steps >= 0 of `key`) at `out`.
Task take_block(const Group& c, Key key, int from, std::byte* out, std::uint64_t bytes) {
  std::uint64_t got = 0;
  const std::uint32_t publisher = c.world_of(from);
  auto copy = [&](std::uint32_t, std::span<const Received> pieces) {
    for (const Received& p : pieces) {
      std::memcpy(out + p.offset, p.data, p.bytes);
      got += p.bytes;
    }
  };
  for (std::uint32_t step = 0, seen = 0; got < bytes; step = seen + 1) {
    co_await until(static_cast<std::int32_t>(publisher), [&] { return channel().try_take(publisher, key, step, copy, &seen); });
  }
}

// Publishes `steps` one after the other.
Task publish_steps(Key key, std::vector<std::vector<Piece>> steps) {
  for (std::uint32_t s = 0; s < steps.size(); ++s) {
    co_await slot_free();
    channel().publish(key, s, steps[s], consumers_of(steps[s]));
  }
}

}  // namespace

Task gatherv_task(const Group& c, Key key, const void* send, std::uint64_t send_bytes, void* recv,
                  std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs, int root) {
  if (c.plan.across_nodes()) {
    Task messages = gatherv_messages_task(c, key, send, send_bytes, recv, std::move(bytes), std::move(displs), root);
    co_await finished(messages);
    co_return;
  }
  auto* out = static_cast<std::byte*>(recv);
  if (c.rank != root) {
    if (send_bytes == 0) co_return;
    const std::vector<Block> blocks{{root, static_cast<const std::byte*>(send), send_bytes}};
    Task publish = publish_steps(key, plan_steps(c, blocks, channel().capacity()));
    co_await finished(publish);
    co_return;
  }
  const auto me = static_cast<std::size_t>(c.rank);
  // (An allgather's own block may already be in place.)
  if (send != nullptr && send != out + displs[me] && bytes[me] > 0) std::memcpy(out + displs[me], send, bytes[me]);
  for (int j = 0; j < c.size(); ++j) {
    if (j == root) continue;
    Task take = take_block(c, key, j, out + displs[static_cast<std::size_t>(j)], bytes[static_cast<std::size_t>(j)]);
    co_await finished(take);
  }
}

Task scatterv_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> bytes,
                   std::vector<std::uint64_t> displs, void* recv, std::uint64_t recv_bytes, int root) {
  if (c.plan.across_nodes()) {
    Task messages = scatterv_messages_task(c, key, send, std::move(bytes), std::move(displs), recv, recv_bytes, root);
    co_await finished(messages);
    co_return;
  }
  if (c.rank != root) {
    Task take = take_block(c, key, root, static_cast<std::byte*>(recv), recv_bytes);
    co_await finished(take);
    co_return;
  }
  const auto* in = static_cast<const std::byte*>(send);
  std::vector<Block> blocks;
  for (int k = 1; k < c.size(); ++k) {
    const int j = (root + k) % c.size();
    const auto ju = static_cast<std::size_t>(j);
    if (bytes[ju] > 0) blocks.push_back({j, in + displs[ju], bytes[ju]});
  }
  Task publish = publish_steps(key, plan_steps(c, blocks, channel().capacity()));
  co_await finished(publish);
  const auto me = static_cast<std::size_t>(root);
  if (recv != nullptr && bytes[me] > 0) std::memcpy(recv, in + displs[me], bytes[me]);
}

Task alltoallv_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> send_bytes,
                    std::vector<std::uint64_t> send_displs, void* recv, std::vector<std::uint64_t> recv_bytes,
                    std::vector<std::uint64_t> recv_displs) {
  if (c.plan.across_nodes()) {
    Task messages = alltoallv_messages_task(c, key, send, std::move(send_bytes), std::move(send_displs), recv,
                                            std::move(recv_bytes), std::move(recv_displs));
    co_await finished(messages);
    co_return;
  }
  const int n = c.size();
  const auto me = static_cast<std::size_t>(c.rank);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (send_bytes[me] > 0) std::memmove(out + recv_displs[me], in + send_displs[me], send_bytes[me]);
  // A pair's block goes through the pair's cells when it fits one (both
  // ranks of the pair know its size), through the slot otherwise.
  Cells& cl = cells();
  const std::uint32_t short_limit = cl.capacity();
  std::vector<Block> blocks, short_out;
  for (int k = 1; k < n; ++k) {
    const int j = (c.rank + k) % n;
    const auto ju = static_cast<std::size_t>(j);
    if (send_bytes[ju] == 0) continue;
    (send_bytes[ju] <= short_limit ? short_out : blocks).push_back({j, in + send_displs[ju], send_bytes[ju]});
  }
  Channel& ch = channel();
  const auto steps = plan_steps(c, blocks, ch.capacity());
  // What is still to come from each peer, and the next step to look for.
  struct Incoming {
    int from;
    std::uint64_t got;
    std::uint32_t step;
  };
  std::vector<Incoming> incoming, short_in;
  for (int k = 1; k < n; ++k) {
    const int j = (c.rank - k + n) % n;
    const std::uint64_t bytes = recv_bytes[static_cast<std::size_t>(j)];
    if (bytes > 0) (bytes <= short_limit ? short_in : incoming).push_back({j, 0, 0});
  }
  std::size_t next_step = 0, next_short = 0;
  // Publishing and taking interleave: a rank whose next step waits for its
  // consumers keeps taking its own blocks meanwhile, so no two ranks wait on
  // each other. Each round does what it can; the task waits only when a
  // round did nothing.
  auto received = [&](const Incoming& i) { return i.got >= recv_bytes[static_cast<std::size_t>(i.from)]; };
  auto finished_all = [&] {
    return next_step >= steps.size() && next_short >= short_out.size() &&
           std::all_of(incoming.begin(), incoming.end(), received) &&
           std::all_of(short_in.begin(), short_in.end(), received);
  };
  auto advance = [&] {
    bool moved = false;
    while (next_short < short_out.size()) {
      const Block& b = short_out[next_short];
      if (!cl.try_post(c.world_of(b.dest), key, 0, b.data, static_cast<std::uint32_t>(b.bytes))) break;
      ++next_short;
      moved = true;
    }
    if (next_step < steps.size() && ch.drained()) {
      ch.publish(key, static_cast<std::uint32_t>(next_step), steps[next_step], consumers_of(steps[next_step]));
      ++next_step;
      moved = true;
    }
    for (Incoming& i : short_in) {
      const auto ju = static_cast<std::size_t>(i.from);
      if (received(i) || !cl.try_take_into(c.world_of(i.from), key, 0, out + recv_displs[ju],
                                             static_cast<std::uint32_t>(recv_bytes[ju]))) {
        continue;
      }
      i.got = recv_bytes[ju];
      moved = true;
    }
    for (Incoming& i : incoming) {
      const auto ju = static_cast<std::size_t>(i.from);
      if (received(i)) continue;
      std::uint32_t seen = 0;
      const bool took = ch.try_take(
          c.world_of(i.from), key, i.step,
          [&](std::uint32_t, std::span<const Received> pieces) {
            for (const Received& p : pieces) {
              std::memcpy(out + recv_displs[ju] + p.offset, p.data, p.bytes);
              i.got += p.bytes;
            }
          },
          &seen);
      if (took) {
        i.step = seen + 1;
        moved = true;
      }
    }
    return moved;
  };
  while (!finished_all()) co_await until(-1, [&] { return advance() || finished_all(); });
}

Task alltoall_task(const Group& c, Key key, const void* send, void* recv, std::uint64_t bytes) {
  const Choice choice = c.plan.choose(Operation::alltoall, bytes);
  switch (choice.algorithm) {
    case Algorithm::board: return alltoall_board_task(c, key, send, recv, bytes);
    case Algorithm::single_copy: return alltoall_single_task(c, key, send, recv, bytes);
    case Algorithm::bruck: return alltoall_bruck_task(c, key, send, recv, static_cast<std::uint32_t>(bytes));
    case Algorithm::cells: return alltoall_cells_task(c, key, send, recv, static_cast<std::uint32_t>(bytes));
    case Algorithm::slots:
    case Algorithm::messages: {
      const auto n = static_cast<std::size_t>(c.size());
      std::vector<std::uint64_t> each(n, bytes), displs(n);
      for (std::size_t i = 0; i < n; ++i) displs[i] = i * bytes;
      return alltoallv_task(c, key, send, each, displs, recv, each, displs);
    }
    default: break;
  }
  unplanned(Operation::alltoall, choice.algorithm);
}

bool allgather_packed(const Group& c, std::uint64_t largest) {
  const Algorithm algorithm = c.plan.choose(Operation::allgather, largest).algorithm;
  return algorithm == Algorithm::board_stage || algorithm == Algorithm::gather_bcast;
}

namespace {

Task gather_then_bcast(const Group& c, Key gather_key, Key bcast_key, const void* send,
                       std::uint64_t send_bytes, void* recv, std::vector<std::uint64_t> bytes,
                       std::vector<std::uint64_t> displs) {
  const std::uint64_t total = displs.back() + bytes.back();  // packed in rank order
  Task gather = gatherv_task(c, gather_key, send, send_bytes, recv, std::move(bytes), std::move(displs), 0);
  co_await finished(gather);
  Task bcast = bcast_task(c, bcast_key, recv, total, 0);
  co_await finished(bcast);
}

}  // namespace

Task allgatherv_task(const Group& c, Key gather_key, Key bcast_key, const void* send,
                     std::uint64_t send_bytes, void* recv, std::vector<std::uint64_t> bytes,
                     std::vector<std::uint64_t> displs) {
  const std::uint64_t largest = *std::max_element(bytes.begin(), bytes.end());
  const Choice choice = c.plan.choose(Operation::allgather, largest);
  switch (choice.algorithm) {
    case Algorithm::board_stage:
      return allgather_board_task(c, gather_key, send, recv, std::move(bytes), std::move(displs));
    case Algorithm::gather_bcast:
      return gather_then_bcast(c, gather_key, bcast_key, send, send_bytes, recv, std::move(bytes), std::move(displs));
    case Algorithm::cells:
      return allgatherv_cells_task(c, gather_key, send, recv, std::move(bytes), std::move(displs));
    case Algorithm::single_copy:
      return allgatherv_single_task(c, gather_key, send, recv, std::move(bytes), std::move(displs));
    case Algorithm::slots:
    case Algorithm::messages: {
      // An all-to-all in which every rank sends each peer the same block.
      const auto n = static_cast<std::size_t>(c.size());
      return alltoallv_task(c, gather_key, send, std::vector<std::uint64_t>(n, send_bytes),
                            std::vector<std::uint64_t>(n, 0), recv, std::move(bytes), std::move(displs));
    }
    default: break;
  }
  unplanned(Operation::allgather, choice.algorithm);
}

void gatherv(Group& c, const void* send, std::uint64_t send_bytes, void* recv,
             const std::vector<std::uint64_t>& bytes, const std::vector<std::uint64_t>& displs, int root,
             const char* call) {
  const Key key = c.next_collective(kGatherv, root);
  run(gatherv_task(c, key, send, send_bytes, recv, bytes, displs, root), c, call, root);
}

void scatterv(Group& c, const void* send, const std::vector<std::uint64_t>& bytes,
              const std::vector<std::uint64_t>& displs, void* recv, std::uint64_t recv_bytes, int root,
              const char* call) {
  const Key key = c.next_collective(kScatterv, root);
  run(scatterv_task(c, key, send, bytes, displs, recv, recv_bytes, root), c, call, root);
}

void alltoallv(Group& c, const void* send, const std::vector<std::uint64_t>& send_bytes,
               const std::vector<std::uint64_t>& send_displs, void* recv, const std::vector<std::uint64_t>& recv_bytes,
               const std::vector<std::uint64_t>& recv_displs, const char* call) {
  const Key key = c.next_collective(kAlltoallv, -1);
  run(alltoallv_task(c, key, send, send_bytes, send_displs, recv, recv_bytes, recv_displs), c, call, -1);
}

void allgather_in_order(Group& c, const void* send, void* recv, const std::vector<std::uint64_t>& bytes,
                        const char* call) {
  std::vector<std::uint64_t> displs(bytes.size());
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    displs[i] = at;
    at += bytes[i];
  }
  const Key gather_key = c.next_collective(kGatherv, 0);
  const Key bcast_key = c.next_collective(kBcast, 0);
  const std::uint64_t mine = bytes[static_cast<std::size_t>(c.rank)];
  run(allgatherv_task(c, gather_key, bcast_key, send, mine, recv, bytes, std::move(displs)), c, call, -1);
}

void alltoall(Group& c, const void* send, void* recv, std::uint64_t bytes, const char* call) {
  const Key key = c.next_collective(kAlltoallv, -1);
  if (!alltoall_by_steps(c, key, send, recv, bytes, call)) run(alltoall_task(c, key, send, recv, bytes), c, call, -1);
}

}  // namespace mpf::coll
