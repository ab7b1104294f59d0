// Unit tests of the route table (lib/wireup/routes.hpp).
#include "wireup/routes.hpp"

#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace mpf::wireup {
namespace {

TEST(RouteTable, OneNodeReachesEveryRankThroughSharedMemoryAtItsOwnIndex) {
  const RouteTable t = RouteTable::one_node(4, 2);
  EXPECT_EQ(t.size(), 4u);
  EXPECT_EQ(t.me(), 2u);
  EXPECT_EQ(t.nodes(), 1u);
  EXPECT_TRUE(t.all_on_this_node());
  for (std::uint32_t r = 0; r < 4; ++r) {
    EXPECT_EQ(t[r].via, Via::shared_memory);
    EXPECT_EQ(t[r].node, 0u);
    EXPECT_EQ(t[r].local, r);
    EXPECT_EQ(t[r].endpoint, r);
  }
  EXPECT_EQ(std::vector<std::uint32_t>(t.node_ranks().begin(), t.node_ranks().end()),
            (std::vector<std::uint32_t>{0, 1, 2, 3}));
}

// Ranks placed round-robin on two nodes, seen from rank 3 (node "b").
TEST(RouteTable, TwoNodesSplitTheJobIntoSharedMemoryAndNetworkRoutes) {
  const std::vector<std::uint32_t> node_of{70, 90, 70, 90, 70, 90};
  const RouteTable t(node_of, 3);
  EXPECT_EQ(t.nodes(), 2u);
  EXPECT_FALSE(t.all_on_this_node());
  EXPECT_EQ(std::vector<std::uint32_t>(t.node_ranks().begin(), t.node_ranks().end()),
            (std::vector<std::uint32_t>{1, 3, 5}));
  // Node indices follow each node's lowest rank; local indices follow world order.
  const std::uint32_t node[] = {0, 1, 0, 1, 0, 1}, local[] = {0, 0, 1, 1, 2, 2};
  for (std::uint32_t r = 0; r < 6; ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(t[r].node, node[r]);
    EXPECT_EQ(t[r].local, local[r]);
    const bool here = node_of[r] == 90;
    EXPECT_EQ(t[r].via, here ? Via::shared_memory : Via::network);
    EXPECT_EQ(t[r].endpoint, here ? local[r] : r) << "local index on the node, world rank over the network";
  }
}

TEST(RouteTable, ARankOutsideTheJobIsRefused) {
  const std::vector<std::uint32_t> node_of{0, 0};
  EXPECT_THROW(RouteTable(node_of, 2), std::invalid_argument);
}

}  // namespace
}  // namespace mpf::wireup
