#include "coll/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "coll/board_layout.hpp"

namespace mpf::coll {

namespace {

bool is_reduction(Operation op) { return op == Operation::reduce || op == Operation::allreduce; }

// A rule cut to what can apply in one table: [from, to) -> algorithm, parameters.
struct Candidate {
  std::uint64_t from, to;
  Algorithm algorithm;
  Parameters parameters;
  bool same_choice(const Candidate& other) const {
    return algorithm == other.algorithm && parameters == other.parameters;
  }
};

bool power_of_two(std::uint64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The group and job the plan is for.
struct Setting {
  const JobFacts& facts;
  const Shape& shape;
  bool on_board;
};

// Whether `rule` is for this group at all (its size and the node's ranks per CPU).
bool for_group(const Rule& rule, const Setting& s) {
  const std::uint32_t n = s.shape.ranks, per_cpu = s.facts.ranks_per_cpu();
  return n >= rule.min_ranks && n <= rule.max_ranks && per_cpu >= rule.min_ranks_per_cpu &&
         per_cpu <= rule.max_ranks_per_cpu;
}

// A call of class `call` (a reduction's) is one `rule` is for.
bool for_class(Reduction rule, Reduction call) {
  switch (rule) {
    case Reduction::any: return true;
    case Reduction::commutative: return call == Reduction::commutative || call == Reduction::exact;
    case Reduction::exact: return call == Reduction::exact;
    case Reduction::noncommutative: return call == Reduction::noncommutative;
  }
  return false;
}

// The bytes past the most `algorithm` can carry here (kNoMaxBytes: no
// limit), or 0 when it cannot run here at all.
std::uint64_t carries_below(Operation op, Algorithm algorithm, const Setting& s) {
  const Needs needs = algorithm_needs(op, algorithm);
  const std::uint64_t n = s.shape.ranks;
  if ((needs.one_node && s.shape.across_nodes) || (needs.nodes && !s.shape.across_nodes) ||
      (needs.board && !s.on_board) || (needs.stage && s.facts.stage_bytes == 0) ||
      (needs.single_copy && s.facts.single_copy == 0) || (needs.power_of_two && !power_of_two(n)) ||
      (needs.two_ranks && n < 2)) {
    return 0;
  }
  std::uint64_t below = kNoMaxBytes;
  // Bruck's rounds each carry half the blocks in one cell.
  if (needs.cells) below = s.facts.cell_bytes / (algorithm == Algorithm::bruck ? (n + 1) / 2 : 1) + 1;
  if (needs.board_row) below = std::min<std::uint64_t>(below, kBoardDataBytes + 1);
  return below;
}

// One table's entries from `rules` (this group's), in order: the first
// candidate that covers each stretch of bytes.
std::vector<Candidate> table(std::span<const Rule> rules, Operation op, Reduction call, const Setting& s) {
  std::vector<Candidate> candidates;
  for (const Rule& rule : rules) {
    if (rule.operation != op || (is_reduction(op) && !for_class(rule.reduction, call))) continue;
    if (algorithm_needs(op, rule.algorithm).commutative && call == Reduction::noncommutative) continue;
    const std::uint64_t from = std::max<std::uint64_t>(rule.min_bytes, algorithm_needs(op, rule.algorithm).some_data);
    const std::uint64_t to = std::min(rule.max_bytes, carries_below(op, rule.algorithm, s));
    if (from >= to) continue;
    candidates.push_back(
        {from, to, rule.algorithm, resolve_parameters(op, rule.algorithm, rule.parameters, s.facts)});
  }
  std::vector<std::uint64_t> bounds{0};
  for (const Candidate& c : candidates) {
    bounds.push_back(c.from);
    if (c.to != kNoMaxBytes) bounds.push_back(c.to);
  }
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    const std::uint64_t from = bounds[i], to = i + 1 < bounds.size() ? bounds[i + 1] : kNoMaxBytes;
    const auto covers = [from](const Candidate& c) { return c.from <= from && from < c.to; };
    const auto first = std::find_if(candidates.begin(), candidates.end(), covers);
    if (first == candidates.end()) {
      // The default rules end with one that always applies: a bug if not.
      throw std::logic_error("collective plan: no rule covers " + std::string(name(op)) + " of " +
                             std::to_string(from) + " bytes on " + std::to_string(s.shape.ranks) + " ranks");
    }
    if (!out.empty() && out.back().same_choice(*first)) {
      out.back().to = to;
    } else {
      out.push_back({from, to, first->algorithm, first->parameters});
    }
  }
  return out;
}

// The first bytes at which tables `a` and `b` choose differently (kNoMaxBytes: never).
std::uint64_t first_difference(const std::vector<Candidate>& a, const std::vector<Candidate>& b) {
  std::size_t i = 0, j = 0;
  std::uint64_t at = 0;
  while (true) {
    if (!a[i].same_choice(b[j])) return at;
    if (a[i].to == kNoMaxBytes && b[j].to == kNoMaxBytes) return kNoMaxBytes;
    at = std::min(a[i].to, b[j].to);
    if (a[i].to == at) ++i;
    if (b[j].to == at) ++j;
  }
}

}  // namespace

Plan Plan::build(std::span<const Rule> tuned, const JobFacts& facts, const Shape& shape) {
  Plan plan;
  const Setting s{facts, shape, shape.world && facts.board && !shape.across_nodes};
  plan.on_board_ = s.on_board;
  plan.exchanges_fit_ = shape.ranks <= facts.exchange_max;
  plan.cpus_ = facts.cpus;
  plan.ranks_ = shape.ranks;
  plan.sum_bytes_ = s.on_board ? facts.stage_bytes : 0;
  // bytes * node_ranks >= stream_bytes, without the product.
  const std::uint64_t node = std::max(1u, facts.node_ranks);
  plan.stream_from_ = facts.stream_bytes / node + (facts.stream_bytes % node != 0 ? 1 : 0);

  // Across nodes only messages reach every member (the node's slots, cells
  // and board serve one node's ranks): the rules of other algorithms
  // cannot run there and drop out.
  std::vector<Rule> rules;
  plan.across_nodes_ = shape.across_nodes;
  for (const Rule& r : tuned) {
    if (for_group(r, s)) rules.push_back(r);
  }
  for (const Rule& r : default_rules(facts, shape)) {
    if (for_group(r, s)) rules.push_back(r);
  }

  using O = Operation;
  using R = Reduction;
  const std::array<std::pair<O, R>, kTables> tables{{{O::barrier, R::noncommutative},
                                                     {O::bcast, R::noncommutative},
                                                     {O::reduce, R::noncommutative},
                                                     {O::reduce, R::commutative},
                                                     {O::reduce, R::exact},
                                                     {O::allreduce, R::noncommutative},
                                                     {O::allreduce, R::commutative},
                                                     {O::allreduce, R::exact},
                                                     {O::allgather, R::noncommutative},
                                                     {O::alltoall, R::noncommutative}}};
  std::array<std::vector<Candidate>, kTables> built;
  for (std::size_t t = 0; t < kTables; ++t) {
    built[t] = table(rules, tables[t].first, tables[t].second, s);
    plan.first_[t] = static_cast<std::uint16_t>(plan.entries_.size());
    for (const Candidate& c : built[t]) plan.entries_.push_back({c.to, c.algorithm, c.parameters});
  }
  plan.first_[kTables] = static_cast<std::uint16_t>(plan.entries_.size());
  for (std::size_t k = 0; k < 2; ++k) {
    const std::size_t base = table_of(k == 0 ? O::reduce : O::allreduce, R::noncommutative);
    plan.classes_from_[k] =
        std::min(first_difference(built[base], built[base + 1]), first_difference(built[base], built[base + 2]));
  }
  for (std::size_t t = 0; t < kTables; ++t) {
    std::uint64_t below = built[t].front().to;
    // A reduction's first entry is the same for every class only so far.
    if (tables[t].first == O::reduce) below = std::min(below, plan.classes_from_[0]);
    if (tables[t].first == O::allreduce) below = std::min(below, plan.classes_from_[1]);
    plan.first_below_[t] = static_cast<std::uint32_t>(std::min<std::uint64_t>(below, UINT32_MAX));
    plan.first_algorithm_[t] = built[t].front().algorithm;
  }
  return plan;
}

std::vector<Rule> Plan::as_rules() const {
  std::vector<Rule> out;
  auto emit = [&](std::size_t t, Operation op, Reduction reduction) {
    std::uint64_t from = 0;
    for (std::size_t i = first_[t]; i < first_[t + 1]; ++i) {
      Rule r;
      r.operation = op;
      r.reduction = reduction;
      r.min_bytes = from;
      r.max_bytes = i + 1 < first_[t + 1] ? entries_[i].below : kNoMaxBytes;
      r.algorithm = entries_[i].algorithm;
      r.parameters = entries_[i].parameters;
      out.push_back(r);
      from = r.max_bytes;
    }
  };
  auto same = [&](std::size_t a, std::size_t b) {
    return first_[a + 1] - first_[a] == first_[b + 1] - first_[b] &&
           std::equal(entries_.begin() + first_[a], entries_.begin() + first_[a + 1], entries_.begin() + first_[b],
                      [](const Entry& x, const Entry& y) {
                        return x.below == y.below && x.algorithm == y.algorithm && x.parameters == y.parameters;
                      });
  };
  emit(0, Operation::barrier, Reduction::any);
  emit(1, Operation::bcast, Reduction::any);
  for (Operation op : {Operation::reduce, Operation::allreduce}) {
    const std::size_t base = table_of(op, Reduction::noncommutative);
    // Exact first: a commutative rule matches exact operations too, and
    // a rule for any operation all of them.
    const bool commutative_differs = !same(base + 1, base);
    if (!same(base + 2, commutative_differs ? base + 1 : base)) emit(base + 2, op, Reduction::exact);
    if (commutative_differs) emit(base + 1, op, Reduction::commutative);
    emit(base, op, Reduction::any);
  }
  emit(8, Operation::allgather, Reduction::any);
  emit(9, Operation::alltoall, Reduction::any);
  return out;
}

}  // namespace mpf::coll
