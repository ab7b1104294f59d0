// The collectives whose pieces fit a collective cell (coll/cells.hpp): a
// barrier, and bcast, reduce, allreduce and allgather of at most
// coll_short_limit bytes per rank. A message here is one cache-line
// transfer to one peer, so the algorithms pick the fewest sequential
// messages:
//
//   barrier     dissemination on communicators of up to coll_exchange_max
//               ranks (log2 n rounds, every rank busy in each: one transfer
//               at 2 ranks), otherwise the k-nomial tree up and down (each
//               rank waits twice, which matters when ranks outnumber CPUs
//               and every wait may be a sleep)
//   bcast       the k-nomial tree from the root
//   allreduce   recursive doubling on a power-of-two communicator of up to
//               coll_exchange_max ranks: partners combine lower op higher,
//               so every rank computes the same bits; otherwise reduce, then
//               bcast from rank 0
//   reduce      the k-nomial tree rooted at rank 0, children combined in
//               rank order (the result does not depend on the root), then
//               to the root; rooted at the root for exact operations
//               (integers: any grouping gives the same bits)
//   allgather   every rank posts its block to every other, staggered
//   alltoall    every rank posts each peer its block, staggered, then
//               takes its own (MPI_Alltoall's equal blocks; a v-collective's
//               small pairs go through the cells within alltoallv_task); on
//               more than 8 x coll_exchange_max ranks, Bruck's algorithm
//               when half the blocks fit a cell: log2 n messages per rank
//               instead of n - 1, so log2 n wake-ups instead of n - 1
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/algorithms/steps.hpp"
#include "coll/algorithms/tree.hpp"

namespace mpf::coll {

namespace {

// A reduction's running value, in a cell's worth of bytes: this rank's
// data, combined with what arrives, copied to `recv` at the end.
class Accumulator {
 public:
  Accumulator(const void* send, void* recv, int count, Combine combine)
      : recv_(recv), count_(count), combine_(combine),
        bytes_(static_cast<std::uint32_t>(static_cast<std::size_t>(count) * combine.element_bytes())) {
    std::memcpy(acc_, send, bytes_);
  }
  const std::byte* data() const { return acc_; }
  std::uint32_t bytes() const { return bytes_; }
  void* recv() const { return recv_; }
  // Combines `other` in: acc = other op acc when the other's data comes
  // first (`other_first`), acc op other when this rank's does: canonical
  // order for any operation.
  void add(const std::byte* other, bool other_first) {
    if (other_first || combine_.commutative()) {
      combine_.apply(other, acc_, count_);
    } else {
      std::memcpy(scratch_, other, bytes_);
      combine_.apply(acc_, scratch_, count_);
      std::memcpy(acc_, scratch_, bytes_);
    }
  }
  void copy_out() const { std::memcpy(recv_, acc_, bytes_); }

 private:
  void* recv_;
  int count_;
  Combine combine_;
  std::uint32_t bytes_;
  alignas(16) std::byte acc_[kMaxCellData];
  alignas(16) std::byte scratch_[kMaxCellData];
};

}  // namespace

namespace {

// The barrier's dissemination: in round k, tell rank + 2^k and hear from
// rank - 2^k.
class Dissemination {
 public:
  Dissemination(const Group& c, Key key) : c_(c), key_(key) {
    for (int distance = 1; distance < c.size(); distance *= 2) ++rounds_;
  }
  int count() const { return 2 * rounds_; }
  std::int32_t peer(int i) const { return static_cast<std::int32_t>(partner(i)); }
  bool try_step(int i) {
    const auto round = static_cast<std::uint32_t>(i / 2);
    if (i % 2 == 0) return cells().try_post(partner(i), key_, round, nullptr, 0);
    return cells().try_take_into(partner(i), key_, round, nullptr, 0);
  }
  void finish() {}

 private:
  std::uint32_t partner(int i) const {
    const int n = c_.size(), distance = 1 << (i / 2);
    return c_.world_of(i % 2 == 0 ? (c_.rank + distance) % n : (c_.rank - distance + n) % n);
  }
  const Group& c_;
  Key key_;
  int rounds_ = 0;
};

// The tree barrier, for communicators larger than coll_exchange_max.
Task barrier_tree_task(const Group& c, Key key, int radix) {
  const TreeNode node = knomial_node(c.rank, 0, c.size(), radix);
  // Up: every child has arrived, then tell the parent; down: the release.
  for (int child : node.children) co_await take(c.world_of(child), key, 0, nullptr, 0);
  if (node.parent >= 0) {
    co_await post(c.world_of(node.parent), key, 0, nullptr, 0);
    co_await take(c.world_of(node.parent), key, 1, nullptr, 0);
  }
  for (int child : node.children) co_await post(c.world_of(child), key, 1, nullptr, 0);
}

// Allreduce by recursive doubling: after round k each rank holds the
// result of its block of 2^(k+1) ranks.
class Doubling {
 public:
  Doubling(const Group& c, Key key, const void* send, void* recv, int count, Combine combine)
      : c_(c), key_(key), sum_(send, recv, count, combine) {
    for (int distance = 1; distance < c.size(); distance *= 2) ++rounds_;
  }
  int count() const { return 2 * rounds_; }
  std::int32_t peer(int i) const { return static_cast<std::int32_t>(c_.world_of(partner(i))); }
  bool try_step(int i) {
    const int partner_rank = partner(i);
    const std::uint32_t to = c_.world_of(partner_rank);
    const auto round = static_cast<std::uint32_t>(i / 2);
    if (i % 2 == 0) return cells().try_post(to, key_, round, sum_.data(), sum_.bytes());
    // Partners combine lower op higher, so every rank computes the same bits.
    return cells().try_take(to, key_, round,
                            [&](const std::byte* data, std::uint32_t) { sum_.add(data, partner_rank < c_.rank); });
  }
  void finish() { sum_.copy_out(); }

 private:
  int partner(int i) const { return c_.rank ^ (1 << (i / 2)); }
  const Group& c_;
  Key key_;
  Accumulator sum_;
  int rounds_ = 0;
};

// MPI_Alltoall's blocks through the cells: every rank posts each peer its
// block, staggered (rank + 1 first), then takes its own from each.
class Staggered {
 public:
  Staggered(const Group& c, Key key, const void* send, void* recv, std::uint32_t bytes)
      : c_(c), key_(key), in_(static_cast<const std::byte*>(send)), out_(static_cast<std::byte*>(recv)), bytes_(bytes) {
    std::memcpy(out_ + at(c.rank), in_ + at(c.rank), bytes);
  }
  int count() const { return 2 * (c_.size() - 1); }
  std::int32_t peer(int i) const { return static_cast<std::int32_t>(c_.world_of(partner(i))); }
  bool try_step(int i) {
    const int other = partner(i);
    if (i < c_.size() - 1) return cells().try_post(c_.world_of(other), key_, 0, in_ + at(other), bytes_);
    return cells().try_take_into(c_.world_of(other), key_, 0, out_ + at(other), bytes_);
  }
  void finish() {}

 private:
  // Posts to rank + 1, + 2, ...; then takes from rank - 1, - 2, ...
  int partner(int i) const {
    const int n = c_.size();
    return i < n - 1 ? (c_.rank + i + 1) % n : (c_.rank - (i - n + 2) + n) % n;
  }
  std::size_t at(int rank) const { return static_cast<std::size_t>(rank) * bytes_; }
  const Group& c_;
  Key key_;
  const std::byte* in_;
  std::byte* out_;
  std::uint32_t bytes_;
};

// Bcast down the k-nomial tree from the root (tree.hpp): take from the
// parent, then post to each child.
class TreeBcast {
 public:
  TreeBcast(const Group& c, Key key, void* buffer, std::uint32_t bytes, int root, int radix)
      : c_(c), key_(key), buffer_(buffer), bytes_(bytes), node_(c.rank, root, c.size(), radix) {}
  int count() const { return (node_.parent() >= 0 ? 1 : 0) + node_.children(); }
  std::int32_t peer(int i) const { return static_cast<std::int32_t>(c_.world_of(target(i))); }
  bool try_step(int i) {
    const std::uint32_t other = c_.world_of(target(i));
    if (node_.parent() >= 0 && i == 0) return cells().try_take_into(other, key_, 0, buffer_, bytes_);
    return cells().try_post(other, key_, 0, buffer_, bytes_);
  }
  void finish() {}

 private:
  int target(int i) const {
    if (node_.parent() < 0) return node_.child(i);
    return i == 0 ? node_.parent() : node_.child(i - 1);
  }
  const Group& c_;
  Key key_;
  void* buffer_;
  std::uint32_t bytes_;
  Knomial node_;
};

}  // namespace

Task barrier_task(const Group& c, Key key) {
  if (c.size() == 1) return {};
  const Choice choice = c.plan.choose(Operation::barrier, 0);
  switch (choice.algorithm) {
    case Algorithm::board: return barrier_board_task(c, key);
    case Algorithm::dissemination: return steps_task<Dissemination>(c, key);
    case Algorithm::tree: return barrier_tree_task(c, key, static_cast<int>(choice.parameters().radix));
    case Algorithm::messages: return barrier_messages_task(c, key);
    case Algorithm::hierarchical: return barrier_hierarchical_task(c, key);
    default: break;
  }
  unplanned(Operation::barrier, choice.algorithm);
}

bool barrier_by_steps(const Group& c, Key key, const char* call) {
  // The steps of barrier_task's choices that have them.
  if (c.size() == 1) return false;
  const Algorithm algorithm = c.plan.choose(Operation::barrier, 0).algorithm;
  if (algorithm == Algorithm::board) return barrier_board_by_steps(c, key, call);
  if (algorithm != Algorithm::dissemination) return false;
  Dissemination steps(c, key);
  run_steps(steps, c, call, -1);
  return true;
}

Task bcast_cells_task(const Group& c, Key key, void* buffer, std::uint32_t bytes, int root,
                      int radix) {
  return steps_task<TreeBcast>(c, key, buffer, bytes, root, radix);
}

bool bcast_by_steps(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root,
                    const char* call) {
  // The steps of bcast_task's choices that have them: on the board, one
  // entry; the tree of cells.
  if (c.size() == 1 || bytes == 0) return false;
  const Choice choice = c.plan.choose(Operation::bcast, bytes);
  if (choice.algorithm == Algorithm::board) return bcast_board_by_steps(c, key, buffer, bytes, root, call);
  if (choice.algorithm != Algorithm::cells) return false;
  TreeBcast steps(c, key, buffer, static_cast<std::uint32_t>(bytes), root, static_cast<int>(choice.parameters().radix));
  run_steps(steps, c, call, root);
  return true;
}

namespace {

// Reduce and the other allreduces: up the tree, children combined in rank
// order; then down the same tree, or to the root. The tree is rooted at
// rank 0, so the result does not depend on the root, unless the operation
// is exact (Combine::exact): then at the root itself, which saves the last
// hop. Steps: take and combine each child's; post to the parent; then
// (allreduce) take the result from the parent and post it to each child,
// or (reduce) the top's result to the root.
class TreeReduce {
 public:
  TreeReduce(const Group& c, Key key, const void* send, void* recv, int count, Combine combine, int root, int radix)
      : c_(c), key_(key), root_(root), top_(root >= 0 && combine.exact() ? root : 0),
        node_(c.rank, top_, c.size(), radix), sum_(send, recv, count, combine) {}
  int count() const {
    const int up = node_.children() + (node_.parent() >= 0 ? 1 : 0);
    if (root_ < 0) return up + 1 + node_.children();
    return up + (c_.rank == top_ || c_.rank == root_ ? 1 : 0);
  }
  std::int32_t peer(int i) const {
    const Step s = step(i);
    return s.peer < 0 ? -1 : static_cast<std::int32_t>(c_.world_of(s.peer));
  }
  bool try_step(int i) {
    const Step s = step(i);
    const std::uint32_t other = s.peer < 0 ? 0 : c_.world_of(s.peer);
    switch (s.what) {
      case Step::combine_child:
        return cells().try_take(other, key_, 0, [&](const std::byte* data, std::uint32_t) { sum_.add(data, false); });
      case Step::post_up: return cells().try_post(other, key_, 0, sum_.data(), sum_.bytes());
      case Step::keep_result: sum_.copy_out(); return true;
      case Step::post_result:
        return cells().try_post(other, key_, 1, s.from_acc ? sum_.data() : sum_.recv(), sum_.bytes());
      case Step::take_result: return cells().try_take_into(other, key_, 1, sum_.recv(), sum_.bytes());
    }
    return false;
  }
  void finish() {}

 private:
  // Step i: what it does, with which comm rank (-1: none).
  struct Step {
    enum What { combine_child, post_up, keep_result, post_result, take_result } what;
    int peer;
    bool from_acc = false;  // post_result: the combined data, not the received result
  };
  Step step(int i) const {
    const int children = node_.children(), parent = node_.parent();
    if (i < children) return {Step::combine_child, node_.child(i)};  // children in rank order
    i -= children;
    if (parent >= 0 && i-- == 0) return {Step::post_up, parent};
    if (root_ < 0) {  // down: the top's result through the same tree
      if (i == 0) return parent >= 0 ? Step{Step::take_result, parent} : Step{Step::keep_result, -1};
      return {Step::post_result, node_.child(i - 1)};
    }
    if (c_.rank != top_) return {Step::take_result, top_};  // the root
    return top_ == root_ ? Step{Step::keep_result, -1} : Step{Step::post_result, root_, true};
  }
  const Group& c_;
  Key key_;
  int root_, top_;
  Knomial node_;
  Accumulator sum_;
};

}  // namespace

Task reduce_cells_task(const Group& c, Key key, const void* send, void* recv, int count,
                       Combine combine, int root, int radix) {
  return steps_task<TreeReduce>(c, key, send, recv, count, combine, root, radix);
}

Task allreduce_doubling_task(const Group& c, Key key, const void* send, void* recv, int count,
                             Combine combine) {
  return steps_task<Doubling>(c, key, send, recv, count, combine);
}

bool reduce_by_steps(const Group& c, Key key, const void* send, void* recv, int count,
                     Combine combine, int root, const char* call) {
  // The steps of reduce_task's choices that have them: on the board, one
  // row; over the cells.
  if (c.size() == 1 || count == 0) return false;
  const Choice choice = reduce_choice(c, count, combine, root);
  switch (choice.algorithm) {
    case Algorithm::board: return reduce_board_by_steps(c, key, send, recv, count, combine, root, call);
    case Algorithm::doubling: {
      Doubling steps(c, key, send, recv, count, combine);
      run_steps(steps, c, call, -1);
      return true;
    }
    case Algorithm::cells: {
      TreeReduce steps(c, key, send, recv, count, combine, root, static_cast<int>(choice.parameters().radix));
      run_steps(steps, c, call, root);
      return true;
    }
    default: return false;
  }
}

Task allgatherv_cells_task(const Group& c, Key key, const void* send, void* recv,
                           std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs) {
  const int n = c.size();
  const auto me = static_cast<std::size_t>(c.rank);
  auto* out = static_cast<std::byte*>(recv);
  if (send != out + displs[me] && bytes[me] > 0) std::memmove(out + displs[me], send, bytes[me]);
  for (int k = 1; k < n; ++k) {
    co_await post(c.world_of((c.rank + k) % n), key, 0, out + displs[me], static_cast<std::uint32_t>(bytes[me]));
  }
  for (int k = 1; k < n; ++k) {
    const auto from = static_cast<std::size_t>((c.rank - k + n) % n);
    co_await take(c.world_of(static_cast<int>(from)), key, 0, out + displs[from],
                  static_cast<std::uint32_t>(bytes[from]));
  }
}

Task alltoall_cells_task(const Group& c, Key key, const void* send, void* recv,
                         std::uint32_t bytes) {
  return steps_task<Staggered>(c, key, send, recv, bytes);
}

bool alltoall_by_steps(const Group& c, Key key, const void* send, void* recv, std::uint64_t bytes,
                       const char* call) {
  // alltoall_task's choice of the cells, as steps where every rank has a
  // CPU for the exchange.
  if (c.size() == 1 || !c.plan.exchanges_fit()) return false;
  if (c.plan.choose(Operation::alltoall, bytes).algorithm != Algorithm::cells) return false;
  Staggered steps(c, key, send, recv, static_cast<std::uint32_t>(bytes));
  run_steps(steps, c, call, -1);
  return true;
}

Task alltoall_bruck_task(const Group& c, Key key, const void* send, void* recv,
                         std::uint32_t bytes) {
  if (bytes == 0) co_return;  // nothing to move, on every rank alike (the blocks are equal)
  const int n = c.size();
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  const auto at = [bytes](int i) { return static_cast<std::size_t>(i) * bytes; };
  // tmp[i]: the block on its way to rank + i; after the rounds, the block
  // that came from rank - i.
  std::vector<std::byte> tmp(at(n)), message(at((n + 1) / 2));
  for (int i = 0; i < n; ++i) std::memcpy(tmp.data() + at(i), in + at((c.rank + i) % n), bytes);
  std::uint32_t step = 0;
  for (int k = 1; k < n; k *= 2, ++step) {
    // Round k: the blocks whose index has bit k go to rank + k.
    std::size_t m = 0;
    for (int i = k; i < n; ++i) {
      if ((i & k) != 0) std::memcpy(message.data() + at(static_cast<int>(m++)), tmp.data() + at(i), bytes);
    }
    const auto length = static_cast<std::uint32_t>(m * bytes);
    co_await post(c.world_of((c.rank + k) % n), key, step, message.data(), length);
    co_await take(c.world_of((c.rank - k + n) % n), key, step, message.data(), length);
    m = 0;
    for (int i = k; i < n; ++i) {
      if ((i & k) != 0) std::memcpy(tmp.data() + at(i), message.data() + at(static_cast<int>(m++)), bytes);
    }
  }
  for (int i = 0; i < n; ++i) std::memcpy(out + at((c.rank - i + n) % n), tmp.data() + at(i), bytes);
}

}  // namespace mpf::coll
