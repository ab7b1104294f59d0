// K-nomial trees over a communicator's ranks (seed 002 §3.3: unbalanced
// trees, so that the root is busy from the first step and the last rank is
// reached in log_k(n) steps). Ranks are relative to the root: v = (rank -
// root) mod n. In radix k, v's parent clears v's lowest non-zero base-k
// digit; its children add d * k^p (d = 1..k-1) for every digit position p
// below that one. A subtree is a contiguous range of relative ranks
// [v, v + k^m), and children come in increasing rank order, which is what
// lets a reduction rooted at rank 0 combine in canonical order.
#pragma once

#include <cstdint>
#include <vector>

namespace mpf::mpi::coll {

struct TreeNode {
  int parent = -1;          // comm rank, -1 at the root
  std::vector<int> children;  // comm ranks, in increasing relative rank
};

inline TreeNode knomial_node(int rank, int root, int size, int radix) {
  TreeNode node;
  const int v = (rank - root + size) % size;
  // The weight of v's lowest non-zero digit (size or more for the root).
  long weight = 1;
  while (weight < size && (v / weight) % radix == 0) weight *= radix;
  if (v != 0) node.parent = static_cast<int>((v - (v / weight) % radix * weight + root) % size);
  for (long w = 1; w < weight && w < size; w *= radix) {
    for (int d = 1; d < radix; ++d) {
      const long child = v + d * w;
      if (child >= size) break;
      node.children.push_back(static_cast<int>((child + root) % size));
    }
  }
  return node;
}

}  // namespace mpf::mpi::coll
