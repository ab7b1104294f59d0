// A group's collective plan: the algorithm each collective call takes,
// decided once, when the group is made, from the rules (coll/rules.hpp:
// the tuning file's, then the defaults of coll/default_rules.hpp), the
// group's size, the node's ranks per CPU and the job's facts.
//
// Building the plan keeps, for each operation (and each class of a
// reduction's operation), the rules that can apply to this group (their
// ranks and ranks per CPU match, their algorithm can run here, their byte
// range cut to what the algorithm can carry) and turns them into a short
// list of byte thresholds: data below the first threshold takes the first
// choice, and so on. A call then reads one cache line of the plan (more
// for the larger sizes of a table), no tunable is read and no rule is
// matched: with many ranks to a CPU, every rank's call is on the critical
// path of a collective, and each line it misses counts. Every member of a
// group builds the same plan from the same facts, so they all choose
// alike.
//
//   const Choice c = plan.choose(Operation::bcast, bytes);
//   switch (c.algorithm) { ... c.parameters().radix ... }
//
// A plan is immutable once built; the group's object holds it by value
// (a Choice points into it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "coll/default_rules.hpp"
#include "coll/rules.hpp"

namespace mpf::coll {

class Plan;

// The algorithm a call takes, and its parameters (resolved: no 0 left for
// one the algorithm takes). The parameters are read from the plan only
// when asked for, on another cache line than the algorithm of a common
// call, and only the algorithms that take some ask.
class Choice {
 public:
  Algorithm algorithm = Algorithm::slots;
  const Parameters& parameters() const;
  bool operator==(const Choice& other) const {
    return algorithm == other.algorithm && parameters() == other.parameters();
  }

 private:
  friend class Plan;
  // Entry `entry` of the plan, or with kFirstOfTable the first of table `table`.
  static constexpr std::uint16_t kFirstOfTable = 0xffff;
  Choice(Algorithm a, const Plan* plan, std::uint8_t table, std::uint16_t entry)
      : algorithm(a), table_(table), entry_(entry), plan_(plan) {}
  std::uint8_t table_;
  std::uint16_t entry_;
  const Plan* plan_;
};

class Plan {
 public:
  // An empty plan: for a group that runs no collectives (choose() must not
  // be called on it).
  Plan() = default;
  static Plan build(std::span<const Rule> tuned, const JobFacts& facts, const Shape& shape);

  // The choice for `bytes` of `operation` (not a reduction).
  Choice choose(Operation operation, std::uint64_t bytes) const {
    const std::size_t t = table_of(operation, Reduction::noncommutative);
    if (bytes < first_below_[t]) [[likely]] return first_choice(t);
    return lookup(t, bytes);
  }
  // The choice for a reduction (reduce, allreduce) of `bytes`: `classify()`
  // gives the call's Reduction class (reduction() below), asked only when
  // the classes' choices differ at that size: small reductions, the
  // frequent ones, pay nothing for it.
  template <class Classify>
  Choice choose_reduction(Operation operation, std::uint64_t bytes, Classify classify) const {
    const std::size_t t = table_of(operation, Reduction::noncommutative);
    if (bytes < first_below_[t]) [[likely]] return first_choice(t);
    if (bytes < classes_from_[operation == Operation::allreduce ? 1 : 0]) return lookup(t, bytes);
    return lookup(table_of(operation, classify()), bytes);
  }

  // The class of a reduction with an operation that is `commutative` and
  // `exact` (the same bits in any order and grouping) on elements of
  // `element` bytes. On the board, a commutative operation whose element
  // is larger than the board's sums counts as non-commutative: no sum can
  // hold one.
  Reduction reduction(bool commutative, bool exact, std::size_t element) const {
    if (!commutative || (sum_bytes_ > 0 && element > sum_bytes_)) return Reduction::noncommutative;
    return exact ? Reduction::exact : Reduction::commutative;
  }

  // The group's collectives may use the board (the world, with the board in use).
  bool on_board() const { return on_board_; }
  // The group's members are on several nodes: every collective, those the
  // plan has no table for (Gatherv, Scatterv, Alltoallv, Scan) too, goes
  // by messages.
  bool across_nodes() const { return across_nodes_; }
  // Every member has a CPU for pairwise exchanges (at most coll_exchange_max
  // ranks): a blocking exchange over the cells then runs as plain steps.
  bool exchanges_fit() const { return exchanges_fit_; }
  // A rank's copy of `bytes` out of shared memory into its own buffer
  // should use streaming stores: the node's ranks copying as much together
  // reach coll_stream_copy (common/streaming_copy.hpp). Local to the rank:
  // how it copies changes nothing for the others.
  bool streams(std::uint64_t bytes) const { return bytes >= stream_from_; }
  std::uint32_t cpus() const { return cpus_; }
  std::uint32_t ranks() const { return ranks_; }

  // The plan as rules in the tuning file's form, in order, without ranks
  // (they are this group's): pasted into a tuning file they choose as it
  // does. For `mpfrun --report` and the tests.
  std::vector<Rule> as_rules() const;

 private:
  friend class Choice;
  // Tables: barrier, bcast, reduce x 3 classes, allreduce x 3, allgather, alltoall.
  static constexpr std::size_t kTables = 10;
  struct Entry {
    std::uint64_t below;  // this choice for bytes below it (the last entry of a table: any bytes)
    Algorithm algorithm;
    Parameters parameters;
  };
  static std::size_t table_of(Operation operation, Reduction reduction) {
    const auto cls = static_cast<std::size_t>(reduction == Reduction::noncommutative ? 0
                                              : reduction == Reduction::commutative  ? 1
                                                                                      : 2);
    switch (operation) {
      case Operation::barrier: return 0;
      case Operation::bcast: return 1;
      case Operation::reduce: return 2 + cls;
      case Operation::allreduce: return 5 + cls;
      case Operation::allgather: return 8;
      case Operation::alltoall: return 9;
    }
    return 0;
  }
  Choice first_choice(std::size_t table) const {
    return {first_algorithm_[table], this, static_cast<std::uint8_t>(table), Choice::kFirstOfTable};
  }
  Choice lookup(std::size_t table, std::uint64_t bytes) const {
    std::size_t i = first_[table];
    const std::size_t last = first_[table + 1] - 1u;
    while (i != last && bytes >= entries_[i].below) ++i;
    return {entries_[i].algorithm, this, static_cast<std::uint8_t>(table), static_cast<std::uint16_t>(i)};
  }

  // Cache line 0: what a call of the common sizes reads, and only that: per
  // table, the bytes below which its first entry holds (below the sizes
  // where a reduction's classes differ; at most 2^32 - 1 here, the rest of
  // the table says beyond) and that entry's algorithm, and the group's
  // facts the algorithms ask for every call.
  alignas(64) std::array<std::uint32_t, kTables> first_below_{};
  std::array<Algorithm, kTables> first_algorithm_{};
  bool on_board_ = false;
  bool across_nodes_ = false;
  bool exchanges_fit_ = false;
  static_assert(sizeof(first_below_) + sizeof(first_algorithm_) + 2 * sizeof(bool) <= 64);
  // Line 1 and on.
  std::array<std::uint16_t, kTables + 1> first_{};  // table t: entries_[first_[t], first_[t + 1])
  std::vector<Entry> entries_;
  std::array<std::uint64_t, 2> classes_from_{};  // reduce, allreduce: the classes differ from here
  std::uint64_t stream_from_ = 0;
  std::uint64_t sum_bytes_ = 0;  // on the board: the sums' bytes; else 0
  std::uint32_t cpus_ = 1;
  std::uint32_t ranks_ = 0;
};

inline const Parameters& Choice::parameters() const {
  return plan_->entries_[entry_ == kFirstOfTable ? plan_->first_[table_] : entry_].parameters;
}

}  // namespace mpf::coll
