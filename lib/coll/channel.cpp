#include "coll/channel.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace mpf::coll {

void Channel::init(shm::Transport& transport) {
  transport_ = &transport;
  layout_ = SlotsLayout(transport.segment().region(SlotsLayout::kName, SlotsLayout::kVersion), transport.local_size());
  me_ = transport.rank();
  capacity_ = layout_.capacity();
  expected_ = 0;
}

bool Channel::drained() const {
  if (layout_.slot(transport_->local_rank()).consumed.load(std::memory_order_acquire) >= expected_) return true;
  transport_->want_room();  // the last consumer's take wakes us
  return false;
}

bool Channel::has_step(std::uint32_t publisher, Key key, std::uint32_t step) const {
  std::uint32_t seen = 0;
  std::uint32_t npieces = 0;
  CollPiece table[kCollPieces];
  return read_step(publisher, key, step, seen, npieces, table);
}

void Channel::publish(Key key, std::uint32_t step, std::span<const Piece> pieces,
                      std::span<const std::uint32_t> consumers) {
  if (pieces.size() > kCollPieces) {
    throw std::logic_error("collective step with " + std::to_string(pieces.size()) + " pieces (at most " +
                           std::to_string(kCollPieces) + ")");
  }
  if (!drained()) throw std::logic_error("collective step published before the previous one was taken");
  CollSlot& slot = layout_.slot(transport_->local_rank());
  std::byte* data = layout_.data(transport_->local_rank());
  // Seqlock write: odd while the table and data change (readers that are
  // not consumers of the previous step may be looking).
  const std::uint32_t v = slot.version.load(std::memory_order_relaxed);
  slot.version.store(v + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  std::uint32_t at = 0;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (p.bytes > capacity_ - at) {
      throw std::logic_error("collective step of more than " + std::to_string(capacity_) + " bytes");
    }
    if (p.bytes > 0) std::memcpy(data + at, p.data, p.bytes);
    slot.piece[i] = {p.dest, p.bytes, p.offset, at, 0};
    at = std::min(capacity_, at + aligned(p.bytes));
  }
  slot.context = key.context;
  slot.seq = key.seq;
  slot.kind = key.kind;
  slot.root = key.root;
  slot.step = step;
  slot.pieces = static_cast<std::uint32_t>(pieces.size());
  slot.version.store(v + 2, std::memory_order_release);
  expected_ += consumers.size();
  for (std::uint32_t c : consumers) transport_->wake(c);
}

bool Channel::read_step(std::uint32_t publisher, Key key, std::uint32_t step, std::uint32_t& seen,
                        std::uint32_t& npieces, CollPiece* table) const {
  const CollSlot& slot = layout_.slot(transport_->local_of(publisher));
  const std::uint32_t before = slot.version.load(std::memory_order_acquire);
  if (before % 2 != 0) return false;
  // Plain reads under the seqlock, as in common::Seqlock: kept only when the
  // version did not move.
  const std::uint32_t context = const_cast<const volatile std::uint32_t&>(slot.context);
  const std::uint32_t seq = const_cast<const volatile std::uint32_t&>(slot.seq);
  const std::uint32_t at = const_cast<const volatile std::uint32_t&>(slot.step);
  const std::uint32_t kind = const_cast<const volatile std::uint32_t&>(slot.kind);
  const std::int32_t root = const_cast<const volatile std::int32_t&>(slot.root);
  std::uint32_t n = const_cast<const volatile std::uint32_t&>(slot.pieces);
  if (context != key.context || seq != key.seq || kind != key.kind || root != key.root || at < step) return false;
  n = std::min(n, kCollPieces);
  std::memcpy(table, const_cast<const CollPiece*>(slot.piece), n * sizeof(CollPiece));
  std::atomic_thread_fence(std::memory_order_acquire);
  if (slot.version.load(std::memory_order_relaxed) != before) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    // A damaged table must never make us read outside the slot.
    if (table[i].data_at > capacity_ || table[i].bytes > capacity_ - table[i].data_at) return false;
  }
  seen = at;
  npieces = n;
  return true;
}

}  // namespace mpf::coll
