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

namespace mpf::coll {

// One rank's place in the tree, found without allocating: the parent, and
// the children by index (in increasing relative rank).
class Knomial {
 public:
  Knomial(int rank, int root, int size, int radix) : root_(root), size_(size), radix_(radix) {
    relative_ = (rank - root + size) % size;
    // The weight of v's lowest non-zero digit (size or more for the root).
    while (weight_ < size && (relative_ / weight_) % radix == 0) weight_ *= radix;
    if (relative_ != 0) parent_ = absolute(relative_ - (relative_ / weight_) % radix * weight_);
    children_ = find_child(-1);
  }
  int parent() const { return parent_; }  // comm rank, -1 at the root
  int children() const { return children_; }
  int child(int index) const { return find_child(index); }  // comm rank

 private:
  int absolute(long relative) const { return static_cast<int>((relative + root_) % size_); }
  // Child `index`, or with index -1 how many there are.
  int find_child(int index) const {
    int found = 0;
    for (long w = 1; w < weight_ && w < size_; w *= radix_) {
      for (long d = 1; d < radix_; ++d) {
        const long relative = relative_ + d * w;
        if (relative >= size_) break;
        if (found++ == index) return absolute(relative);
      }
    }
    return found;
  }
  long root_, size_, radix_;
  long relative_ = 0;
  long weight_ = 1;
  int parent_ = -1;
  int children_ = 0;
};

struct TreeNode {
  int parent = -1;          // comm rank, -1 at the root
  std::vector<int> children;  // comm ranks, in increasing relative rank
};

inline TreeNode knomial_node(int rank, int root, int size, int radix) {
  const Knomial k(rank, root, size, radix);
  TreeNode node;
  node.parent = k.parent();
  node.children.reserve(static_cast<std::size_t>(k.children()));
  for (int i = 0; i < k.children(); ++i) node.children.push_back(k.child(i));
  return node;
}

}  // namespace mpf::coll
