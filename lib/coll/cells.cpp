#include "coll/cells.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace mpf::coll {

void Cells::init(shm::Transport& transport) {
  transport_ = &transport;
  layout_ = CellsLayout(transport.segment().region(CellsLayout::kName, CellsLayout::kVersion), transport.local_size());
  me_ = transport.rank();
  cell_bytes_ = layout_.cell_bytes();
  capacity_ = capacity_of(cell_bytes_);
  const std::uint32_t n = transport.size();
  out_.assign(n, nullptr);
  in_.assign(n, nullptr);
  posted_.assign(n, 0);
  taken_.assign(n, 0);
  acked_.assign(n, 0);
  // By world rank, for the ranks on this node (the cells are the node's).
  const std::uint32_t local_me = transport.local_rank();
  for (std::uint32_t local = 0; local < transport.local_size(); ++local) {
    const std::uint32_t peer = transport.world_of(local);
    out_[peer] = reinterpret_cast<std::byte*>(&layout_.cell(local_me, local, 0));
    in_[peer] = reinterpret_cast<const std::byte*>(&layout_.cell(local, local_me, 0));
  }
}

bool Cells::try_post(std::uint32_t to, Key key, std::uint32_t step, const void* data, std::uint32_t bytes) {
  if (bytes > capacity_) {
    throw std::logic_error("collective cell message of " + std::to_string(bytes) + " bytes (at most " +
                           std::to_string(capacity_) + ")");
  }
  const std::uint64_t n = posted_[to] + 1;
  // Message n reuses the cell of message n - 2: the receiver must have
  // taken that one. Its count is read only when what we saw last is short.
  if (n > kCellsPerPair && acked_[to] < n - kCellsPerPair) {
    acked_[to] = layout_.ack(transport_->local_rank(), transport_->local_of(to)).load(std::memory_order_acquire);
    if (acked_[to] < n - kCellsPerPair) {
      transport_->want_room();    // its take of the older message wakes us
      transport_->flush_wakes();  // the receiver may be asleep, waiting for an earlier message
      return false;
    }
  }
  MailCell& cell = out_cell(to, n);
  cell.context = key.context;
  cell.seq = key.seq;
  cell.kind = static_cast<std::uint16_t>(key.kind);
  cell.root = key.root;
  cell.step = step;
  cell.bytes = static_cast<std::uint16_t>(bytes);
  cell.taken = static_cast<std::uint32_t>(taken_[to]);
  if (bytes > 0) std::memcpy(data_of(cell), data, bytes);
  cell.stamp.store(n, std::memory_order_release);
  posted_[to] = n;
  transport_->wake_later(to);
  return true;
}

bool Cells::try_take_into(std::uint32_t from, Key key, std::uint32_t step, void* out, std::uint32_t bytes) {
  return try_take(from, key, step, [&](const std::byte* data, std::uint32_t got) {
    if (got > 0) std::memcpy(out, data, std::min(bytes, got));
  });
}

void Cells::taken(std::uint32_t from, std::uint64_t n) {
  taken_[from] = n;
  layout_.ack(transport_->local_of(from), transport_->local_rank()).store(n, std::memory_order_release);
  // The sender may be waiting (asleep) for this cell.
  transport_->wake_later_for_room(from);
}

}  // namespace mpf::coll
