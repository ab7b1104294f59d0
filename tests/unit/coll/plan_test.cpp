// The collective plan (lib/coll/plan.hpp) built from the default rules
// alone (lib/coll/default_rules.cpp): each operation's algorithms at the
// switch points, for groups of several sizes and nodes of several ranks
// per CPU, and what the tunables behind those switch points change.
#include "coll/plan.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "coll/board_layout.hpp"
#include "support/job_facts.hpp"

namespace mpf::coll {
namespace {

using A = Algorithm;
using O = Operation;
using R = Reduction;

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t kRow = kBoardDataBytes;

JobFacts node(std::uint32_t node_ranks, std::uint32_t cpus) { return mpf::testing::node_facts(node_ranks, cpus); }

Plan world(const JobFacts& f) { return Plan::build({}, f, {.ranks = f.node_ranks, .world = true}); }
Plan group(const JobFacts& f, std::uint32_t ranks) { return Plan::build({}, f, {.ranks = ranks, .world = false}); }

A pick(const Plan& p, O op, std::uint64_t bytes) { return p.choose(op, bytes).algorithm; }
A pick(const Plan& p, O op, std::uint64_t bytes, R cls) {
  return p.choose_reduction(op, bytes, [cls] { return cls; }).algorithm;
}

// Expects `op` of `bytes` to take each algorithm in turn: {first bytes, algorithm}...
void expect_steps(const Plan& p, O op, const std::vector<std::pair<std::uint64_t, A>>& steps,
                  R cls = R::noncommutative) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto [from, algorithm] = steps[i];
    const bool reduction = op == O::reduce || op == O::allreduce;
    auto at = [&](std::uint64_t b) { return reduction ? pick(p, op, b, cls) : pick(p, op, b); };
    EXPECT_EQ(name(at(from)), name(algorithm)) << name(op) << " of " << from << " bytes";
    if (i + 1 < steps.size()) {
      const std::uint64_t last = steps[i + 1].first - 1;
      EXPECT_EQ(name(at(last)), name(algorithm)) << name(op) << " of " << last << " bytes";
    }
  }
}

TEST(CollPlan, Barrier) {
  // Every rank has a CPU: dissemination; more ranks: the tree, or on the
  // world, the board.
  EXPECT_EQ(pick(world(node(4, 4)), O::barrier, 0), A::dissemination);
  EXPECT_EQ(pick(world(node(8, 2)), O::barrier, 0), A::board);
  EXPECT_EQ(pick(group(node(8, 2), 2), O::barrier, 0), A::dissemination);
  const Plan tree = group(node(8, 2), 3);
  EXPECT_EQ(pick(tree, O::barrier, 0), A::tree);
  EXPECT_EQ(tree.choose(O::barrier, 0).parameters().radix, 4u);
}

TEST(CollPlan, BcastOffTheBoard) {
  for (std::uint32_t ranks : {2u, 5u, 16u}) {
    const Plan p = group(node(64, 4), ranks);
    expect_steps(p, O::bcast, {{1, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
    EXPECT_EQ(p.choose(O::bcast, 100).parameters().radix, 4u);
  }
}

TEST(CollPlan, BcastOnTheBoard) {
  // One entry's worth through the entries; then entries up to the
  // single-copy size, the stage from 64 KiB (half the entries' ring).
  for (std::uint32_t ranks : {3u, 64u, 200u}) {
    const JobFacts f = node(ranks, 2);
    expect_steps(world(f), O::bcast, {{1, A::board}, {64 * KiB, A::board_stage}});
    // Without a stage, single copy takes over at its size.
    JobFacts no_stage = f;
    no_stage.stage_bytes = 0;
    expect_steps(world(no_stage), O::bcast, {{1, A::board}, {64 * KiB, A::single_copy}});
    // Without either, entries all the way.
    no_stage.single_copy = 0;
    EXPECT_EQ(pick(world(no_stage), O::bcast, 16 * 1024 * KiB), A::board);
  }
}

TEST(CollPlan, ReductionsOffTheBoard) {
  // Up to coll_exchange_max ranks (the CPUs): single copy from its size.
  expect_steps(group(node(64, 8), 8), O::reduce, {{1, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  // More ranks: single copy once each rank's block is that large.
  expect_steps(group(node(64, 8), 16), O::reduce,
               {{1, A::cells}, {2081, A::slots}, {16 * 64 * KiB, A::single_copy}});
  // Recursive doubling for an Allreduce on a power of two of ranks that each have a CPU.
  expect_steps(group(node(64, 8), 8), O::allreduce, {{1, A::doubling}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  EXPECT_EQ(pick(group(node(64, 8), 6), O::allreduce, 8, R::exact), A::cells);
  EXPECT_EQ(pick(group(node(64, 4), 8), O::allreduce, 8, R::exact), A::cells);
  EXPECT_EQ(pick(group(node(64, 8), 8), O::reduce, 8, R::exact), A::cells);
}

TEST(CollPlan, ReductionsOnTheBoardByClass) {
  // 64 ranks on 2 CPUs (32 per CPU): the rows up to a row; an exact
  // operation adds into the sums above it; a commutative one in rank order
  // once each rank's share is 512 bytes per rank per CPU (16 KiB, 1 MiB in
  // all); before that, and for the others, single-copy pieces from two per
  // CPU of coll_single_copy (256 KiB); below, the slots (each rank's block
  // is not yet a single-copy size: 64 x 64 KiB).
  const Plan p = world(node(64, 2));
  for (O op : {O::reduce, O::allreduce}) {
    expect_steps(p, op, {{1, A::board}, {kRow + 1, A::board_sum}}, R::exact);
    expect_steps(p, op, {{1, A::board}, {kRow + 1, A::slots}, {256 * KiB, A::board_single_copy}, {1024 * KiB, A::board_sum}},
                 R::commutative);
    expect_steps(p, op, {{1, A::board}, {kRow + 1, A::slots}, {256 * KiB, A::board_single_copy}}, R::noncommutative);
  }
  // 3 ranks on 2 CPUs: a rank's share in rank order is at least 4 KiB
  // (12 KiB in all); single copy from 3 blocks of its size.
  expect_steps(world(node(3, 2)), O::allreduce, {{1, A::board}, {kRow + 1, A::slots}, {12 * KiB, A::board_sum}},
               R::commutative);
  expect_steps(world(node(3, 2)), O::allreduce,
               {{1, A::board}, {kRow + 1, A::slots}, {192 * KiB, A::single_copy}, {256 * KiB, A::board_single_copy}});
  // 1024 ranks on 2 CPUs (512 per CPU): 256 KiB per rank before the sum pays.
  EXPECT_EQ(pick(world(node(1024, 2)), O::allreduce, 256 * KiB * 1024 - 1, R::commutative), A::board_single_copy);
  EXPECT_EQ(pick(world(node(1024, 2)), O::allreduce, 256 * KiB * 1024, R::commutative), A::board_sum);
}

TEST(CollPlan, ReductionClassesAreAskedOnlyWhereTheyDiffer) {
  const Plan p = world(node(64, 2));
  int asked = 0;
  auto classify = [&] {
    ++asked;
    return R::exact;
  };
  EXPECT_EQ(p.choose_reduction(O::allreduce, 8, classify).algorithm, A::board);
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(p.choose_reduction(O::allreduce, kRow + 1, classify).algorithm, A::board_sum);
  EXPECT_EQ(asked, 1);
  // On the board, an element larger than the sums cannot be added into them.
  EXPECT_EQ(p.reduction(true, true, 8), R::exact);
  EXPECT_EQ(p.reduction(true, false, 8), R::commutative);
  EXPECT_EQ(p.reduction(false, false, 8), R::noncommutative);
  EXPECT_EQ(p.reduction(true, true, 2 * 1024 * KiB), R::noncommutative);
  EXPECT_EQ(group(node(64, 2), 4).reduction(true, true, 2 * 1024 * KiB), R::exact);
}

TEST(CollPlan, ParametersOfTheDefaultRules) {
  const Plan p = world(node(64, 2));
  EXPECT_EQ(p.choose_reduction(O::allreduce, 2 * 1024 * KiB, [] { return R::exact; }).parameters().piece_bytes,
            16 * KiB);
  const Parameters pieces =
      p.choose_reduction(O::allreduce, 2 * 1024 * KiB, [] { return R::noncommutative; }).parameters();
  EXPECT_EQ(pieces.min_piece_bytes, 64 * KiB);
  EXPECT_EQ(pieces.max_piece_bytes, 64 * KiB);
  EXPECT_EQ(board_single_copy_piece({.min_piece_bytes = 4 * KiB, .max_piece_bytes = 64 * KiB}, 40 * KiB, 2), 10 * KiB);
  EXPECT_EQ(board_single_copy_piece({.min_piece_bytes = 4 * KiB, .max_piece_bytes = 64 * KiB}, 4 * KiB, 2), 4 * KiB);
  EXPECT_EQ(board_single_copy_piece({.min_piece_bytes = 4 * KiB, .max_piece_bytes = 64 * KiB}, 1024 * KiB, 2),
            64 * KiB);
  const Plan small = group(node(8, 8), 8);
  EXPECT_EQ(small.choose_reduction(O::allreduce, 1024 * KiB, [] { return R::exact; }).parameters().piece_bytes,
            64 * KiB);
}

TEST(CollPlan, Allgather) {
  // Every rank has a CPU: direct, through the cells, the slots or by single copy.
  expect_steps(group(node(64, 8), 8), O::allgather, {{0, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  // More ranks: gathered and broadcast, but single-copy blocks go direct.
  expect_steps(group(node(64, 8), 16), O::allgather, {{0, A::gather_bcast}, {64 * KiB, A::single_copy}});
  // On the board: through the stage once the blocks make 64 KiB in all.
  expect_steps(world(node(64, 2)), O::allgather, {{0, A::gather_bcast}, {1 * KiB, A::board_stage}});
  expect_steps(world(node(3, 2)), O::allgather, {{0, A::gather_bcast}, {21846, A::board_stage}});
  // One rank: the gather and its broadcast, as there is no one to send to.
  EXPECT_EQ(pick(group(node(8, 8), 1), O::allgather, 100), A::gather_bcast);
}

TEST(CollPlan, Alltoall) {
  expect_steps(group(node(64, 8), 8), O::alltoall, {{0, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  // Many more ranks than CPUs (more than 8 x coll_exchange_max): Bruck's
  // while half the blocks fit a cell.
  expect_steps(group(node(64, 2), 64), O::alltoall,
               {{0, A::bruck}, {2080 / 32 + 1, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  expect_steps(group(node(64, 2), 16), O::alltoall, {{0, A::cells}, {2081, A::slots}, {64 * KiB, A::single_copy}});
  // On the board: rows up to half a row, then single copy exposed through it.
  expect_steps(world(node(64, 2)), O::alltoall, {{1, A::board}, {kRow / 2 + 1, A::single_copy}});
  EXPECT_EQ(pick(world(node(64, 2)), O::alltoall, 0), A::bruck);
  JobFacts no_single = node(64, 2);
  no_single.single_copy = 0;
  expect_steps(world(no_single), O::alltoall, {{1, A::board}, {kRow + 1, A::slots}});
}

TEST(CollPlan, TunablesMoveTheSwitchPoints) {
  JobFacts f = node(8, 8);
  f.cell_bytes = 224;
  f.single_copy = 4 * KiB;
  f.exchange_max = 2;
  f.radix = 2;
  const Plan p = group(f, 4);
  expect_steps(p, O::bcast, {{1, A::cells}, {225, A::slots}, {4 * KiB, A::single_copy}});
  EXPECT_EQ(p.choose(O::bcast, 300).parameters().radix, 2u);
  EXPECT_EQ(pick(p, O::barrier, 0), A::tree);
  // Single copy off: never chosen, whatever the size.
  f.single_copy = 0;
  EXPECT_EQ(pick(group(f, 4), O::bcast, std::uint64_t{1} << 40), A::slots);
  EXPECT_EQ(pick(group(f, 4), O::allreduce, std::uint64_t{1} << 40, R::exact), A::slots);
}

TEST(CollPlan, StreamsFromItsShareOfTheNodesCopies) {
  const Plan p = world(node(64, 2));  // 16 MiB across 64 ranks: 256 KiB each
  EXPECT_FALSE(p.streams(256 * KiB - 1));
  EXPECT_TRUE(p.streams(256 * KiB));
  JobFacts f = node(3, 2);
  f.stream_bytes = 10;  // not a multiple: rounded up
  EXPECT_FALSE(world(f).streams(3));
  EXPECT_TRUE(world(f).streams(4));
}

TEST(CollPlan, EveryMemberBuildsTheSamePlan) {
  // Only the group's size and the job's facts go in: the plan has no rank
  // of its own, so the members' plans are equal by construction. What it
  // says as rules reads back into the same plan.
  const JobFacts f = node(64, 2);
  for (const Plan& p : {world(f), group(f, 5), group(f, 1)}) {
    const std::vector<Rule> rules = p.as_rules();
    const Plan again = Plan::build(rules, f, {.ranks = p.ranks(), .world = p.on_board()});
    for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, 2080ul, 2081ul, kRow, kRow + 1, 64 * KiB, 1024 * KiB}) {
      for (O op : {O::barrier, O::bcast, O::allgather, O::alltoall}) {
        EXPECT_EQ(again.choose(op, b), p.choose(op, b)) << name(op) << " " << b;
      }
      for (R cls : {R::noncommutative, R::commutative, R::exact}) {
        for (O op : {O::reduce, O::allreduce}) {
          EXPECT_EQ(again.choose_reduction(op, b, [cls] { return cls; }),
                    p.choose_reduction(op, b, [cls] { return cls; }))
              << name(op) << " " << b;
        }
      }
    }
  }
}

TEST(CollPlan, AcrossNodesHierarchicalWhereItCanFlatElsewhere) {
  const JobFacts f = node(4, 2);
  const Plan p = Plan::build({}, f, {.ranks = 8, .world = true, .across_nodes = true});
  EXPECT_TRUE(p.across_nodes());
  EXPECT_FALSE(p.on_board());
  for (std::uint64_t b : {std::uint64_t{0}, std::uint64_t{8}, 64 * KiB, 4096 * KiB}) {
    EXPECT_EQ(pick(p, O::barrier, b), A::hierarchical);
    EXPECT_EQ(pick(p, O::bcast, b), A::hierarchical);
    for (O op : {O::reduce, O::allreduce}) {
      // Nodes combine out of rank order: only commutative operations.
      EXPECT_EQ(pick(p, op, b, R::commutative), A::hierarchical) << name(op) << " " << b;
      EXPECT_EQ(pick(p, op, b, R::exact), A::hierarchical) << name(op) << " " << b;
      EXPECT_EQ(pick(p, op, b, R::noncommutative), A::messages) << name(op) << " " << b;
    }
    EXPECT_EQ(pick(p, O::allgather, b), A::messages);
    EXPECT_EQ(pick(p, O::alltoall, b), A::messages);
  }
  // On one node the hierarchical algorithm never runs.
  const Plan one = Plan::build({}, f, {.ranks = 4, .world = true});
  EXPECT_NE(pick(one, O::barrier, 0), A::hierarchical);
  EXPECT_NE(pick(one, O::bcast, 64 * KiB), A::hierarchical);
}

TEST(CollPlan, AcrossNodesTuningRulesChooseBetweenMessageAlgorithms) {
  const JobFacts f = node(4, 2);
  Rule flat;
  flat.operation = O::bcast;
  flat.algorithm = A::messages;
  Rule cells;  // one node's: it cannot run across nodes and drops out
  cells.operation = O::barrier;
  cells.algorithm = A::tree;
  Rule hierarchical_for_all;  // applies to commutative calls only
  hierarchical_for_all.operation = O::allreduce;
  hierarchical_for_all.algorithm = A::hierarchical;
  const std::vector<Rule> tuned{flat, cells, hierarchical_for_all};
  const Plan p = Plan::build(tuned, f, {.ranks = 8, .world = false, .across_nodes = true});
  EXPECT_EQ(pick(p, O::bcast, 64 * KiB), A::messages);
  EXPECT_EQ(pick(p, O::barrier, 0), A::hierarchical);
  EXPECT_EQ(pick(p, O::allreduce, 8, R::commutative), A::hierarchical);
  EXPECT_EQ(pick(p, O::allreduce, 8, R::noncommutative), A::messages);
  // Rules for hierarchical do not apply on one node.
  const Plan one = Plan::build(tuned, f, {.ranks = 4, .world = false});
  EXPECT_NE(pick(one, O::allreduce, 8, R::commutative), A::hierarchical);
}

}  // namespace
}  // namespace mpf::coll
