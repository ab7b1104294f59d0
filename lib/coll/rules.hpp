// The collective rules: which algorithm a collective call takes, as data.
//
// A rule says: for this operation, data of [min_bytes, max_bytes), a group
// of [min_ranks, max_ranks] ranks on a node running [min_ranks_per_cpu,
// max_ranks_per_cpu] ranks per CPU (and, for a reduction, an operation of
// this class), use this algorithm with these parameters. Rules are read in
// order and the first that matches a call decides it. A group's plan
// (coll/plan.hpp) lists the rules of the tuning file first (the coll_rules
// tunable, which a tuning file's "collective_rules" array sets, and which
// `mpftune` writes), then the default rules (coll/default_rules.hpp), whose
// last rule for each operation matches every call.
//
// Each rule is JSON (man 7 mpf, "Collective rules"):
//
//   {"operation": "bcast", "min_bytes": 4096, "max_bytes": "64KiB",
//    "min_ranks": 2, "max_ranks": 16, "algorithm": "slots", "radix": 8}
//
// A rule applies only where its algorithm can run (algorithm_needs below):
// an algorithm of the board only on the group of all the job's ranks when
// the board is in use, single copy only when it is on, a cell algorithm
// only on data that fits a cell. That is part of what a rule means, not a
// fallback: the plan shows what each group ends up with.
//
// Bytes are what the operation moves per rank: a Bcast's message, a
// reduction's vector, the largest block of an Allgather, one block of an
// Alltoall; a Barrier has none (0).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mpf::common {
class Tunables;
}

namespace mpf::coll {

// The collectives that have more than one algorithm. (Gather, scatter,
// the v-variants of all-to-all and the scans have one each: they need no
// rules.)
enum class Operation : std::uint8_t { barrier, bcast, reduce, allreduce, allgather, alltoall };
inline constexpr std::size_t kOperationCount = 6;

enum class Algorithm : std::uint8_t {
  board,              // the board's rows or broadcast entries (coll/board.hpp)
  board_stage,        // Bcast, Allgather: through the board's stage
  board_sum,          // reductions: every rank adds its input into the board's sums
  board_single_copy,  // reductions: pieces combined by single copy by whichever rank has a CPU
  dissemination,      // Barrier over the cells
  tree,               // Barrier: the k-nomial tree over the cells
  doubling,           // Allreduce: recursive doubling over the cells
  cells,              // trees (Bcast, reductions) or pairwise posts (Allgather, Alltoall) over the cells
  bruck,              // Alltoall: Bruck's algorithm over the cells
  single_copy,        // ranks read (or write) each other's buffers with Cross Memory Attach
  slots,              // trees (Bcast, reductions) or pairwise publishing (Allgather, Alltoall) over the slots
  gather_bcast,       // Allgather: gathered at rank 0 over the slots, then broadcast
  messages,           // point-to-point messages through the engine, flat: any group, across nodes too
  hierarchical,       // messages within each node, then between one leader per node (a group across nodes)
};
inline constexpr std::size_t kAlgorithmCount = 14;

// A reduction's operation, as the algorithms that combine in an order of
// their own need to know it. A call's class is one of the last three.
enum class Reduction : std::uint8_t {
  any,             // a rule for every operation
  commutative,     // a rule for commutative operations, exact ones included
  exact,           // a rule for exact operations only
  noncommutative,  // a call's class only: neither of the above
};

inline constexpr std::uint64_t kNoMaxBytes = std::numeric_limits<std::uint64_t>::max();
inline constexpr std::uint32_t kNoMaxRanks = std::numeric_limits<std::uint32_t>::max();

// An algorithm's parameters; 0: the algorithm's default (default_rules.hpp).
struct Parameters {
  std::uint32_t radix = 0;            // trees: the radix of the k-nomial tree
  std::uint64_t piece_bytes = 0;      // board_sum: a piece of the sums; single_copy reductions: a piece combined at once
  std::uint64_t min_piece_bytes = 0;  // board_single_copy: the smallest piece one rank takes
  std::uint64_t max_piece_bytes = 0;  // board_single_copy: the largest
  bool operator==(const Parameters&) const = default;
};

struct Rule {
  Operation operation = Operation::barrier;
  Reduction reduction = Reduction::any;  // reduce and allreduce only
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = kNoMaxBytes;  // exclusive
  std::uint32_t min_ranks = 1;
  std::uint32_t max_ranks = kNoMaxRanks;  // inclusive
  std::uint32_t min_ranks_per_cpu = 1;
  std::uint32_t max_ranks_per_cpu = kNoMaxRanks;  // inclusive
  Algorithm algorithm = Algorithm::slots;
  Parameters parameters;
  bool operator==(const Rule&) const = default;
};

// Names, as the JSON rules and the plan's description write them.
std::string_view name(Operation operation);
std::string_view name(Algorithm algorithm);
std::string_view name(Reduction reduction);

// The algorithms `operation` has, in the order the documentation lists them.
std::span<const Algorithm> algorithms_of(Operation operation);

// The parameters an algorithm of an operation takes: radix (k-nomial
// trees), piece_bytes (board_sum, single_copy reductions), min_piece_bytes
// and max_piece_bytes (board_single_copy).
bool takes_radix(Operation operation, Algorithm algorithm);
bool takes_piece(Operation operation, Algorithm algorithm);
bool takes_piece_range(Operation operation, Algorithm algorithm);

// What an algorithm needs to run, beyond being one of its operation's.
struct Needs {
  bool board = false;        // the board: the group of all ranks, with the board in use
  bool stage = false;        // the board's stage and sums (coll_board_stage > 0)
  bool single_copy = false;  // single copy on (coll_single_copy > 0 and rndv_mode not copy)
  bool cells = false;        // data that fits a cell (Bruck: half the blocks)
  bool board_row = false;    // data that fits a row of the board (kBoardDataBytes)
  bool some_data = false;    // at least one byte (an all-to-all's rounds of rows are cut by the block)
  bool power_of_two = false; // a group of a power of two ranks
  bool commutative = false;  // a commutative operation (a sum takes the inputs in any order)
  bool two_ranks = true;     // at least two ranks (slots and gather_bcast also serve one)
  bool one_node = true;      // members on one node (what only messages do without)
  bool nodes = false;        // members on several nodes (hierarchical)
};
Needs algorithm_needs(Operation operation, Algorithm algorithm);

// The rules of a JSON array (the coll_rules tunable's value), checked:
// every field known and of the right type and range, every algorithm one
// of its operation's, every parameter one its algorithm takes. `where`
// names the source for the messages ("tuning file /etc/mpf/t.json",
// "MPF_COLL_RULES", "--set coll_rules"). Throws common::TunableError,
// naming `where`, the rule's index, the field and what it accepts.
std::vector<Rule> parse_rules(const nlohmann::json& rules, std::string_view where);
// The same from the coll_rules tunable of `tunables` (none when empty).
std::vector<Rule> rules_from(const common::Tunables& tunables);

// A rule as JSON, in the form parse_rules reads (fields at their defaults
// left out).
nlohmann::json to_json(const Rule& rule);

}  // namespace mpf::coll
