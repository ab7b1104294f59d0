#include "coll/board.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <sched.h>

#include "common/streaming_copy.hpp"

namespace mpf::coll {

void Board::init(shm::Transport& transport, bool in_use) {
  // The board is MPI_COMM_WORLD's when all of it is on this node: then a
  // world rank is also its row's index.
  in_use_ = in_use && transport.local_size() == transport.size();
  transport_ = &transport;
  layout_ = BoardLayout(transport.segment().region(BoardLayout::kName, BoardLayout::kVersion), transport.local_size());
  segment_ = &transport.segment();
  header_ = &layout_.board();
  me_ = transport.rank();
  nranks_ = transport.size();
  stage_capacity_ = layout_.stage_bytes();
  entry_count_ = board_entries(nranks_);
  // The next ncpus - 1 roots yield, and each root wakes the rank ncpus on:
  // about one yielding rank per CPU (more measured slower), and the rank
  // woken is on the root's CPU when they are bound round-robin.
  turn_window_ = transport.ncpus() - 1;
}

void Board::write_key(BoardStamp& stamp, Key key) {
  stamp.context = key.context;
  stamp.seq = key.seq;
  stamp.kind = key.kind;
  stamp.root = key.root;
}

bool Board::has_key(const BoardStamp& stamp, Key key) {
  return stamp.context == key.context && stamp.seq == key.seq && stamp.kind == key.kind && stamp.root == key.root;
}

void Board::wake_all(bool deferred) {
  // After our seq_cst store of what they wait for: a rank counted in later
  // looks again before it sleeps.
  if (deferred) transport_->wake_deferred();
  if (std::atomic_ref<std::uint32_t>(transport_->node().waiting().sleepers).load(std::memory_order_seq_cst) == 0) return;
  const shm::Segment& segment = *segment_;
  for (std::uint32_t r = 0; r < nranks_; ++r) {
    const std::uint32_t why = segment.rank(r).sleeping.load(std::memory_order_seq_cst);
    if (r != me_ && why != 0 && why != shm::kSleepsDeferred) transport_->wake_later(r);
  }
}

bool Board::arrive(std::uint64_t call, Key key) {
  BoardStamp& mine = row_stamp(call, me_);
  write_key(mine, key);
  // Release: our row is written; acquire: so is every earlier arrival's
  // (the arrivals form one chain of read-modify-writes).
  const std::uint64_t arrived = header_->arrived.fetch_add(1, std::memory_order_acq_rel) + 1;
  return arrived == call * nranks_;
}

Key Board::key_of(std::uint64_t call, std::uint32_t rank) const {
  const BoardStamp& s = row_stamp(call, rank);
  return {s.context, s.seq, s.kind, s.root};
}

std::int32_t Board::mismatch(std::uint64_t call) const {
  const Key first = key_of(call, 0);
  for (std::uint32_t r = 1; r < nranks_; ++r) {
    if (!has_key(row_stamp(call, r), first)) return static_cast<std::int32_t>(r);
  }
  return -1;
}

void Board::release(std::uint64_t call) {
  // seq_cst: ordered before the sleeping flags the wakes read.
  header_->released.store(call, std::memory_order_seq_cst);
  wake_all(true);
}

bool Board::try_publish(std::uint64_t number, Key key, const void* data, std::uint32_t bytes, bool rotating) {
  return publish(layout_.entry(static_cast<std::uint32_t>(number % entry_count_)), number, key, data,
                 bytes, nranks_ - 1, rotating);
}

bool Board::try_publish_stage(std::uint64_t number, Key key, const void* data, std::uint32_t bytes,
                              std::uint32_t readers) {
  return publish(layout_.stage(), number, key, data, bytes, readers, false);
}

bool Board::publish(BoardStamp& entry, std::uint64_t number, Key key, const void* data, std::uint32_t bytes,
                    std::uint32_t readers, bool rotating) {
  if (entry.remaining.load(std::memory_order_acquire) != 0) {
    // Dekker with the last reader's count-down: we store `waiter` and then
    // look again, it counts down and then reads `waiter`.
    entry.waiter.store(me_ + 1, std::memory_order_seq_cst);
    if (entry.remaining.load(std::memory_order_seq_cst) != 0) {
      transport_->flush_wakes();  // readers we woke may still be asleep
      return false;
    }
  }
  entry.waiter.store(0, std::memory_order_relaxed);
  write_key(entry, key);
  entry.bytes = bytes;
  if (bytes > 0 && data != nullptr) std::memcpy(data_of(entry), data, bytes);
  entry.remaining.store(readers, std::memory_order_relaxed);
  entry.stamp.store(number, std::memory_order_seq_cst);
  if (rotating && nranks_ > turn_window_ + 1) {
    // The rank whose turn comes near now (far until this call).
    transport_->wake_later((me_ + turn_window_ + 1) % nranks_);
  }
  wake_all(!rotating);
  return true;
}

Board::Read Board::try_read(std::uint64_t number, Key key, void* out, std::uint32_t bytes, Key* other) {
  return read(layout_.entry(static_cast<std::uint32_t>(number % entry_count_)), number, key, out,
              bytes, other, false);
}

Board::Read Board::try_read_stage(std::uint64_t number, Key key, void* out, std::uint32_t bytes, Key* other,
                                  bool stream) {
  return read(layout_.stage(), number, key, out, bytes, other, stream);
}

Board::Read Board::read(BoardStamp& entry, std::uint64_t number, Key key, void* out, std::uint32_t bytes,
                        Key* other, bool stream) {
  if (entry.stamp.load(std::memory_order_acquire) != number) {
    transport_->flush_wakes();  // after the load: the two overlap
    return Read::not_yet;
  }
  if (!has_key(entry, key)) {
    *other = {entry.context, entry.seq, entry.kind, entry.root};
    return Read::mismatch;
  }
  const std::uint32_t got = std::min(bytes, entry.bytes);
  common::copy_out(out, data_of(entry), got, stream);
  if (entry.remaining.fetch_sub(1, std::memory_order_seq_cst) == 1) {
    const std::uint32_t waiter = entry.waiter.load(std::memory_order_seq_cst);
    if (waiter != 0) transport_->wake_later(waiter - 1);
  }
  return Read::taken;
}

std::int64_t Board::try_hold_piece(std::uint64_t use, std::uint32_t piece, bool in_order) {
  std::atomic<std::uint64_t>& state = layout_.sum(static_cast<std::uint32_t>(use % 2))[piece].state;
  const auto mine = static_cast<std::uint32_t>(use);
  std::uint64_t now = state.load(std::memory_order_relaxed);
  const bool this_use = static_cast<std::uint32_t>(now >> 32) == mine;
  if (this_use && (now & 1) != 0) return -1;
  const std::uint32_t added = this_use ? static_cast<std::uint32_t>(now) >> 1 : 0;
  if (in_order && added != me_) return -1;
  // Acquire: the data of the ranks that added before us.
  if (!state.compare_exchange_strong(now, (std::uint64_t{mine} << 32) | (std::uint64_t{added} << 1) | 1,
                                     std::memory_order_acquire, std::memory_order_relaxed)) {
    return -1;
  }
  return added;
}

void Board::add_and_give_back(std::uint64_t use, std::uint32_t piece, std::uint32_t added_before, bool in_order) {
  std::atomic<std::uint64_t>& state = layout_.sum(static_cast<std::uint32_t>(use % 2))[piece].state;
  const std::uint64_t given = (std::uint64_t{static_cast<std::uint32_t>(use)} << 32) | (std::uint64_t{added_before + 1} << 1);
  if (!in_order) {
    // Release: our addition, for the next rank to hold the piece.
    state.store(given, std::memory_order_release);
    return;
  }
  // In order the next rank may sleep until its turn. seq_cst: Dekker with
  // its sleeping flag, which it sets before it looks at the pieces again.
  state.store(given, std::memory_order_seq_cst);
  const std::uint32_t next = me_ + 1;
  if (next < nranks_ && transport_->asleep(next)) transport_->wake_later(next);
}

void Board::yield_to_holder() { ::sched_yield(); }

}  // namespace mpf::coll
