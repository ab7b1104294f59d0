// Flat collectives over the board (BoardHeader): one shared area for
// all ranks of the job's world, used when they outnumber the CPUs. There a
// tree or an exchange costs a wake-up per level or round, and every wake-up
// of a sleeping rank is a context switch (tens of microseconds when it has
// to wake an idle virtual CPU). On the board every rank waits once per
// call: it writes its row and counts itself in; the last to arrive finishes
// the call and releases everyone (rows), or the root writes a broadcast
// entry that the others copy out in their own time (entries), so a root
// runs up to board_entries() broadcasts ahead and a rank that gets
// the CPU takes every entry that is there. Data that would take many
// entries (a large Bcast, a large Allreduce's result) goes through the
// stage instead, one large entry, so that it is written once and each rank
// copies it out once.
//
// Calls and entries are numbered in the order ranks run them: every rank
// runs the same collectives on the world in the same order, one at a time,
// so the numbers a collective takes when it starts (reserve_rows,
// reserve_entries) are the same on every rank. Each row and entry carries
// the collective's key; the last to arrive checks that all rows carry one
// key (mismatch()), and a reader checks an entry's, so ranks that disagree
// on the call are named instead of mixing their data.
//
// Waits go through the progress engine like the cells'; a release or a
// published entry wakes the sleeping ranks, the last reader of an entry
// wakes a root waiting for it (deferred wakes, Transport::wake_later).
//
// Turns. When Bcasts of one entry come with a root one rank on from the
// last at every call (a loop over roots, as in LU factorization, or a
// benchmark's), each call waits for the one before it: root r + 1 can only
// write its entry once it has read root r's. With every waiting rank
// yielding, a CPU runs its waiting ranks in the scheduler's order until it
// reaches root r + 1, and a turn costs a round of the CPU's waiting
// ranks, growing with the rank count. So once the roots
// have moved on this way for kRotatingCalls calls, a rank whose turn as
// root is more than ncpus - 1 calls off sleeps (Turn::far) instead, and
// each root wakes the rank ncpus ranks on, whose turn has come near: about
// one rank per CPU yields. With ranks bound round-robin over the CPUs
// (mpfrun's default then) the rank woken shares the root's CPU, which
// costs a context switch and no idle CPU's wake-up. More ranks yielding,
// waking ranks on the other CPU, or no rank yielding (every turn then
// wakes an idle virtual CPU) all measured slower.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "coll/channel.hpp"
#include "progress/engine.hpp"
#include "coll/board_layout.hpp"
#include "shm/transport.hpp"

namespace mpf::coll {

class Board {
 public:
  // `in_use`: the API runs its world's collectives here (a job-wide choice).
  void init(shm::Transport& transport, bool in_use);
  bool in_use() const { return in_use_; }

  // Data bytes of one row or entry.
  static constexpr std::uint32_t capacity() { return kBoardDataBytes; }

  // The numbers of `count` consecutive row calls or entries, taken when a
  // collective starts to run (in call order on every rank); returns the
  // first.
  std::uint64_t reserve_rows(std::uint32_t count) { return std::exchange(rows_, rows_ + count); }
  std::uint64_t reserve_entries(std::uint32_t count) {
    last_root_ = kNoRoot;
    return std::exchange(entries_, entries_ + count);
  }
  // The number of a Bcast's only entry, whose root is world rank `root`,
  // and whether it continues a run of rotating roots (the turns above):
  // the root one rank on from the last call's at each of the last
  // kRotatingCalls calls. Every rank runs the same calls in the same order,
  // so all agree on it.
  std::uint64_t reserve_entry(std::uint32_t root, bool& rotating) {
    rotating_calls_ = last_root_ != kNoRoot && root == (last_root_ + 1) % nranks_ ? rotating_calls_ + 1 : 0;
    last_root_ = root;
    rotating = rotating_calls_ >= kRotatingCalls;
    return entries_++;
  }
  // How this rank waits for a rotating entry of root `root`: near when its
  // own turn is at most turn_window_ calls after that one.
  progress::Turn turn(std::uint32_t root) const {
    return (me_ + nranks_ - root) % nranks_ <= turn_window_ ? progress::Turn::near : progress::Turn::far;
  }

  // Row calls. This rank's row of call `call` (or rank `rank`'s, to read
  // after the release), and the call's result row (written by the last to
  // arrive).
  std::byte* row(std::uint64_t call, std::uint32_t rank) const { return data_of(row_stamp(call, rank)); }
  std::byte* result(std::uint64_t call) const { return data_of(row_stamp(call, nranks_)); }
  // Records `key` in this rank's row and counts this rank in: true when it
  // is the last to arrive, which must then finish the call and release().
  bool arrive(std::uint64_t call, Key key);
  // The first rank whose row of `call` carries another key than rank 0's,
  // or -1 (for the last to arrive; the rows' keys are for messages).
  std::int32_t mismatch(std::uint64_t call) const;
  Key key_of(std::uint64_t call, std::uint32_t rank) const;
  void release(std::uint64_t call);
  bool released(std::uint64_t call) const { return header_->released.load(std::memory_order_acquire) >= call; }

  // Broadcast entries. Writes `bytes` (<= capacity()) at `data` as entry
  // `number` of collective `key` for every other rank, and wakes them;
  // false, writing nothing, while the entry's previous use has readers.
  // A rotating entry wakes only the rank whose turn comes near, and
  // sleepers that are not far.
  bool try_publish(std::uint64_t number, Key key, const void* data, std::uint32_t bytes, bool rotating);
  // Copies entry `number` to `out` (at most `bytes`) and counts this rank
  // done with it: taken; or not_yet; or mismatch when it holds another
  // collective (its key in *other; nothing is taken).
  enum class Read { not_yet, taken, mismatch };
  Read try_read(std::uint64_t number, Key key, void* out, std::uint32_t bytes, Key* other);

  // The stage: one entry of stage_capacity() bytes (the coll_board_stage
  // tunable; 0: none), for data that would take many entries. Its uses are
  // numbered like entries (reserve_stage, in call order on every rank).
  std::uint32_t stage_capacity() const { return stage_capacity_; }
  std::uint64_t reserve_stage(std::uint32_t count) { return std::exchange(stage_uses_, stage_uses_ + count); }
  // As try_publish, for `readers` ranks (the others, or the ranks that copy
  // out a reduction's result, this one included). `data` null: the data is
  // already there (written at stage_data() by a reduction's pieces, which
  // may only do so while every rank is inside the call, so that no rank
  // still reads the stage's previous use).
  bool try_publish_stage(std::uint64_t number, Key key, const void* data, std::uint32_t bytes,
                         std::uint32_t readers);
  // As try_read, for the stage; `stream`: copying out with streaming
  // stores (common/streaming_copy.hpp), for destinations that will not
  // stay in the cache.
  Read try_read_stage(std::uint64_t number, Key key, void* out, std::uint32_t bytes, Key* other, bool stream);
  std::byte* stage_data() const { return data_of(layout_.stage()); }

  // The sums: two vectors of stage_capacity() bytes, used in turn (sum
  // `use` is number use % 2) and numbered like entries (reserve_sums, in
  // call order on every rank). A use must be a row call that every rank
  // arrives at after adding its input and leaves after the release, and
  // whose readers copy the sum out before they leave: then a rank that
  // starts use u + 1 knows that every rank has left use u - 1, and the
  // sum it takes is free.
  std::uint64_t reserve_sums(std::uint32_t count) { return std::exchange(sum_uses_, sum_uses_ + count); }
  std::byte* sum_data(std::uint64_t use) const { return layout_.sum_data(static_cast<std::uint32_t>(use % 2)); }
  // Adds this rank's contribution to each of the `pieces` pieces of sum
  // `use`, taking each when no other rank holds it: add(piece, first)
  // combines this rank's input into piece `piece` of sum_data(use), or
  // copies it there when `first` (no rank has added to it yet in this
  // use). Returns when every piece has this rank's contribution. A rank
  // that finds every piece it still needs held yields the CPU to the
  // holders; `pieces` is at most sum_pieces(stage_capacity()).
  template <class Add>
  void add_to_sum(std::uint64_t use, std::uint32_t pieces, Add add);
  // The same in rank order, for operations whose result depends on it: a
  // piece takes this rank's input once the ranks below it have added
  // theirs (rank 0 copies). start_sum() first, then add_to_sum_in_order()
  // as a wait's condition: it adds to every piece whose turn has come and
  // says whether all have this rank's input. A rank that has added to a
  // piece wakes the next rank, if it sleeps.
  void start_sum(std::uint32_t pieces) {
    added_.assign(pieces, false);
    left_ = pieces;
  }
  template <class Add>
  bool add_to_sum_in_order(std::uint64_t use, Add add);

 private:
  BoardStamp& row_stamp(std::uint64_t call, std::uint32_t rank) const {
    return layout_.row(static_cast<std::uint32_t>(call % 2), rank);
  }
  static std::byte* data_of(BoardStamp& stamp) { return reinterpret_cast<std::byte*>(&stamp + 1); }
  static void write_key(BoardStamp& stamp, Key key);
  static bool has_key(const BoardStamp& stamp, Key key);
  // Wakes every other rank that sleeps, at the next flush (with
  // `deferred`, far turns too).
  void wake_all(bool deferred);
  // try_publish and try_read on an entry or the stage.
  bool publish(BoardStamp& entry, std::uint64_t number, Key key, const void* data, std::uint32_t bytes,
               std::uint32_t readers, bool rotating);
  Read read(BoardStamp& entry, std::uint64_t number, Key key, void* out, std::uint32_t bytes, Key* other,
            bool stream);
  // Takes piece `piece` of sum `use` for this rank: how many ranks added
  // to it before, or -1 while another holds it (in order: also until
  // exactly `me_` ranks have added); then gives it back with this rank's
  // addition counted (in order: and wakes the next rank if it sleeps).
  std::int64_t try_hold_piece(std::uint64_t use, std::uint32_t piece, bool in_order);
  void add_and_give_back(std::uint64_t use, std::uint32_t piece, std::uint32_t added_before, bool in_order);
  // One pass over the pieces this rank has not added to: true when none is left.
  template <class Add>
  bool add_pass(std::uint64_t use, bool in_order, Add& add);
  // Yields the CPU to the rank holding a piece this one waits for.
  static void yield_to_holder();

  shm::Transport* transport_ = nullptr;
  BoardLayout layout_;
  const shm::Segment* segment_ = nullptr;
  BoardHeader* header_ = nullptr;
  std::uint32_t me_ = 0;
  std::uint32_t nranks_ = 0;
  bool in_use_ = false;
  std::uint64_t rows_ = 1;     // the next row call's number
  std::uint64_t entries_ = 1;  // the next entry's number
  std::uint64_t stage_uses_ = 1;  // the next use of the stage
  std::uint64_t sum_uses_ = 1;    // the next use of a sum
  std::vector<bool> added_;       // add_to_sum: the pieces that have this rank's input
  std::uint32_t left_ = 0;        // and how many do not yet
  std::uint32_t stage_capacity_ = 0;
  std::uint32_t entry_count_ = 0;  // board_entries(nranks_)
  // Turns: the last one-entry Bcast's root, how many calls in a row had
  // the root one rank on, and how far off a near turn may be (ncpus - 1).
  static constexpr std::uint32_t kNoRoot = ~0U;
  static constexpr std::uint32_t kRotatingCalls = 2;
  std::uint32_t last_root_ = kNoRoot;
  std::uint32_t rotating_calls_ = 0;
  std::uint32_t turn_window_ = 0;
};

template <class Add>
bool Board::add_pass(std::uint64_t use, bool in_order, Add& add) {
  const auto pieces = static_cast<std::uint32_t>(added_.size());
  // Ranks start a piece apart in proportion to their rank, so that two with
  // a CPU each seldom reach for the same piece (in order, they follow one
  // another from the first piece).
  const auto start = in_order ? 0 : static_cast<std::uint32_t>(std::uint64_t{pieces} * me_ / nranks_);
  for (std::uint32_t i = 0; i < pieces && left_ > 0; ++i) {
    const std::uint32_t p = (start + i) % pieces;
    if (added_[p]) continue;
    const std::int64_t before = try_hold_piece(use, p, in_order);
    if (before < 0) continue;
    add(p, before == 0);
    add_and_give_back(use, p, static_cast<std::uint32_t>(before), in_order);
    added_[p] = true;
    --left_;
  }
  return left_ == 0;
}

template <class Add>
void Board::add_to_sum(std::uint64_t use, std::uint32_t pieces, Add add) {
  start_sum(pieces);
  for (std::uint32_t before = left_; !add_pass(use, false, add); before = left_) {
    if (left_ == before) yield_to_holder();
  }
}

template <class Add>
bool Board::add_to_sum_in_order(std::uint64_t use, Add add) {
  return add_pass(use, true, add);
}

}  // namespace mpf::coll
