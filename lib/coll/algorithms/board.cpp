// The flat collectives of the job's world group (MPI_COMM_WORLD) over the
// board (coll/board.hpp), when the world has more ranks than coll_exchange_max (by default, than
// the job's CPUs): every rank waits once per call instead of once per level
// of a tree, and a broadcast root does not wait for its readers at all.
// The barrier, a Bcast of one entry and a reduction of one row are steps
// (steps.hpp), which a blocking call runs without a task.
//
//   barrier      every rank arrives; the last releases
//   bcast        the root writes entries (kBoardDataBytes each), the others
//                copy them out; the root goes on as soon as they are written.
//                In a run of one-entry Bcasts of rotating roots, the ranks
//                take turns (coll/board.hpp): only those whose turn as root
//                comes next yield, the others sleep until it comes near.
//                From half the entries' ring (the default rules), the same
//                through the stage, one large entry (in rounds of its size)
//   reduce       every rank writes its vector in its row; the last to arrive
//   allreduce    combines the rows in rank order (x0 op x1 op ... op xn-1,
//                whoever arrives last and whoever the root) into the result
//                row, which the root, or every rank, copies out
//   large        with a commutative operation, every rank adds its input
//   reductions   into one of the board's sums, piece by piece, and arrives;
//                after the release every rank (Allreduce) or the root
//                copies the sum out; larger vectors in rounds of the sum's
//                size. With an exact operation (Combine::exact: integers,
//                logicals, bytes; any order gives the same bits) a rank
//                adds to whichever piece is free as soon as it runs, and
//                waits for no one; else (floating point) a piece takes the
//                inputs in rank order, and a rank waits for its turn,
//                woken by the rank before it (after a first row call, so
//                that ranks in other collectives are named, not waited
//                for). Each input is read once, by its own rank, with no
//                Cross Memory Attach
//   non-         by single copy, the work shared: every rank puts where its
//   commutative  buffers are in its row; after the release, a rank that
//                has the CPU takes the next piece of the vector (a counter
//                in the call's result row), combines it from every rank's
//                input in rank order and writes it into the root's output
//                (Reduce) or the stage (Allreduce; past its size, into every
//                output); a second call keeps all ranks in until the last
//                piece is written, and then each copies the stage out. Each
//                input is read once and each output written once, by
//                whichever ranks get a CPU
//   alltoall     in rounds: each rank writes the blocks for a range of
//                destinations in its row, and after the release each
//                destination in the range copies its block from every row
//                (blocks of more than 4 KiB go by single copy, exposed and
//                finished by two row calls: exposed_board_task)
//   allgather    once every rank is in (a row call), each copies its block
//                into the stage; after a second, each copies them all out
#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/algorithms/steps.hpp"
#include "coll/scratch.hpp"
#include "common/streaming_copy.hpp"

namespace mpf::coll {
namespace {

// How the group's API names the call a key belongs to, in messages.
const char* call_name(progress::WaitApi api, std::uint32_t kind) {
  const bool mpi = api == progress::WaitApi::mpi;
  switch (kind) {
    case kBarrier: return mpi ? "MPI_Barrier" : "a barrier";
    case kBcast: return mpi ? "MPI_Bcast" : "a broadcast";
    case kReduce: return mpi ? "MPI_Reduce" : "a reduction";
    case kAllreduce: return mpi ? "MPI_Allreduce" : "a reduction to all";
    case kScan: return mpi ? "MPI_Scan" : "a scan";
    case kExscan: return mpi ? "MPI_Exscan" : "an exclusive scan";
    case kGatherv: return "a gather";
    case kScatterv: return "a scatter";
    case kAlltoallv: return "an all-to-all";
    default: return "an unknown collective";
  }
}

std::string describe(const Group& g, Key key) {
  std::string text = std::string(call_name(g.api, key.kind)) + " (collective #" + std::to_string(key.seq);
  if (key.root >= 0) text += ", root " + std::to_string(key.root);
  return text + ")";
}

[[noreturn]] void mismatched(const Group& g, std::uint32_t one, Key one_key, std::uint32_t other, Key other_key) {
  core::Runtime::instance().abort(1, "collective mismatch on " + g.name + ": rank " + std::to_string(one) +
                                         " called " + describe(g, one_key) + " while rank " + std::to_string(other) +
                                         " called " + describe(g, other_key));
}

// The last to arrive at `call`: every rank must be in the same collective.
void check_same_call(const Group& g, std::uint64_t call) {
  const Board& b = board();
  const std::int32_t other = b.mismatch(call);
  if (other < 0) return;
  const auto rank = static_cast<std::uint32_t>(other);
  mismatched(g, 0, b.key_of(call, 0), rank, b.key_of(call, rank));
}

// A stage that a collective found still in use while every rank was in
// it: a bug in this library, not in the program.
[[noreturn]] void stage_busy(const Group& g, Key key) {
  core::Runtime::instance().abort(1, "internal error: the board's stage was still in use in " + describe(g, key));
}

// Counts this rank in at `call`; the last to arrive checks the call, runs
// finish() and releases the others.
template <class Finish>
void count_in(const Group& g, std::uint64_t call, Key key, Finish finish) {
  Board& b = board();
  if (b.arrive(call, key)) {
    check_same_call(g, call);
    finish();
    b.release(call);
  }
}

// co_await arrive(c, call, key, finish): count_in, then resumes once the call
// is released (the last at once).
template <class Finish>
auto arrive(const Group& g, std::uint64_t call, Key key, Finish finish) {
  count_in(g, call, key, finish);
  return until(-1, [call] { return board().released(call); });
}

// Where a Bcast's data goes: the board's entries, or its stage, copied out
// with ordinary or streaming stores (Plan::streams).
enum class BcastVia { entries, stage, stage_streaming };

// Moves entry `number` (root: publishes it; others: copy it out): true once
// done. Shared by the Bcast's task and its steps.
bool bcast_entry(const Group& c, Key key, std::uint64_t number, std::byte* data, std::uint32_t length,
                 int root, BcastVia via, bool rotating = false) {
  Board& b = board();
  const bool staged = via != BcastVia::entries;
  if (c.rank == root) {
    return staged ? b.try_publish_stage(number, key, data, length, static_cast<std::uint32_t>(c.size() - 1))
                  : b.try_publish(number, key, data, length, rotating);
  }
  Key other{};
  const Board::Read read =
      staged ? b.try_read_stage(number, key, data, length, &other, via == BcastVia::stage_streaming)
             : b.try_read(number, key, data, length, &other);
  if (read == Board::Read::mismatch) {
    mismatched(c, c.world_of(c.rank), key, static_cast<std::uint32_t>(other.root), other);
  }
  return read == Board::Read::taken;
}

// The board's short collectives as steps (steps.hpp), so that a blocking
// call runs them without a task. Numbers are taken at the first step, when
// the collective starts to run (after the nonblocking ones before it).
class BoardBarrier {
 public:
  BoardBarrier(const Group& c, Key key) : c_(c), key_(key) {}
  int count() const { return 1; }
  std::int32_t peer(int) const { return -1; }
  bool try_step(int) {
    if (call_ == 0) {
      call_ = board().reserve_rows(1);
      count_in(c_, call_, key_, [] {});
    }
    return board().released(call_);
  }
  void finish() {}

 private:
  const Group& c_;
  Key key_;
  std::uint64_t call_ = 0;
};

// A Bcast of one entry's worth (in a run of rotating roots, with turns:
// coll/board.hpp).
class BoardBcastEntry {
 public:
  BoardBcastEntry(const Group& c, Key key, void* buffer, std::uint32_t bytes, int root)
      : c_(c), key_(key), data_(static_cast<std::byte*>(buffer)), bytes_(bytes), root_(root) {}
  int count() const { return 1; }
  std::int32_t peer(int) const { return c_.rank == root_ ? -1 : static_cast<std::int32_t>(c_.world_of(root_)); }
  progress::Turn turn(int) const {
    return rotating_ && c_.rank != root_ ? board().turn(c_.world_of(root_)) : progress::Turn::none;
  }
  bool try_step(int) {
    if (number_ == 0) number_ = board().reserve_entry(c_.world_of(root_), rotating_);
    return bcast_entry(c_, key_, number_, data_, bytes_, root_, BcastVia::entries, rotating_);
  }
  void finish() {}

 private:
  const Group& c_;
  Key key_;
  std::byte* data_;
  std::uint32_t bytes_;
  int root_;
  std::uint64_t number_ = 0;
  bool rotating_ = false;
};

// A Reduce or Allreduce of one row's worth: every rank writes its vector
// in its row; the last to arrive combines the rows in rank order into the
// result row, which the root, or every rank, copies out.
class BoardReduce {
 public:
  BoardReduce(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
              int root)
      : c_(c), key_(key), send_(send), recv_(recv), count_(count), combine_(combine), root_(root),
        bytes_(static_cast<std::size_t>(count) * combine.element_bytes()) {}
  int count() const { return 1; }
  std::int32_t peer(int) const { return -1; }
  bool try_step(int) {
    Board& b = board();
    if (call_ == 0) {
      call_ = b.reserve_rows(1);
      std::memcpy(b.row(call_, static_cast<std::uint32_t>(c_.rank)), send_, bytes_);
      count_in(c_, call_, key_, [this, &b] {
        // result = x0 op (x1 op (... op xn-1)): combined from the last row down.
        const auto n = static_cast<std::uint32_t>(c_.size());
        std::byte* result = b.result(call_);
        std::memcpy(result, b.row(call_, n - 1), bytes_);
        for (std::uint32_t r = n - 1; r-- > 0;) combine_.apply(b.row(call_, r), result, count_);
      });
    }
    return b.released(call_);
  }
  void finish() {
    if (root_ < 0 || c_.rank == root_) std::memcpy(recv_, board().result(call_), bytes_);
  }

 private:
  const Group& c_;
  Key key_;
  const void* send_;
  void* recv_;
  int count_;
  Combine combine_;
  int root_;
  std::size_t bytes_;
  std::uint64_t call_ = 0;
};

}  // namespace

Task barrier_board_task(const Group& c, Key key) { return steps_task<BoardBarrier>(c, key); }

bool barrier_board_by_steps(const Group& c, Key key, const char* call) {
  BoardBarrier steps(c, key);
  run_steps(steps, c, call, -1);
  return true;
}

bool bcast_board_by_steps(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root,
                          const char* call) {
  if (bytes > Board::capacity()) return false;
  BoardBcastEntry steps(c, key, buffer, static_cast<std::uint32_t>(bytes), root);
  run_steps(steps, c, call, root);
  return true;
}

Task exposed_board_task(const Group& c, Key key, std::uint64_t call, Exposed mine, std::vector<Exposed>& all) {
  Board& b = board();
  std::memcpy(b.row(call, static_cast<std::uint32_t>(c.rank)), &mine, sizeof mine);
  co_await arrive(c, call, key, [] {});
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::memcpy(&all[r], b.row(call, static_cast<std::uint32_t>(r)), sizeof(Exposed));
  }
}

Task arrive_board_task(const Group& c, Key key, std::uint64_t call) {
  co_await arrive(c, call, key, [] {});
}

Task bcast_board_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root, bool staged) {
  Board& b = board();
  const BcastVia via =
      !staged ? BcastVia::entries : (c.plan.streams(bytes) ? BcastVia::stage_streaming : BcastVia::stage);
  const std::uint64_t window = staged ? b.stage_capacity() : Board::capacity();
  const auto uses = static_cast<std::uint32_t>((bytes + window - 1) / window);
  const std::uint64_t first = staged ? b.reserve_stage(uses) : b.reserve_entries(uses);
  auto* data = static_cast<std::byte*>(buffer);
  const std::int32_t peer = c.rank == root ? -1 : static_cast<std::int32_t>(c.world_of(root));
  for (std::uint64_t offset = 0, number = first; offset < bytes; offset += window, ++number) {
    const auto length = static_cast<std::uint32_t>(std::min(window, bytes - offset));
    co_await until(peer, [&] { return bcast_entry(c, key, number, data + offset, length, root, via); });
  }
}

Task reduce_board_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine, int root) {
  return steps_task<BoardReduce>(c, key, send, recv, count, combine, root);
}

bool reduce_board_by_steps(const Group& c, Key key, const void* send, void* recv, int count,
                           Combine combine, int root, const char* call) {
  if (static_cast<std::uint64_t>(count) * combine.element_bytes() > Board::capacity()) return false;
  BoardReduce steps(c, key, send, recv, count, combine, root);
  run_steps(steps, c, call, root);
  return true;
}

Task reduce_board_sum_task(const Group& c, Key key, const void* send, void* recv, int count,
                           Combine combine, int root, bool in_order, std::uint64_t piece_bytes) {
  Board& b = board();
  const std::size_t element = combine.element_bytes();
  const std::uint64_t per_round = b.stage_capacity() / element;
  const auto rounds = static_cast<std::uint32_t>((static_cast<std::uint64_t>(count) + per_round - 1) / per_round);
  // In rank order a rank waits for the one before it, which a rank in
  // another collective never satisfies: a first row call has every rank
  // show its call, so that a mismatch ends the job with both calls named
  // (check_same_call) instead of hanging in the sum.
  std::uint64_t call = b.reserve_rows(rounds + (in_order ? 1 : 0));
  if (in_order) co_await arrive(c, call++, key, [] {});
  std::uint64_t use = b.reserve_sums(rounds);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const bool keeps_result = root < 0 || c.rank == root;
  // Only an Allreduce's copies add up across the node.
  const bool stream = root < 0 && c.plan.streams(static_cast<std::uint64_t>(count) * element);
  // Pieces of whole elements, small enough that ranks with a CPU each seldom
  // need the same one, large enough that holding one costs little.
  const std::uint64_t per_piece = std::max<std::uint64_t>(piece_bytes / element, 1);
  for (std::uint64_t first = 0; first < static_cast<std::uint64_t>(count); first += per_round, ++call, ++use) {
    const std::uint64_t elements = std::min(per_round, static_cast<std::uint64_t>(count) - first);
    const std::byte* mine = in + first * element;
    std::byte* sum = b.sum_data(use);
    const auto pieces = static_cast<std::uint32_t>((elements + per_piece - 1) / per_piece);
    auto add = [&](std::uint32_t p, bool first_to_add) {
      const std::uint64_t offset = p * per_piece * element;
      const auto n = static_cast<int>(std::min(per_piece, elements - p * per_piece));
      if (first_to_add) {
        std::memcpy(sum + offset, mine + offset, static_cast<std::size_t>(n) * element);
      } else {
        // sum = mine op sum: the same bits as sum op mine for a commutative
        // operation (IEEE addition and multiplication are).
        combine.apply(mine + offset, sum + offset, n);
      }
    };
    if (in_order) {
      // Rank r's turn on a piece comes after rank r - 1's: wait for it.
      b.start_sum(pieces);
      const std::int32_t before_me = c.rank > 0 ? static_cast<std::int32_t>(c.world_of(c.rank - 1)) : -1;
      co_await until(before_me, [&] { return b.add_to_sum_in_order(use, add); });
    } else {
      b.add_to_sum(use, pieces, add);
    }
    co_await arrive(c, call, key, [] {});
    if (keeps_result) common::copy_out(out + first * element, sum, elements * element, stream);
  }
}

Task reduce_board_single_task(const Group& c, Key key, const void* send, void* recv, int count,
                              Combine combine, int root, Parameters sizes) {
  Board& b = board();
  const std::uint64_t call = b.reserve_rows(2);
  const auto n = static_cast<std::uint32_t>(c.size());
  const Exposed mine{address(send), address(recv)};
  std::memcpy(b.row(call, static_cast<std::uint32_t>(c.rank)), &mine, sizeof mine);
  // The next piece to take; the release publishes its zero.
  std::atomic_ref<std::uint64_t> next(*reinterpret_cast<std::uint64_t*>(b.result(call)));
  co_await arrive(c, call, key, [&] { next.store(0, std::memory_order_relaxed); });
  std::vector<Exposed> peers(n);
  for (std::uint32_t r = 0; r < n; ++r) std::memcpy(&peers[r], b.row(call, r), sizeof(Exposed));
  const std::size_t element = combine.element_bytes();
  const auto per_piece = std::max<std::uint64_t>(
      1, board_single_copy_piece(sizes, static_cast<std::uint64_t>(count) * element, c.plan.cpus()) /
             element);
  const std::uint64_t pieces = (static_cast<std::uint64_t>(count) + per_piece - 1) / per_piece;
  const std::size_t piece_bytes = std::min<std::uint64_t>(per_piece, static_cast<std::uint64_t>(count)) * element;
  Scratch x(piece_bytes), y(piece_bytes);
  // Outputs: every rank's, or the root's.
  const std::uint32_t from = root < 0 ? 0 : static_cast<std::uint32_t>(root);
  const std::uint32_t to = root < 0 ? n : from + 1;
  // An Allreduce's first `staged` bytes of result go through the stage:
  // written there once, copied out by each rank with memcpy, which moves
  // twice what a CMA write does. A Reduce writes its root's output
  // directly: copying it out at the end would only add a wait for the root.
  const std::uint64_t total = static_cast<std::uint64_t>(count) * element;
  const std::uint64_t staged = root < 0 ? std::min<std::uint64_t>(total, b.stage_capacity()) / element * element : 0;
  const std::uint64_t stage_use = staged > 0 ? b.reserve_stage(1) : 0;
  for (std::uint64_t k = next.fetch_add(1, std::memory_order_relaxed); k < pieces;
       k = next.fetch_add(1, std::memory_order_relaxed)) {
    const std::uint64_t first = k * per_piece;
    const auto elements = static_cast<int>(std::min(per_piece, static_cast<std::uint64_t>(count) - first));
    const std::size_t offset = first * element, bytes = static_cast<std::size_t>(elements) * element;
    const std::byte* result = reduce_span(c, peers, static_cast<const std::byte*>(send), offset, elements, combine,
                                          x.data(), y.data(), nullptr);
    const std::size_t in_stage = offset < staged ? std::min<std::size_t>(bytes, staged - offset) : 0;
    if (in_stage > 0) std::memcpy(b.stage_data() + offset, result, in_stage);
    for (std::uint32_t r = from; in_stage < bytes && r < to; ++r) {
      write_peer(c.world_of(static_cast<int>(r)), peers[r].out + offset + in_stage, result + in_stage,
                 bytes - in_stage, "reduction");
    }
  }
  co_await arrive(c, call + 1, key, [&] {
    // Every rank is still in the call, so no one reads the stage's
    // previous use: it is free. Only an Allreduce stages: all n copy out.
    if (staged > 0 && !b.try_publish_stage(stage_use, key, nullptr, static_cast<std::uint32_t>(staged), n)) {
      stage_busy(c, key);
    }
  });
  if (staged == 0) co_return;
  Key other{};
  const bool stream = c.plan.streams(staged);
  co_await until(-1, [&] {
    return b.try_read_stage(stage_use, key, recv, static_cast<std::uint32_t>(staged), &other, stream) ==
           Board::Read::taken;
  });
}

Task allgather_board_task(const Group& c, Key key, const void* send, void* recv,
                          std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs) {
  Board& b = board();
  const std::uint64_t total = displs.back() + bytes.back();
  const std::uint64_t window = b.stage_capacity();
  // Blocks larger in all than the stage go in rounds, a stage's worth of
  // the packed blocks at a time.
  const auto rounds = static_cast<std::uint32_t>((total + window - 1) / window);
  const std::uint64_t call = b.reserve_rows(2 * rounds);
  const std::uint64_t use = b.reserve_stage(rounds);
  const auto me = static_cast<std::size_t>(c.rank);
  const std::uint64_t mine_from = displs[me], mine_to = displs[me] + bytes[me];
  const bool stream = c.plan.streams(total);
  auto* out = static_cast<std::byte*>(recv);
  for (std::uint32_t r = 0; r < rounds; ++r) {
    const std::uint64_t from = r * window, length = std::min(window, total - from);
    // Once every rank is in the round, none reads the stage's previous use.
    co_await arrive(c, call + 2 * r, key, [] {});
    const std::uint64_t copy_from = std::max(from, mine_from), copy_to = std::min(from + length, mine_to);
    if (copy_from < copy_to) {
      std::memcpy(b.stage_data() + (copy_from - from), static_cast<const std::byte*>(send) + (copy_from - mine_from),
                  copy_to - copy_from);
    }
    co_await arrive(c, call + 2 * r + 1, key, [&] {
      if (!b.try_publish_stage(use + r, key, nullptr, static_cast<std::uint32_t>(length),
                               static_cast<std::uint32_t>(c.size()))) {
        stage_busy(c, key);
      }
    });
    Key other{};
    co_await until(-1, [&] {
      return b.try_read_stage(use + r, key, out + from, static_cast<std::uint32_t>(length), &other, stream) ==
             Board::Read::taken;
    });
  }
}

Task alltoall_board_task(const Group& c, Key key, const void* send, void* recv, std::uint64_t bytes) {
  Board& b = board();
  const auto n = static_cast<std::uint64_t>(c.size());
  const auto me = static_cast<std::uint64_t>(c.rank);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const std::uint64_t per_round = Board::capacity() / bytes;
  std::uint64_t call = b.reserve_rows(static_cast<std::uint32_t>((n + per_round - 1) / per_round));
  for (std::uint64_t from = 0; from < n; from += per_round, ++call) {
    // Round: the blocks for destinations [from, to).
    const std::uint64_t to = std::min(n, from + per_round);
    std::memcpy(b.row(call, static_cast<std::uint32_t>(me)), in + from * bytes, (to - from) * bytes);
    co_await arrive(c, call, key, [] {});
    if (me < from || me >= to) continue;
    for (std::uint64_t r = 0; r < n; ++r) {
      std::memcpy(out + r * bytes, b.row(call, static_cast<std::uint32_t>(r)) + (me - from) * bytes, bytes);
    }
  }
}

}  // namespace mpf::coll
