// Collective rules (lib/coll/rules.hpp): reading and checking them, and a
// tuning file's rules overriding the default ones in a group's plan
// (lib/coll/plan.hpp).
#include "coll/rules.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "coll/plan.hpp"
#include "common/tunables.hpp"
#include "support/job_facts.hpp"

namespace mpf::coll {
namespace {

using ::testing::HasSubstr;
using A = Algorithm;
using O = Operation;
using R = Reduction;

constexpr std::uint64_t KiB = 1024;

JobFacts node(std::uint32_t node_ranks, std::uint32_t cpus) { return mpf::testing::node_facts(node_ranks, cpus); }

std::vector<Rule> parse(const std::string& json) { return parse_rules(nlohmann::json::parse(json), "test"); }

// The message parse_rules throws for `json`, or "" when it accepts it.
std::string refusal(const std::string& json) {
  try {
    parse(json);
  } catch (const common::TunableError& e) {
    return e.what();
  }
  return "";
}

TEST(CollRules, ReadsEveryField) {
  const std::vector<Rule> rules = parse(R"([
    {"operation": "allreduce", "reduction": "commutative", "min_bytes": 16, "max_bytes": "64KiB",
     "min_ranks": 2, "max_ranks": 64, "min_ranks_per_cpu": 2, "max_ranks_per_cpu": 8,
     "algorithm": "slots", "radix": 8},
    {"operation": "reduce", "algorithm": "board_single_copy", "min_piece_bytes": "4K", "max_piece_bytes": 131072},
    {"operation": "allreduce", "algorithm": "board_sum", "piece_bytes": "32KiB"},
    {"operation": "barrier", "algorithm": "tree"}])");
  ASSERT_EQ(rules.size(), 4u);
  const Rule& r = rules[0];
  EXPECT_EQ(r.operation, O::allreduce);
  EXPECT_EQ(r.reduction, R::commutative);
  EXPECT_EQ(r.min_bytes, 16u);
  EXPECT_EQ(r.max_bytes, 64 * KiB);
  EXPECT_EQ(r.min_ranks, 2u);
  EXPECT_EQ(r.max_ranks, 64u);
  EXPECT_EQ(r.min_ranks_per_cpu, 2u);
  EXPECT_EQ(r.max_ranks_per_cpu, 8u);
  EXPECT_EQ(r.algorithm, A::slots);
  EXPECT_EQ(r.parameters.radix, 8u);
  EXPECT_EQ(rules[1].parameters.min_piece_bytes, 4 * KiB);
  EXPECT_EQ(rules[1].parameters.max_piece_bytes, 128 * KiB);
  EXPECT_EQ(rules[2].parameters.piece_bytes, 32 * KiB);
  // Omitted: every size, every group.
  EXPECT_EQ(rules[3].min_bytes, 0u);
  EXPECT_EQ(rules[3].max_bytes, kNoMaxBytes);
  EXPECT_EQ(rules[3].max_ranks, kNoMaxRanks);
  // Written back, they read the same.
  for (const Rule& rule : rules) EXPECT_EQ(parse_rules(nlohmann::json::array({to_json(rule)}), "again")[0], rule);
}

TEST(CollRules, MalformedRulesAreRefusedByName) {
  EXPECT_EQ(refusal(R"({"operation": "bcast"})"),
            "test: collective_rules is a JSON object; expected an array of rules (man 7 mpf, Collective rules)");
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "slots"}, {"operation": "bcast", "algorithm": "bruck"}])"),
            "test: collective_rules[1]: field 'algorithm' is 'bruck', not an algorithm of bcast; expected one of: "
            "board, board_stage, cells, single_copy, slots, messages, hierarchical");
  EXPECT_EQ(refusal(R"([{"operation": "broadcast", "algorithm": "slots"}])"),
            "test: collective_rules[0]: field 'operation' is 'broadcast'; expected one of: barrier, bcast, reduce, "
            "allreduce, allgather, alltoall");
  EXPECT_EQ(refusal(R"([{"algorithm": "slots"}])"),
            "test: collective_rules[0]: has no 'operation'; expected one of: barrier, bcast, reduce, allreduce, "
            "allgather, alltoall");
  EXPECT_EQ(refusal(R"([{"operation": "alltoall"}])"),
            "test: collective_rules[0]: has no 'algorithm'; expected one of: board, single_copy, bruck, cells, slots, messages");
  EXPECT_EQ(refusal(R"([3])"),
            "test: collective_rules[0]: is 3; expected a JSON object with an operation and an algorithm");
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "single_copy", "radix": 2}])"),
            "test: collective_rules[0]: field 'radix' is not one a rule for bcast with algorithm single_copy takes; "
            "expected: operation, algorithm, min_bytes, max_bytes, min_ranks, max_ranks, min_ranks_per_cpu, "
            "max_ranks_per_cpu");
  EXPECT_THAT(refusal(R"([{"operation": "barrier", "algorithm": "tree", "max_bytes": 8}])"),
              HasSubstr("field 'max_bytes' is not one a rule for barrier with algorithm tree takes"));
  EXPECT_THAT(refusal(R"([{"operation": "bcast", "algorithm": "slots", "reduction": "exact"}])"),
              HasSubstr("field 'reduction' is not one"));
  EXPECT_EQ(refusal(R"([{"operation": "reduce", "algorithm": "slots", "reduction": "sum"}])"),
            "test: collective_rules[0]: field 'reduction' is 'sum'; expected one of: any, commutative, exact");
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "slots", "min_bytes": -1}])"),
            "test: collective_rules[0]: field 'min_bytes' is -1; expected a size of at least 0 (bytes, or a "
            "string with suffix K/KiB, M/MiB, G/GiB)");
  EXPECT_THAT(refusal(R"([{"operation": "bcast", "algorithm": "slots", "max_bytes": "lots"}])"),
              HasSubstr("field 'max_bytes' is \"lots\"; expected a size"));
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "slots", "min_bytes": 64, "max_bytes": 64}])"),
            "test: collective_rules[0]: min_bytes 64 is not below max_bytes 64 (the range is [min_bytes, max_bytes))");
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "slots", "min_ranks": 0}])"),
            "test: collective_rules[0]: field 'min_ranks' is 0; expected an integer in [1, 1073741824]");
  EXPECT_THAT(refusal(R"([{"operation": "bcast", "algorithm": "slots", "min_ranks": 8, "max_ranks": 4}])"),
              HasSubstr("min_ranks 8 is above max_ranks 4"));
  EXPECT_THAT(refusal(R"([{"operation": "bcast", "algorithm": "slots", "max_ranks_per_cpu": 1.5}])"),
              HasSubstr("field 'max_ranks_per_cpu' is 1.5; expected an integer"));
  EXPECT_EQ(refusal(R"([{"operation": "bcast", "algorithm": "slots", "radix": 1}])"),
            "test: collective_rules[0]: field 'radix' is 1; expected an integer in [2, 65536]");
  // A board sum's pieces must fit its piece words (coll/board_layout.hpp).
  EXPECT_THAT(refusal(R"([{"operation": "reduce", "algorithm": "board_sum", "piece_bytes": 4096}])"),
              HasSubstr("field 'piece_bytes' is 4096; expected a size in [8KiB, 1GiB]"));
  EXPECT_THAT(refusal(R"([{"operation": "reduce", "algorithm": "board_single_copy", "min_piece_bytes": 65536,
                           "max_piece_bytes": 4096}])"),
              HasSubstr("min_piece_bytes 65536 is above max_piece_bytes 4096"));
  EXPECT_THAT(refusal(R"([{"operation": "reduce", "algorithm": "doubling"}])"),
              HasSubstr("'doubling', not an algorithm of reduce"));
}

// A temporary tuning file.
class TuningFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "mpf-rules-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string write(const std::string& rules) {
    path_ = (dir_ / "tuning.json").string();
    std::ofstream(path_) << R"({"mpf_tuning_version": 1, "tunables": {}, "collective_rules": )" << rules << "}";
    return path_;
  }
  common::Tunables resolve() {
    const std::string variable = "MPF_TUNING_FILE=" + path_;
    const char* envp[] = {variable.c_str(), nullptr};
    return common::Tunables::resolve(envp, {});
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(TuningFile, ARuleOverridesADefault) {
  // mpftune found the slots' binomial tree faster than the cells for
  // Bcasts of up to 1 KiB on 8 to 16 ranks.
  write(R"([{"operation": "bcast", "max_bytes": 1024, "min_ranks": 8, "max_ranks": 16,
             "algorithm": "slots", "radix": 2}])");
  const std::vector<Rule> tuned = rules_from(resolve());
  ASSERT_EQ(tuned.size(), 1u);
  const JobFacts f = node(64, 16);
  const Plan eight = Plan::build(tuned, f, {.ranks = 8, .world = false});
  EXPECT_EQ(eight.choose(O::bcast, 1).algorithm, A::slots);
  EXPECT_EQ(eight.choose(O::bcast, 1023).algorithm, A::slots);
  EXPECT_EQ(eight.choose(O::bcast, 1023).parameters().radix, 2u);
  // Past its range, and on other groups, the defaults.
  EXPECT_EQ(eight.choose(O::bcast, 1024).algorithm, A::cells);
  EXPECT_EQ(eight.choose(O::bcast, 1024).parameters().radix, 4u);
  EXPECT_EQ(Plan::build(tuned, f, {.ranks = 4, .world = false}).choose(O::bcast, 1).algorithm, A::cells);
  EXPECT_EQ(Plan::build(tuned, f, {.ranks = 17, .world = false}).choose(O::bcast, 1).algorithm, A::cells);
}

TEST_F(TuningFile, RulesMatchTheNodesRanksPerCpu) {
  write(R"([{"operation": "allreduce", "min_ranks_per_cpu": 4, "algorithm": "slots"}])");
  const std::vector<Rule> tuned = rules_from(resolve());
  auto small_allreduce = [&](const JobFacts& f) {
    const Plan p = Plan::build(tuned, f, {.ranks = 4, .world = false});
    return p.choose_reduction(O::allreduce, 8, [] { return R::exact; }).algorithm;
  };
  EXPECT_EQ(small_allreduce(node(8, 4)), A::doubling);   // 2 per CPU
  EXPECT_EQ(small_allreduce(node(16, 4)), A::slots);     // 4 per CPU
  EXPECT_EQ(small_allreduce(node(13, 4)), A::slots);     // 3.25, rounded up
}

TEST_F(TuningFile, ARuleAppliesOnlyWhereItsAlgorithmCanRun) {
  write(R"([{"operation": "bcast", "algorithm": "board_stage"},
            {"operation": "bcast", "algorithm": "cells"},
            {"operation": "allreduce", "algorithm": "board_sum"},
            {"operation": "allreduce", "algorithm": "doubling"},
            {"operation": "alltoall", "algorithm": "board"}])");
  const std::vector<Rule> tuned = rules_from(resolve());
  const JobFacts f = node(64, 2);
  // The board's stage serves the world only; the cells carry at most a cell.
  const Plan sub = Plan::build(tuned, f, {.ranks = 8, .world = false});
  EXPECT_EQ(sub.choose(O::bcast, 100).algorithm, A::cells);
  EXPECT_EQ(sub.choose(O::bcast, 2081).algorithm, A::slots);
  EXPECT_EQ(Plan::build(tuned, f, {.ranks = 64, .world = true}).choose(O::bcast, 100).algorithm, A::board_stage);
  // A board sum needs a commutative operation; doubling a power of two of ranks.
  const Plan world = Plan::build(tuned, f, {.ranks = 64, .world = true});
  EXPECT_EQ(world.choose_reduction(O::allreduce, 8, [] { return R::commutative; }).algorithm, A::board_sum);
  EXPECT_EQ(world.choose_reduction(O::allreduce, 8, [] { return R::noncommutative; }).algorithm, A::doubling);
  // An all-to-all's rows carry at least a byte of each block, at most a row.
  EXPECT_EQ(world.choose(O::alltoall, 0).algorithm, A::bruck);
  EXPECT_EQ(world.choose(O::alltoall, 1).algorithm, A::board);
  EXPECT_EQ(world.choose(O::alltoall, 8192).algorithm, A::board);
  EXPECT_EQ(world.choose(O::alltoall, 8193).algorithm, A::single_copy);
  const Plan six = Plan::build(tuned, node(6, 2), {.ranks = 6, .world = true});
  EXPECT_EQ(six.choose_reduction(O::allreduce, 8, [] { return R::noncommutative; }).algorithm, A::board);
}

TEST_F(TuningFile, AMalformedRuleIsRefusedNamingTheFile) {
  write(R"([{"operation": "bcast", "algorithm": "slots"},
            {"operation": "alltoall", "algorithm": "tree"}])");
  try {
    rules_from(resolve());
    FAIL() << "the rule was accepted";
  } catch (const common::TunableError& e) {
    EXPECT_EQ(std::string(e.what()),
              "tuning file " + path_ +
                  ": collective_rules[1]: field 'algorithm' is 'tree', not an algorithm of alltoall; expected one "
                  "of: board, single_copy, bruck, cells, slots, messages");
  }
}

TEST(CollRulesSource, TheEnvironmentAndSetAreNamed) {
  const char* env[] = {"MPF_TUNING_FILE=", R"(MPF_COLL_RULES=[{"operation": "gather"}])", nullptr};
  try {
    rules_from(common::Tunables::resolve(env, {}));
    FAIL() << "the rule was accepted";
  } catch (const common::TunableError& e) {
    EXPECT_THAT(e.what(), HasSubstr("MPF_COLL_RULES: collective_rules[0]: field 'operation' is 'gather'"));
  }
  const char* no_file[] = {"MPF_TUNING_FILE=", nullptr};
  const std::vector<std::string> sets{"coll_rules=[{"};
  try {
    rules_from(common::Tunables::resolve(no_file, sets));
    FAIL() << "the rules were accepted";
  } catch (const common::TunableError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--set coll_rules: collective_rules is not valid JSON"));
  }
  EXPECT_TRUE(rules_from(common::Tunables::resolve(no_file, {})).empty());
}

}  // namespace
}  // namespace mpf::coll
