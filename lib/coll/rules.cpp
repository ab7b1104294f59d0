#include "coll/rules.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "coll/board_layout.hpp"
#include "common/tunables.hpp"

namespace mpf::coll {

namespace {

using common::TunableError;

constexpr std::array<std::string_view, kOperationCount> kOperationNames{"barrier",   "bcast",    "reduce",
                                                                        "allreduce", "allgather", "alltoall"};
constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames{
    "board", "board_stage", "board_sum", "board_single_copy", "dissemination", "tree",
    "doubling", "cells", "bruck", "single_copy", "slots", "gather_bcast", "messages", "hierarchical"};
constexpr std::array<std::string_view, 4> kReductionNames{"any", "commutative", "exact", "noncommutative"};

using A = Algorithm;
constexpr std::array kBarrierAlgorithms{A::board, A::dissemination, A::tree, A::messages, A::hierarchical};
constexpr std::array kBcastAlgorithms{A::board,       A::board_stage, A::cells,       A::single_copy,
                                      A::slots,       A::messages,    A::hierarchical};
constexpr std::array kReduceAlgorithms{A::board,       A::board_sum, A::board_single_copy, A::cells,
                                       A::single_copy, A::slots,     A::messages,          A::hierarchical};
constexpr std::array kAllreduceAlgorithms{A::board, A::board_sum,   A::board_single_copy, A::doubling,   A::cells,
                                          A::single_copy, A::slots, A::messages,          A::hierarchical};
constexpr std::array kAllgatherAlgorithms{A::board_stage, A::cells,        A::single_copy,
                                          A::slots,       A::gather_bcast, A::messages};
constexpr std::array kAlltoallAlgorithms{A::board, A::single_copy, A::bruck, A::cells, A::slots, A::messages};

bool is_reduction(Operation op) { return op == Operation::reduce || op == Operation::allreduce; }

// The largest piece or radix a rule may ask for: bounds, not tuning. A
// piece is scratch memory of each rank that takes one.
constexpr std::uint64_t kMaxPieceBytes = std::uint64_t{1} << 30;
// A board sum's pieces must each hold at least kSumPieceMin bytes, so that
// a round fits the sum's piece words (sum_pieces): a piece of whole
// elements of twice that always does.
constexpr std::uint64_t kMinSumPieceBytes = 2 * std::uint64_t{kSumPieceMin};
// The largest byte count a rule may name (what a size tunable may hold).
constexpr auto kLargestSize = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

template <class Names>
std::string listed(const Names& names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::string algorithm_list(Operation op) {
  std::vector<std::string_view> names;
  for (Algorithm a : algorithms_of(op)) names.push_back(name(a));
  return listed(names);
}

// One rule being read: every message names the source, the rule and the field.
class RuleReader {
 public:
  RuleReader(const nlohmann::json& rule, std::string_view where, std::size_t index)
      : rule_(rule), prefix_(std::string(where) + ": collective_rules[" + std::to_string(index) + "]") {}

  [[noreturn]] void fail(std::string_view what) const { throw TunableError(prefix_ + ": " + std::string(what)); }
  [[noreturn]] void fail_field(std::string_view field, std::string_view what) const {
    fail("field " + in_quotes(field) + " " + std::string(what));
  }

  const nlohmann::json* field(std::string_view key) const {
    auto it = rule_.find(std::string(key));
    return it == rule_.end() ? nullptr : &*it;
  }

  std::string word(std::string_view key, bool required, std::string_view accepted) const {
    const nlohmann::json* v = field(key);
    if (v == nullptr) {
      if (required) fail("has no " + in_quotes(key) + "; expected one of: " + std::string(accepted));
      return {};
    }
    if (!v->is_string()) fail_field(key, "is " + v->dump() + "; expected one of: " + std::string(accepted));
    return v->get<std::string>();
  }

  // A count of bytes: a JSON integer, or a size text ("64KiB").
  std::optional<std::uint64_t> bytes(std::string_view key, std::uint64_t low, std::uint64_t high) const {
    const nlohmann::json* v = field(key);
    if (v == nullptr) return std::nullopt;
    const std::string range =
        high >= kLargestSize
            ? "of at least " + common::format_size(static_cast<std::int64_t>(low))
            : "in [" + common::format_size(static_cast<std::int64_t>(low)) + ", " +
                  common::format_size(static_cast<std::int64_t>(high)) + "]";
    const std::string expected = "expected a size " + range + " (bytes, or a string with suffix K/KiB, M/MiB, G/GiB)";
    std::uint64_t value = 0;
    if (v->is_number_unsigned() || (v->is_number_integer() && v->get<std::int64_t>() >= 0)) {
      value = v->get<std::uint64_t>();
    } else if (v->is_string()) {
      constexpr common::TunableSpec kBytes{.id = common::Tunable::count,
                                           .name = "bytes",
                                           .kind = common::TunableKind::size,
                                           .default_value = "0",
                                           .min = 0,
                                           .max = std::numeric_limits<std::int64_t>::max(),
                                           .choices = {},
                                           .doc = "bytes of a collective rule"};
      const common::detail::ParseOutcome parsed = common::detail::parse(kBytes, v->get<std::string>());
      if (parsed.status != common::detail::ParseStatus::ok) fail_field(key, "is " + v->dump() + "; " + expected);
      value = static_cast<std::uint64_t>(parsed.number);
    } else {
      fail_field(key, "is " + v->dump() + "; " + expected);
    }
    if (value < low || value > high) fail_field(key, "is " + v->dump() + "; " + expected);
    return value;
  }

  std::optional<std::uint32_t> count(std::string_view key, std::uint32_t low, std::uint32_t high) const {
    const nlohmann::json* v = field(key);
    if (v == nullptr) return std::nullopt;
    const bool integer = v->is_number_unsigned() || v->is_number_integer();
    if (!integer || v->get<std::int64_t>() < low || v->get<std::int64_t>() > high) {
      fail_field(key, "is " + v->dump() + "; expected an integer in [" + std::to_string(low) + ", " +
                          std::to_string(high) + "]");
    }
    return static_cast<std::uint32_t>(v->get<std::int64_t>());
  }

 private:
  const nlohmann::json& rule_;
  std::string prefix_;
};

Rule parse_rule(const nlohmann::json& json, std::string_view where, std::size_t index) {
  const RuleReader in(json, where, index);
  if (!json.is_object()) in.fail("is " + json.dump() + "; expected a JSON object with an operation and an algorithm");
  Rule rule;
  const std::string op = in.word("operation", true, listed(kOperationNames));
  bool known = false;
  for (std::size_t i = 0; i < kOperationCount; ++i) {
    if (kOperationNames[i] == op) {
      rule.operation = static_cast<Operation>(i);
      known = true;
    }
  }
  if (!known) in.fail_field("operation", "is " + in_quotes(op) + "; expected one of: " + listed(kOperationNames));

  const std::string algorithm = in.word("algorithm", true, algorithm_list(rule.operation));
  known = false;
  for (Algorithm a : algorithms_of(rule.operation)) {
    if (name(a) == algorithm) {
      rule.algorithm = a;
      known = true;
    }
  }
  if (!known) {
    in.fail_field("algorithm", "is " + in_quotes(algorithm) + ", not an algorithm of " + op +
                                   "; expected one of: " + algorithm_list(rule.operation));
  }

  // The fields this rule may have, for unknown ones and the message.
  std::vector<std::string_view> fields{"operation", "algorithm", "min_ranks", "max_ranks", "min_ranks_per_cpu",
                                       "max_ranks_per_cpu"};
  // A barrier moves no data.
  if (rule.operation != Operation::barrier) fields.insert(fields.begin() + 2, {"min_bytes", "max_bytes"});
  if (is_reduction(rule.operation)) fields.push_back("reduction");
  if (takes_radix(rule.operation, rule.algorithm)) fields.push_back("radix");
  if (takes_piece(rule.operation, rule.algorithm)) fields.push_back("piece_bytes");
  if (takes_piece_range(rule.operation, rule.algorithm)) {
    fields.push_back("min_piece_bytes");
    fields.push_back("max_piece_bytes");
  }
  for (const auto& [key, value] : json.items()) {
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      in.fail_field(key, "is not one a rule for " + op + " with algorithm " + algorithm +
                             " takes; expected: " + listed(fields));
    }
  }

  if (is_reduction(rule.operation)) {
    const std::array<std::string_view, 3> accepted{"any", "commutative", "exact"};
    const std::string r = in.word("reduction", false, listed(accepted));
    if (!r.empty()) {
      known = false;
      for (std::size_t i = 0; i < accepted.size(); ++i) {
        if (accepted[i] == r) {
          rule.reduction = static_cast<Reduction>(i);
          known = true;
        }
      }
      if (!known) in.fail_field("reduction", "is " + in_quotes(r) + "; expected one of: " + listed(accepted));
    }
  }

  rule.min_bytes = in.bytes("min_bytes", 0, kLargestSize).value_or(0);
  rule.max_bytes = in.bytes("max_bytes", 1, kLargestSize).value_or(kNoMaxBytes);
  if (rule.min_bytes >= rule.max_bytes) {
    in.fail("min_bytes " + std::to_string(rule.min_bytes) + " is not below max_bytes " +
            std::to_string(rule.max_bytes) + " (the range is [min_bytes, max_bytes))");
  }
  constexpr std::uint32_t kMaxCount = 1u << 30;
  rule.min_ranks = in.count("min_ranks", 1, kMaxCount).value_or(1);
  rule.max_ranks = in.count("max_ranks", 1, kMaxCount).value_or(kNoMaxRanks);
  if (rule.min_ranks > rule.max_ranks) {
    in.fail("min_ranks " + std::to_string(rule.min_ranks) + " is above max_ranks " + std::to_string(rule.max_ranks));
  }
  rule.min_ranks_per_cpu = in.count("min_ranks_per_cpu", 1, kMaxCount).value_or(1);
  rule.max_ranks_per_cpu = in.count("max_ranks_per_cpu", 1, kMaxCount).value_or(kNoMaxRanks);
  if (rule.min_ranks_per_cpu > rule.max_ranks_per_cpu) {
    in.fail("min_ranks_per_cpu " + std::to_string(rule.min_ranks_per_cpu) + " is above max_ranks_per_cpu " +
            std::to_string(rule.max_ranks_per_cpu));
  }

  const common::TunableSpec& radix = common::spec(common::Tunable::coll_radix);
  rule.parameters.radix =
      in.count("radix", static_cast<std::uint32_t>(radix.min), static_cast<std::uint32_t>(radix.max)).value_or(0);
  const std::uint64_t least_piece = rule.algorithm == A::board_sum ? kMinSumPieceBytes : 1;
  rule.parameters.piece_bytes = in.bytes("piece_bytes", least_piece, kMaxPieceBytes).value_or(0);
  rule.parameters.min_piece_bytes = in.bytes("min_piece_bytes", 1, kMaxPieceBytes).value_or(0);
  rule.parameters.max_piece_bytes = in.bytes("max_piece_bytes", 1, kMaxPieceBytes).value_or(0);
  const Parameters& p = rule.parameters;
  if (p.min_piece_bytes > 0 && p.max_piece_bytes > 0 && p.min_piece_bytes > p.max_piece_bytes) {
    in.fail("min_piece_bytes " + std::to_string(p.min_piece_bytes) + " is above max_piece_bytes " +
            std::to_string(p.max_piece_bytes));
  }
  return rule;
}

// Where the coll_rules tunable's value came from, for messages.
std::string source_of_rules(const common::Tunables& tunables) {
  const common::Tunable t = common::Tunable::coll_rules;
  switch (tunables.source(t)) {
    case common::TunableSource::tuning_file: return tunables.origin(t);  // "tuning file PATH"
    case common::TunableSource::environment: return common::env_name(common::spec(t));
    case common::TunableSource::command_line: return "--set coll_rules";
    case common::TunableSource::default_value: break;
  }
  return "the default of coll_rules";
}

}  // namespace

std::string_view name(Operation operation) { return kOperationNames[static_cast<std::size_t>(operation)]; }
std::string_view name(Algorithm algorithm) { return kAlgorithmNames[static_cast<std::size_t>(algorithm)]; }
std::string_view name(Reduction reduction) { return kReductionNames[static_cast<std::size_t>(reduction)]; }

std::span<const Algorithm> algorithms_of(Operation operation) {
  switch (operation) {
    case Operation::barrier: return kBarrierAlgorithms;
    case Operation::bcast: return kBcastAlgorithms;
    case Operation::reduce: return kReduceAlgorithms;
    case Operation::allreduce: return kAllreduceAlgorithms;
    case Operation::allgather: return kAllgatherAlgorithms;
    case Operation::alltoall: return kAlltoallAlgorithms;
  }
  return {};
}

bool takes_radix(Operation op, Algorithm a) {
  if (op == Operation::barrier) return a == A::tree;
  return (op == Operation::bcast || is_reduction(op)) && (a == A::cells || a == A::slots);
}
bool takes_piece(Operation op, Algorithm a) {
  return is_reduction(op) && (a == A::board_sum || a == A::single_copy);
}
bool takes_piece_range(Operation op, Algorithm a) { return is_reduction(op) && a == A::board_single_copy; }

Needs algorithm_needs(Operation operation, Algorithm algorithm) {
  Needs needs;
  switch (algorithm) {
    case A::board:
      needs.board = true;
      // A reduction's vector and an all-to-all round live in one row; a
      // Bcast takes as many entries as it needs.
      needs.board_row = is_reduction(operation) || operation == Operation::alltoall;
      needs.some_data = operation == Operation::alltoall;
      break;
    case A::board_stage:
      needs.board = needs.stage = true;
      break;
    case A::board_sum:
      needs.board = needs.stage = needs.commutative = true;
      break;
    case A::board_single_copy:
      needs.board = needs.single_copy = true;
      break;
    case A::doubling:
      needs.power_of_two = needs.cells = true;
      break;
    case A::tree:
      // A tree of one rank is a barrier too: the default rules end with it.
      // A barrier moves no data, so any cell holds its messages.
      needs.two_ranks = false;
      break;
    case A::dissemination:
      break;
    case A::cells:
    case A::bruck:
      needs.cells = true;
      break;
    case A::single_copy:
      needs.single_copy = true;
      break;
    case A::slots:
    case A::gather_bcast:
      needs.two_ranks = false;
      break;
    case A::messages:
      needs.two_ranks = needs.one_node = false;
      break;
    case A::hierarchical:
      // Combining node by node takes the inputs out of rank order.
      needs.commutative = is_reduction(operation);
      needs.one_node = false;
      needs.nodes = true;
      break;
  }
  return needs;
}

std::vector<Rule> parse_rules(const nlohmann::json& rules, std::string_view where) {
  if (!rules.is_array()) {
    throw TunableError(std::string(where) + ": collective_rules is a JSON " + rules.type_name() +
                       "; expected an array of rules (man 7 mpf, Collective rules)");
  }
  // A bound, not tuning: a plan indexes its entries in 16 bits.
  constexpr std::size_t kMaxRules = 1024;
  if (rules.size() > kMaxRules) {
    throw TunableError(std::string(where) + ": collective_rules holds " + std::to_string(rules.size()) +
                       " rules; at most " + std::to_string(kMaxRules));
  }
  std::vector<Rule> out;
  for (std::size_t i = 0; i < rules.size(); ++i) out.push_back(parse_rule(rules[i], where, i));
  return out;
}

std::vector<Rule> rules_from(const common::Tunables& tunables) {
  const std::string& text = tunables.text(common::Tunable::coll_rules);
  if (text.empty()) return {};
  const std::string where = source_of_rules(tunables);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw TunableError(where + ": collective_rules is not valid JSON: " + e.what());
  }
  return parse_rules(json, where);
}

nlohmann::json to_json(const Rule& rule) {
  nlohmann::json out = nlohmann::json::object();
  out["operation"] = name(rule.operation);
  if (rule.reduction != Reduction::any) out["reduction"] = name(rule.reduction);
  if (rule.min_bytes != 0) out["min_bytes"] = rule.min_bytes;
  if (rule.max_bytes != kNoMaxBytes) out["max_bytes"] = rule.max_bytes;
  if (rule.min_ranks != 1) out["min_ranks"] = rule.min_ranks;
  if (rule.max_ranks != kNoMaxRanks) out["max_ranks"] = rule.max_ranks;
  if (rule.min_ranks_per_cpu != 1) out["min_ranks_per_cpu"] = rule.min_ranks_per_cpu;
  if (rule.max_ranks_per_cpu != kNoMaxRanks) out["max_ranks_per_cpu"] = rule.max_ranks_per_cpu;
  out["algorithm"] = name(rule.algorithm);
  const Parameters& p = rule.parameters;
  if (p.radix != 0) out["radix"] = p.radix;
  if (p.piece_bytes != 0) out["piece_bytes"] = p.piece_bytes;
  if (p.min_piece_bytes != 0) out["min_piece_bytes"] = p.min_piece_bytes;
  if (p.max_piece_bytes != 0) out["max_piece_bytes"] = p.max_piece_bytes;
  return out;
}

}  // namespace mpf::coll
