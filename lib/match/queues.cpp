#include "match/queues.hpp"

#include <algorithm>
#include <bit>

namespace mpf::match {

std::uint64_t UnexpectedQueue::sender_share(std::size_t pool_bytes, std::uint32_t nranks) {
  // Each sender may fill an equal share, but never less than a few short
  // messages, so that every sender keeps its messages flowing even in a
  // large job (beyond its share they go by rendezvous).
  return std::max<std::uint64_t>(pool_bytes / std::max<std::uint32_t>(nranks, 1), 4 * kEntryBytes);
}

UnexpectedQueue::UnexpectedQueue(std::size_t pool_bytes, std::uint32_t nranks)
    : per_sender_(nranks, 0), sender_share_(sender_share(pool_bytes, nranks)) {}

UnexpectedQueue::~UnexpectedQueue() {
  // Messages still waiting (or claimed and never received) hold their data.
  for (const std::unique_ptr<UnexpectedMessage[]>& block : blocks_) {
    for (std::size_t i = 0; i < kBlock; ++i) delete[] block[i].held;
  }
}

UnexpectedMessage* UnexpectedQueue::add(const progress::Packet& p, std::uint32_t source, std::uint64_t now_ns) {
  if (free_.empty()) [[unlikely]] {
    blocks_.push_back(std::make_unique<UnexpectedMessage[]>(kBlock));
    for (std::size_t i = 0; i < kBlock; ++i) free_.push_back(&blocks_.back()[i]);
  }
  UnexpectedMessage* m = free_.back();
  free_.pop_back();
  m->kind = p.header.kind;
  m->flags = p.header.flags;
  m->signature = p.header.signature;
  m->context = p.header.context;
  m->tag = p.header.tag;
  m->source = source;
  m->bytes = p.header.bytes;
  m->cookie = p.header.cookie;
  m->held = nullptr;
  m->arrived_ns = now_ns;
  if (p.header.kind == progress::PacketKind::short_msg) {
    std::memcpy(m->data, p.inline_data, p.header.bytes);
  } else if (p.header.kind == progress::PacketKind::rts) {
    m->where.remote = p.rendezvous.memory;
  }
  list_.push_back(m);
  per_sender_[source] += cost(m->kind, m->bytes);
  used_ += kEntryBytes;
  high_water_ = std::max(high_water_, used_);
  return m;
}

unsigned UnexpectedQueue::size_class(std::uint64_t bytes) {
  const unsigned bits = static_cast<unsigned>(std::bit_width(std::max<std::uint64_t>(bytes, 1) - 1));
  return bits <= kSmallestClass ? 0 : bits - kSmallestClass;
}

std::byte* UnexpectedQueue::hold(UnexpectedMessage* m) {
  const unsigned c = size_class(m->bytes);
  if (c >= held_free_.size()) held_free_.resize(c + 1);
  std::vector<std::unique_ptr<std::byte[]>>& free_list = held_free_[c];
  std::byte* data;
  if (free_list.empty()) [[unlikely]] {
    data = new std::byte[std::size_t{1} << (c + kSmallestClass)];
  } else {
    data = free_list.back().release();
    free_list.pop_back();
  }
  m->held = data;
  used_ += m->bytes;
  high_water_ = std::max(high_water_, used_);
  return data;
}

UnexpectedMessage* UnexpectedQueue::find(std::int32_t source, std::int32_t tag, std::uint32_t context) const {
  for (UnexpectedMessage* m = list_.front(); m != nullptr; m = m->next) {
    if (matches(source, tag, context, m->source, m->tag, m->context)) return m;
  }
  return nullptr;
}

UnexpectedMessage* UnexpectedQueue::find_sent(std::uint32_t source, std::uint64_t cookie) const {
  for (UnexpectedMessage* m = list_.front(); m != nullptr; m = m->next) {
    if (m->source == source && m->cookie == cookie) return m;
  }
  return nullptr;
}

void UnexpectedQueue::remove(UnexpectedMessage* m) {
  list_.remove(m);
  per_sender_[m->source] -= cost(m->kind, m->bytes);
  used_ -= kEntryBytes + (m->held != nullptr ? m->bytes : 0);
}

void UnexpectedQueue::free(UnexpectedMessage* m) {
  if (m->held != nullptr) {
    held_free_[size_class(m->bytes)].emplace_back(m->held);
    m->held = nullptr;
  }
  free_.push_back(m);
}

}  // namespace mpf::match
