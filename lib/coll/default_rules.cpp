#include "coll/default_rules.hpp"

#include <algorithm>

#include "coll/board_layout.hpp"
#include "coll/cells.hpp"
#include "common/streaming_copy.hpp"
#include "common/tunables.hpp"

namespace mpf::coll {

namespace {

using A = Algorithm;
using O = Operation;

// The board's row: the most a reduction or an all-to-all round moves in one
// row call, and one broadcast entry (fixed by the board's layout).
constexpr std::uint64_t kRow = kBoardDataBytes;

// The piece_bytes of a single-copy reduction, and the max_piece_bytes of a
// board_single_copy one: pieces small enough that both operands of a
// combination stay in the CPU's cache.
constexpr std::uint64_t kReducePieceBytes = std::uint64_t{64} << 10;

// The piece_bytes of a board sum: the pieces a rank holds while it adds its
// input. A few per CPU even for a vector of 64 KiB, so that ranks with a
// CPU each seldom wait for one another, and each long enough that taking
// and giving one back is a small part of adding it.
constexpr std::uint64_t kSumPieceBytes = std::uint64_t{16} << 10;

// Bytes that every rank receives whole on the board (a Bcast's message, an
// Allgather's blocks in all) from which they go through its stage rather
// than its entries: half the smallest entries' ring, where the stage
// measured faster than the entries (and single-copy reads from the root
// slower than both).
constexpr std::uint64_t kStageFrom = std::uint64_t{kBoardEntriesMin} / 2 * kRow;

// A board sum in rank order (an operation that is not exact) pays once each
// rank's share of the vector is at least this, and at least kOrderedShare
// bytes per rank per CPU: each rank's turn on a piece comes after that of
// the rank before it (a wake-up, or a turn on a CPU among the ranks that
// yield), and those turns take longer the more ranks share a CPU. Below,
// the slot trees and single copy measured faster.
constexpr std::uint64_t kOrderedShareMin = 4096;
constexpr std::uint64_t kOrderedShare = 512;

// Bruck's all-to-all pays from this many times coll_exchange_max ranks:
// log2 n messages per rank instead of n - 1, each a possible wake-up; with
// fewer ranks the pairwise exchange is faster.
constexpr std::uint64_t kBruckFrom = 8;

// The rules of one group, in order.
class Rules {
 public:
  Rule& add(O op, A algorithm, std::uint64_t min_bytes = 0, std::uint64_t max_bytes = kNoMaxBytes) {
    Rule r;
    r.operation = op;
    r.algorithm = algorithm;
    r.min_bytes = min_bytes;
    r.max_bytes = max_bytes;
    return rules_.emplace_back(r);
  }
  std::vector<Rule> take() { return std::move(rules_); }

 private:
  std::vector<Rule> rules_;
};

std::uint32_t at_most_ranks(std::uint64_t n) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(n, kNoMaxRanks)); }

}  // namespace

std::uint32_t exchange_max(const common::Tunables& tunables, std::uint32_t cpus) {
  const auto max = static_cast<std::uint32_t>(tunables.integer(common::Tunable::coll_exchange_max));
  return max > 0 ? max : cpus;
}

bool board_wanted(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus) {
  return tunables.boolean(common::Tunable::coll_board) && node_ranks > exchange_max(tunables, cpus);
}

JobFacts job_facts(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus,
                   std::uint32_t cell_bytes, bool board_in_use, std::uint64_t stage_bytes) {
  JobFacts f;
  f.node_ranks = std::max(1u, node_ranks);
  f.cpus = std::max(1u, cpus);
  f.exchange_max = exchange_max(tunables, f.cpus);
  f.radix = static_cast<std::uint32_t>(tunables.integer(common::Tunable::coll_radix));
  f.cell_bytes = cell_bytes;
  f.board = board_in_use;
  f.stage_bytes = stage_bytes;
  // Single copy needs Cross Memory Attach, which rndv_mode copy says to avoid.
  const bool copy_only = tunables.text(common::Tunable::rndv_mode) == "copy";
  f.single_copy = copy_only ? 0 : static_cast<std::uint64_t>(tunables.integer(common::Tunable::coll_single_copy));
  f.stream_bytes = common::stream_threshold(static_cast<std::uint64_t>(tunables.integer(common::Tunable::coll_stream_copy)));
  return f;
}

JobFacts launch_facts(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus) {
  const auto short_limit = static_cast<std::uint32_t>(tunables.integer(common::Tunable::coll_short_limit));
  return job_facts(tunables, node_ranks, cpus, Cells::capacity_of(CellsLayout::cell_bytes_for(short_limit)),
                   board_wanted(tunables, node_ranks, cpus),
                   static_cast<std::uint64_t>(tunables.integer(common::Tunable::coll_board_stage)));
}

std::vector<Rule> default_rules(const JobFacts& f, const Shape& g) {
  const std::uint64_t n = std::max(1u, g.ranks);
  const std::uint64_t cells_to = std::uint64_t{f.cell_bytes} + 1;  // [0, cells_to): fits a cell
  const std::uint64_t single = f.single_copy;                        // 0: no single copy
  Rules r;

  // A group across nodes: each node's members among themselves (over
  // shared memory), then one leader per node over the network, so that
  // each node's data crosses the network once; a reduction combined in
  // rank order, and the operations with no hierarchical form, flat.
  if (g.across_nodes) {
    r.add(O::barrier, A::hierarchical);
    r.add(O::bcast, A::hierarchical);
    r.add(O::reduce, A::hierarchical).reduction = Reduction::commutative;
    r.add(O::allreduce, A::hierarchical).reduction = Reduction::commutative;
    for (const O op : {O::barrier, O::bcast, O::reduce, O::allreduce, O::allgather, O::alltoall}) {
      r.add(op, A::messages);
    }
    return r.take();
  }

  // Barrier: flat on the board (one wait per rank); dissemination while
  // every rank has a CPU (log2 n rounds, all ranks busy in each); else the
  // tree, up and down (each rank waits twice, which matters when every
  // wait may be a sleep).
  r.add(O::barrier, A::board);
  r.add(O::barrier, A::dissemination).max_ranks = f.exchange_max;
  r.add(O::barrier, A::tree);

  // Bcast: on the board, one entry's worth through the entries, a large
  // message through the stage; between the two, entries up to the
  // single-copy size. Off it: a cell's worth down the tree of cells, from
  // coll_single_copy bytes by single-copy reads from the root, else down
  // the tree of slots.
  r.add(O::bcast, A::board_stage, kStageFrom);
  r.add(O::bcast, A::board, 0, kRow + 1);
  r.add(O::bcast, A::cells, 0, cells_to);
  if (single > 0) r.add(O::bcast, A::single_copy, single);
  r.add(O::bcast, A::board);
  r.add(O::bcast, A::slots);

  // Reduce and Allreduce, combined in rank order unless the operation
  // lets them do otherwise. On the board: a row's worth in the rows (the
  // last to arrive combines them); larger vectors with a commutative
  // operation into the board's sums (as ranks come for an exact one, in
  // rank order, when it pays, for the others); else, from two single-copy
  // pieces per CPU, pieces combined by single copy by whichever rank has
  // a CPU (one piece measured slower than the trees). Off it: a cell's
  // worth over the cells (recursive doubling for an Allreduce on a power
  // of two of ranks that each have a CPU); from coll_single_copy bytes by
  // single copy, each rank reading a block of every input, which with
  // more ranks than exchange pairwise pays only when the blocks are
  // single-copy sizes themselves; else the trees of slots.
  const std::uint64_t ordered_from =
      std::max(kRow + 1, std::max(kOrderedShareMin, kOrderedShare * n / f.cpus) * n);
  for (O op : {O::reduce, O::allreduce}) {
    r.add(op, A::board, 0, kRow + 1);
    r.add(op, A::board_sum, kRow + 1).reduction = Reduction::exact;
    r.add(op, A::board_sum, ordered_from).reduction = Reduction::commutative;
    if (single > 0) r.add(op, A::board_single_copy, 2 * std::uint64_t{f.cpus} * single);
    if (op == O::allreduce) r.add(op, A::doubling, 0, cells_to).max_ranks = f.exchange_max;
    r.add(op, A::cells, 0, cells_to);
    if (single > 0) {
      r.add(op, A::single_copy, single).max_ranks = f.exchange_max;
      r.add(op, A::single_copy, n * single);
    }
    r.add(op, A::slots);
  }

  // Allgather (bytes: the largest block). On the board, blocks that would
  // make a staged Bcast together go through the stage (each rank copies
  // its block in once and every block out once). Otherwise each rank sends
  // its block to every other while every rank has a CPU (n² messages,
  // each a possible wake-up), through the cells, by single copy, or over
  // the slots; with more ranks only single-copy sizes go direct (every rank
  // reads every block once, where the gather and broadcast copy each n + 1
  // times), and the rest is gathered at rank 0 and broadcast.
  r.add(O::allgather, A::board_stage, (kStageFrom + n - 1) / n);
  Rule& direct_cells = r.add(O::allgather, A::cells, 0, cells_to);
  direct_cells.min_ranks = 2;
  direct_cells.max_ranks = f.exchange_max;
  if (single > 0) {
    if (single < cells_to) r.add(O::allgather, A::cells, single, cells_to);
    r.add(O::allgather, A::single_copy, single);
  }
  Rule& direct_slots = r.add(O::allgather, A::slots);
  direct_slots.min_ranks = 2;
  direct_slots.max_ranks = f.exchange_max;
  r.add(O::allgather, A::gather_bcast);

  // Alltoall (bytes: one block). On the board, blocks of more than half a
  // row by single copy, exposed through the board (smaller ones measured
  // faster through the rows), and the others in rounds of rows. Off it:
  // Bruck's algorithm on many more ranks than CPUs when half the blocks
  // fit a cell, pairwise through the cells when a block fits one, by
  // single copy from coll_single_copy bytes, else over the slots.
  if (g.world && f.board && single > 0) r.add(O::alltoall, A::single_copy, kRow / 2 + 1);
  r.add(O::alltoall, A::board, 1, kRow + 1);
  r.add(O::alltoall, A::bruck).min_ranks = at_most_ranks(kBruckFrom * f.exchange_max + 1);
  r.add(O::alltoall, A::cells, 0, cells_to);
  if (single > 0) r.add(O::alltoall, A::single_copy, single);
  r.add(O::alltoall, A::slots);
  return r.take();
}

Parameters resolve_parameters(Operation op, Algorithm a, Parameters p, const JobFacts& f) {
  if (takes_radix(op, a) && p.radix == 0) p.radix = f.radix;
  if (takes_piece(op, a) && p.piece_bytes == 0) p.piece_bytes = a == A::board_sum ? kSumPieceBytes : kReducePieceBytes;
  if (takes_piece_range(op, a)) {
    // Pieces of at least coll_single_copy: smaller reads are not worth a
    // system call each.
    if (p.min_piece_bytes == 0) p.min_piece_bytes = std::max<std::uint64_t>(1, f.single_copy);
    if (p.max_piece_bytes == 0) p.max_piece_bytes = kReducePieceBytes;
  }
  return p;
}

std::uint64_t board_single_copy_piece(const Parameters& p, std::uint64_t bytes, std::uint32_t cpus) {
  const std::uint64_t per_cpu = bytes / (2 * std::uint64_t{std::max(1u, cpus)});
  return std::max(p.min_piece_bytes, std::min(per_cpu, p.max_piece_bytes));
}

}  // namespace mpf::coll
