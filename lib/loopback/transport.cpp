// The loopback transport's setup and slow paths (see transport.hpp).
#include "loopback/transport.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "common/tunables.hpp"

namespace mpf::loopback {

namespace {

// The node segment holds the ranks region only: wait objects, counters and
// introspection, as on a real node. Its geometry ignores the tunables.
shm::Segment ranks_segment(const NodeOptions& o) {
  const common::Tunables defaults = common::Tunables::defaults();
  const std::array<shm::RegionSpec, 1> regions{shm::RanksLayout::spec()};
  return shm::Segment::create({o.ranks, o.ncpus, o.jobid}, {o.ranks, o.ncpus, defaults}, regions);
}

}  // namespace

Node::Node(const NodeOptions& options)
    : options_(options),
      segment_(ranks_segment(options)),
      queues_(std::size_t{options.ranks} * options.ranks),
      pools_(std::size_t{options.ranks} * options.eager_buffers),
      matched_(std::size_t{options.ranks} * options.ranks, 0),
      copies_tried_(options.ranks, 0),
      splits_(std::make_unique<transport::SplitCopy[]>(std::size_t{options.ranks} * options.ranks *
                                                       transport::kSplitsPerPair)) {
  for (Queue& q : queues_) q.slots.resize(options.queue_packets);
  for (EagerBuffer& b : pools_) b.data.resize(options.eager_bytes);
}

void Transport::init(Node& node, std::uint32_t rank, bool by_messages) {
  node_ = &node;
  me_ = rank;
  const std::uint32_t buffers = node.options().eager_buffers;
  eager_count_ = buffers - std::max<std::uint32_t>(1, buffers / 4);
  rma_path_.assign(size(), by_messages ? transport::RmaPath::by_messages : transport::RmaPath::direct);
  rma_proven_.assign(size(), 0);
  split_busy_.assign(size(), 0);
  deferred_.assign(size(), 0);
  node.segment().rank(rank).pid = 0;
}

common::Status Transport::take(std::uint32_t first, std::uint32_t end, transport::EagerRef& buffer) {
  for (std::uint32_t id = first; id < end; ++id) {
    Node::EagerBuffer& b = node_->eager(me_, id);
    if (!b.busy) {
      b.busy = true;
      buffer.id = id;
      return common::Status::done;
    }
  }
  return common::Status::retry;
}

common::Status Transport::copy(std::uint32_t peer, void* to, const void* from, std::uint64_t bytes) {
  ++node_->copies_tried(me_);
  switch (node_->rma_fault()) {
    case RmaFault::refuse:
      rma_path_[peer] = transport::RmaPath::refused;
      return common::Status::retry;
    case RmaFault::fail:
      std::fprintf(stderr, "loopback rank %u: a copy with rank %u failed (RmaFault::fail)\n", me_, peer);
      return common::Status::error;
    case RmaFault::none:
      break;
  }
  if (bytes != 0) std::memmove(to, from, bytes);
  if (bytes != 0) rma_proven_[peer] = 1;
  return common::Status::done;
}

std::int32_t Transport::try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                                       std::uint64_t copied_bytes) {
  for (std::uint32_t i = 0; i < transport::kSplitsPerPair; ++i) {
    if ((split_busy_[peer] & (1u << i)) != 0) continue;
    split_busy_[peer] |= 1u << i;
    transport::SplitCopy& s = node_->split_copy(peer, me_, i);
    s.claims.store(std::uint64_t{chunks} << 32 | copied, std::memory_order_relaxed);
    s.done.store(copied_bytes, std::memory_order_relaxed);
    return static_cast<std::int32_t>(i);
  }
  return -1;
}

}  // namespace mpf::loopback
