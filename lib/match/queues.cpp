#include "match/queues.hpp"

#include <algorithm>

namespace mpf::match {

std::uint32_t UnexpectedQueue::sender_share(std::size_t pool_bytes, std::uint32_t nranks) {
  // Each sender may fill an equal share, but never less than a few entries,
  // so that every sender keeps its messages flowing even in a large job.
  const std::size_t entries = pool_bytes / kEntryBytes;
  return static_cast<std::uint32_t>(std::max<std::size_t>(entries / std::max<std::uint32_t>(nranks, 1), 4));
}

UnexpectedQueue::UnexpectedQueue(std::size_t pool_bytes, std::uint32_t nranks)
    : per_sender_(nranks, 0), sender_share_(sender_share(pool_bytes, nranks)) {}

namespace {
bool carries_data(progress::PacketKind kind) {
  return kind == progress::PacketKind::short_msg || kind == progress::PacketKind::eager;
}
}  // namespace

UnexpectedMessage* UnexpectedQueue::add(const progress::Packet& p, std::uint32_t source, std::uint64_t now_ns) {
  if (free_.empty()) [[unlikely]] {
    constexpr std::size_t kBlock = 64;
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
  m->arrived_ns = now_ns;
  if (p.header.kind == progress::PacketKind::short_msg) {
    std::memcpy(m->data, p.inline_data, p.header.bytes);
  } else if (p.header.kind == progress::PacketKind::eager) {
    m->where.eager = p.chunk.buffer;
  } else {
    m->where.remote = p.rendezvous.memory;
  }
  list_.push_back(m);
  if (carries_data(m->kind)) ++per_sender_[source];
  high_water_ = std::max(high_water_, ++used_);
  return m;
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
  if (carries_data(m->kind)) --per_sender_[m->source];
  --used_;
}

void UnexpectedQueue::free(UnexpectedMessage* m) { free_.push_back(m); }

}  // namespace mpf::match
