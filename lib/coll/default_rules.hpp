// The default collective rules: the switch points between the collective
// algorithms, written once, as rules (coll/rules.hpp) for one group of
// ranks. They are built from the job's facts (the tunables that choose
// algorithms, the node's CPUs, the board) and the group's size, and end,
// for every operation, with a rule that matches every call. The tuning
// file's rules come before them (coll/plan.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "coll/rules.hpp"

namespace mpf::common {
class Tunables;
}

namespace mpf::coll {

// What the default rules and the plans depend on besides a group's size:
// facts of the job, the same at every rank (the launcher's tunables and the
// segment's geometry), so that every member of a group chooses alike.
struct JobFacts {
  std::uint32_t node_ranks = 1;    // ranks on the node
  std::uint32_t cpus = 1;          // CPUs the job runs on
  std::uint32_t exchange_max = 1;  // coll_exchange_max, its 0 resolved (exchange_max())
  std::uint32_t radix = 4;         // coll_radix
  std::uint32_t cell_bytes = 0;    // data a collective cell carries (Cells::capacity())
  bool board = false;              // the world's collectives may use the board (Board::in_use())
  std::uint64_t stage_bytes = 0;   // the board's stage and each of its sums (coll_board_stage)
  std::uint64_t single_copy = 0;   // coll_single_copy; 0 when single copy is off (rndv_mode copy too)
  std::uint64_t stream_bytes = 0;  // copies across the node stream from this many bytes (coll_stream_copy)

  // The node's ranks per CPU, rounded up: how many ranks take turns on a CPU.
  std::uint32_t ranks_per_cpu() const { return (node_ranks + cpus - 1) / cpus; }
};

// The largest group whose barrier and short reductions exchange pairwise
// (coll_exchange_max; 0: the CPUs, as every rank then has one).
std::uint32_t exchange_max(const common::Tunables& tunables, std::uint32_t cpus);
// Whether the world's collectives should go through the board: coll_board,
// and more ranks than exchange pairwise (the runtime decides once).
bool board_wanted(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus);
// The facts from the tunables and what the runtime found: the cells'
// capacity, whether the board is in use, its stage's size.
JobFacts job_facts(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus,
                   std::uint32_t cell_bytes, bool board_in_use, std::uint64_t stage_bytes);

// The facts a job of `node_ranks` ranks on `cpus` CPUs of this node will
// have, from the tunables alone, as the runtime finds them (job_facts):
// for the launcher, which shows the world's plan before any rank runs.
JobFacts launch_facts(const common::Tunables& tunables, std::uint32_t node_ranks, std::uint32_t cpus);

// The shape of the group a plan is for: its size, and whether it is all the job's ranks
// in rank order (MPI_COMM_WORLD), the only group the board serves.
struct Shape {
  std::uint32_t ranks = 1;
  bool world = false;
  // Its members are on several nodes: every collective goes by messages,
  // hierarchical or flat (rules for other algorithms drop out).
  bool across_nodes = false;
};

// The default rules for `group`, in order.
std::vector<Rule> default_rules(const JobFacts& facts, const Shape& shape);

// `parameters` with each 0 replaced by the default of `algorithm` for
// `operation` (parameters it does not take stay 0).
Parameters resolve_parameters(Operation operation, Algorithm algorithm, Parameters parameters,
                              const JobFacts& facts);

// The piece one rank takes at a time in a board_single_copy reduction of
// `bytes`: every CPU gets two, within [min_piece_bytes, max_piece_bytes].
std::uint64_t board_single_copy_piece(const Parameters& parameters, std::uint64_t bytes, std::uint32_t cpus);

}  // namespace mpf::coll
