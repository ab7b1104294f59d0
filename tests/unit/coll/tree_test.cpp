// The k-nomial trees of the collectives (lib/coll/algorithms/tree.hpp): every
// rank but the root has one parent, which lists it among its children, in
// increasing rank relative to the root; and the tree is log_radix(n) deep.
#include "coll/algorithms/tree.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace mpf::coll {
namespace {

int depth_of(int rank, int root, int size, int radix) {
  int depth = 0;
  for (int r = rank; r != root; r = Knomial(r, root, size, radix).parent()) ++depth;
  return depth;
}

TEST(Knomial, ParentsAndChildrenAgreeAndCoverEveryRankOnce) {
  for (int size : {1, 2, 3, 7, 8, 16, 17, 64}) {
    for (int radix : {2, 3, 4, 8, 100}) {
      for (int root : {0, 1 % size, size - 1}) {
        std::vector<int> parent_of(static_cast<std::size_t>(size), -2);
        for (int rank = 0; rank < size; ++rank) {
          const Knomial node(rank, root, size, radix);
          int previous = -1;
          for (int i = 0; i < node.children(); ++i) {
            const int child = node.child(i);
            ASSERT_TRUE(child >= 0 && child < size);
            EXPECT_EQ(parent_of[static_cast<std::size_t>(child)], -2) << "rank " << child << " has two parents";
            parent_of[static_cast<std::size_t>(child)] = rank;
            const int relative = (child - root + size) % size;
            EXPECT_GT(relative, previous) << "children out of order";
            previous = relative;
            EXPECT_EQ(Knomial(child, root, size, radix).parent(), rank);
          }
          const TreeNode same = knomial_node(rank, root, size, radix);
          EXPECT_EQ(same.parent, node.parent());
          EXPECT_EQ(static_cast<int>(same.children.size()), node.children());
        }
        for (int rank = 0; rank < size; ++rank) {
          EXPECT_EQ(parent_of[static_cast<std::size_t>(rank)] == -2, rank == root)
              << "size " << size << " radix " << radix << " root " << root << " rank " << rank;
        }
      }
    }
  }
}

TEST(Knomial, DepthIsTheNumberOfBaseRadixDigits) {
  EXPECT_EQ(depth_of(15, 0, 16, 2), 4);   // 1111: four digits to clear
  EXPECT_EQ(depth_of(8, 0, 16, 2), 1);    // 1000: a child of the root
  EXPECT_EQ(depth_of(0, 1, 16, 2), 4);    // relative rank 15
  EXPECT_EQ(depth_of(63, 0, 64, 4), 3);   // 333 in base 4
  EXPECT_EQ(depth_of(5, 0, 8, 100), 1);   // flat
}

}  // namespace
}  // namespace mpf::coll
