// Unit tests of rank placement (launcher/binding.{hpp,cpp}).
//
// plan_placements() asks libnuma for the NUMA node of each CPU it is given. The
// tests use the fake CPU list {0, 1, 2, 3} and are written for a machine on which
// those CPUs are all on node 0 (or do not exist, which libnuma also reports as
// node 0 to the planner): every single-node machine, including the 2-core CI
// machines. On a machine where they span several nodes the node-dependent tests
// skip themselves instead of asserting a single-node plan.
#include "launcher/binding.hpp"

#include "common/binding_rule.hpp"

#include <numa.h>
#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace mpf::launcher {
namespace {

const std::vector<int> kCpus{0, 1, 2, 3};
using Cpus = std::vector<int>;

// True when the planner sees every CPU of kCpus on NUMA node 0.
bool fake_cpus_on_one_node() {
  if (numa_available() < 0) return true;
  return std::all_of(kCpus.begin(), kCpus.end(), [](int cpu) { return numa_node_of_cpu(cpu) <= 0; });
}

// Tests whose assertions describe a single-node machine.
class OneNodeBinding : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fake_cpus_on_one_node()) {
      GTEST_SKIP() << "CPUs 0-3 span several NUMA nodes here; these assertions describe a single-node machine";
    }
  }
};

TEST(Binding, NoneLeavesEveryRankUnbound) {
  for (MapBy map_by : {MapBy::core, MapBy::numa}) {
    const std::vector<Placement> plan = plan_placements(BindTo::none, map_by, 6, kCpus);
    ASSERT_EQ(plan.size(), 6u);
    for (const Placement& p : plan) {
      EXPECT_TRUE(p.cpus.empty());
      EXPECT_EQ(p.numa_node, -1);
      EXPECT_EQ(describe_placement(p), "not bound");
    }
  }
}

// auto binds each rank to one CPU only when ranks outnumber the CPUs and
// divide evenly among them.
TEST(BindingRule, BindsByDefaultOnlyAnEvenOversubscription) {
  EXPECT_FALSE(common::binds_by_default(1, 2));
  EXPECT_FALSE(common::binds_by_default(2, 2));
  EXPECT_FALSE(common::binds_by_default(3, 2));
  EXPECT_TRUE(common::binds_by_default(4, 2));
  EXPECT_TRUE(common::binds_by_default(64, 2));
  EXPECT_FALSE(common::binds_by_default(65, 2));
  EXPECT_TRUE(common::binds_by_default(96, 48));
  EXPECT_FALSE(common::binds_by_default(4, 0));
}

TEST(Binding, AutoLeavesAJobWithACpuPerRankUnbound) {
  for (int nranks : {1, 4}) {
    for (const Placement& p : plan_placements(BindTo::automatic, MapBy::core, nranks, kCpus)) {
      EXPECT_TRUE(p.cpus.empty());
    }
  }
}

TEST(Binding, AutoLeavesAnUnevenOversubscriptionUnbound) {
  for (const Placement& p : plan_placements(BindTo::automatic, MapBy::core, 6, kCpus)) EXPECT_TRUE(p.cpus.empty());
}

TEST_F(OneNodeBinding, AutoBindsAnEvenOversubscriptionRoundRobin) {
  const std::vector<Placement> plan = plan_placements(BindTo::automatic, MapBy::core, 8, kCpus);
  ASSERT_EQ(plan.size(), 8u);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(plan[r].cpus, (Cpus{r % 4})) << "rank " << r;
}

TEST(Binding, NoRanksNoPlan) {
  EXPECT_TRUE(plan_placements(BindTo::core, MapBy::core, 0, kCpus).empty());
  EXPECT_TRUE(plan_placements(BindTo::none, MapBy::core, 0, kCpus).empty());
}

TEST_F(OneNodeBinding, CoreByCoreGivesEachRankItsCpu) {
  const std::vector<Placement> plan = plan_placements(BindTo::core, MapBy::core, 4, kCpus);
  ASSERT_EQ(plan.size(), 4u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(plan[r].cpus, (Cpus{r})) << "rank " << r;
    EXPECT_EQ(plan[r].numa_node, 0) << "rank " << r;
  }
  EXPECT_EQ(describe_placement(plan[0]), "cpu 0 (NUMA node 0)");
  EXPECT_EQ(describe_placement(plan[3]), "cpu 3 (NUMA node 0)");
}

TEST_F(OneNodeBinding, CoreFollowsTheGivenCpuList) {
  const std::vector<Placement> plan = plan_placements(BindTo::core, MapBy::core, 3, {3, 1, 2});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].cpus, (Cpus{3}));
  EXPECT_EQ(plan[1].cpus, (Cpus{1}));
  EXPECT_EQ(plan[2].cpus, (Cpus{2}));
}

// More ranks than CPUs: the plan wraps round (the job is oversubscribed).
TEST_F(OneNodeBinding, CoreWrapsAroundWhenRanksExceedCpus) {
  const std::vector<Placement> plan = plan_placements(BindTo::core, MapBy::core, 10, kCpus);
  ASSERT_EQ(plan.size(), 10u);
  for (int r = 0; r < 10; ++r) EXPECT_EQ(plan[r].cpus, (Cpus{r % 4})) << "rank " << r;
}

TEST_F(OneNodeBinding, SingleCpu) {
  const std::vector<Placement> plan = plan_placements(BindTo::core, MapBy::core, 3, {2});
  ASSERT_EQ(plan.size(), 3u);
  for (const Placement& p : plan) EXPECT_EQ(describe_placement(p), "cpu 2 (NUMA node 0)");
}

// With one node, round-robin over nodes is consecutive cores again.
TEST_F(OneNodeBinding, CoreByNumaOnOneNode) {
  const std::vector<Placement> plan = plan_placements(BindTo::core, MapBy::numa, 6, kCpus);
  ASSERT_EQ(plan.size(), 6u);
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(plan[r].cpus, (Cpus{r % 4})) << "rank " << r;
    EXPECT_EQ(plan[r].numa_node, 0);
  }
}

// Binding to a NUMA node gives each rank all of that node's CPUs: with one
// node, every CPU, whatever the mapping.
TEST_F(OneNodeBinding, NumaBindsToEveryCpuOfTheNode) {
  for (MapBy map_by : {MapBy::core, MapBy::numa}) {
    const std::vector<Placement> plan = plan_placements(BindTo::numa, map_by, 5, kCpus);
    ASSERT_EQ(plan.size(), 5u);
    for (const Placement& p : plan) {
      EXPECT_EQ(p.cpus, kCpus);
      EXPECT_EQ(p.numa_node, 0);
      EXPECT_EQ(describe_placement(p), "cpus 0-3 (NUMA node 0)");
    }
  }
}

TEST_F(OneNodeBinding, NumaBindingWithAGapInTheCpus) {
  const std::vector<Placement> gap = plan_placements(BindTo::numa, MapBy::core, 1, {0, 2, 3});
  EXPECT_EQ(describe_placement(gap.at(0)), "cpus 0,2-3 (NUMA node 0)");
}

TEST(Binding, DescribePlacement) {
  EXPECT_EQ(describe_placement({}), "not bound");
  EXPECT_EQ(describe_placement({{0}, 0}), "cpu 0 (NUMA node 0)");
  EXPECT_EQ(describe_placement({{17}, 1}), "cpu 17 (NUMA node 1)");
  EXPECT_EQ(describe_placement({{0, 1, 2, 3}, 0}), "cpus 0-3 (NUMA node 0)");
  EXPECT_EQ(describe_placement({{0, 1}, 0}), "cpus 0-1 (NUMA node 0)");
  EXPECT_EQ(describe_placement({{1, 3, 4, 5, 7}, 2}), "cpus 1,3-5,7 (NUMA node 2)");
  EXPECT_EQ(describe_placement({{4, 6}, 0}), "cpus 4,6 (NUMA node 0)");
}

TEST(Binding, AllowedCpusMatchTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  const std::vector<int> cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(static_cast<int>(cpus.size()), CPU_COUNT(&set));
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  EXPECT_EQ(std::adjacent_find(cpus.begin(), cpus.end()), cpus.end()) << "no CPU twice";
  for (int cpu : cpus) EXPECT_TRUE(CPU_ISSET(cpu, &set)) << "cpu " << cpu;
}

// The real CPU list: a core binding never puts two ranks on one CPU while
// there are CPUs to spare.
TEST(Binding, RealCpusOneRankPerCpu) {
  const std::vector<int> cpus = allowed_cpus();
  const std::vector<Placement> plan =
      plan_placements(BindTo::core, MapBy::core, static_cast<int>(cpus.size()), cpus);
  std::vector<int> used;
  for (const Placement& p : plan) {
    ASSERT_EQ(p.cpus.size(), 1u);
    EXPECT_GE(p.numa_node, 0);
    used.push_back(p.cpus[0]);
  }
  std::sort(used.begin(), used.end());
  EXPECT_EQ(used, cpus);
}

}  // namespace
}  // namespace mpf::launcher
