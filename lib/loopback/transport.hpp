// The loopback transport: every rank of a job in this one process, reached
// through plain memory. The second implementation of the transport
// interface (transport/interface.hpp), and the smallest: the unit tests run
// the progress engine and its matching over it (tests/unit/progress), with
// rings as small as they like and faults on demand (get and put refused or
// failing), and it shows in one file what a transport has to provide.
//
// A loopback::Node holds what the ranks share: per ordered pair a bounded
// queue of packets, per rank a pool of eager buffers, the credit counters,
// the split copies, and a node segment with only the ranks region (the
// ranks' wait objects, counters and introspection, as on a real node).
// Each rank attaches a loopback::Transport to it. Not thread-safe: one
// thread drives every rank in turn.
//
// Its file split is the one every transport has, folded into two files:
// the sections below (init and endpoint, msg, rma, progress) are inline
// here; init and the slow paths are in transport.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "progress/packet.hpp"
#include "shm/ranks_layout.hpp"
#include "shm/segment.hpp"
#include "transport/interface.hpp"

namespace mpf::loopback {

// What the tests may choose about the node.
struct NodeOptions {
  std::uint32_t ranks = 2;
  std::uint32_t queue_packets = 4;  // per ordered pair: claims beyond this fail (back-pressure)
  std::uint32_t eager_buffers = 4;  // per rank; the last quarter (at least one) carries rendezvous chunks
  std::uint32_t eager_bytes = 4096;
  std::uint32_t ncpus = 8;
  std::string jobid = "loopback";
};

// How get and put behave: as they should, refused (as a kernel refuses
// Cross Memory Attach: nothing moves, the pair falls back to messages) or
// failing (an error; both requests fail).
enum class RmaFault : std::uint8_t { none, refuse, fail };

class Node {
 public:
  explicit Node(const NodeOptions& options);
  const NodeOptions& options() const { return options_; }
  const shm::Segment& segment() const { return segment_; }

  // From now on, get and put by any rank behave as `fault` says.
  void set_rma_fault(RmaFault fault) { rma_fault_ = fault; }
  RmaFault rma_fault() const { return rma_fault_; }
  // Gets and puts that rank `r` has tried (a split copy: both ends do).
  std::uint64_t& copies_tried(std::uint32_t r) { return copies_tried_[r]; }

  // A queue of packets from one rank to another, in order.
  struct Queue {
    std::vector<progress::Packet> slots;
    std::uint64_t head = 0;  // next to take
    std::uint64_t tail = 0;  // next to fill
  };
  Queue& queue(std::uint32_t sender, std::uint32_t receiver) { return queues_[sender * options_.ranks + receiver]; }

  struct EagerBuffer {
    bool busy = false;
    std::vector<std::byte> data;
  };
  EagerBuffer& eager(std::uint32_t owner, std::uint32_t id) { return pools_[owner * options_.eager_buffers + id]; }
  // Credits: how much of what `sender` sent `receiver` matched.
  std::uint64_t& matched(std::uint32_t sender, std::uint32_t receiver) {
    return matched_[sender * options_.ranks + receiver];
  }
  transport::SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) {
    return splits_[(std::uint64_t{receiver} * options_.ranks + sender) * transport::kSplitsPerPair + i];
  }

 private:
  NodeOptions options_;
  shm::Segment segment_;
  std::vector<Queue> queues_;
  std::vector<EagerBuffer> pools_;
  std::vector<std::uint64_t> matched_;
  std::vector<std::uint64_t> copies_tried_;
  std::unique_ptr<transport::SplitCopy[]> splits_;
  RmaFault rma_fault_ = RmaFault::none;
};

class Transport {
 public:
  static constexpr transport::Capabilities kCapabilities{.eager = true, .get = true, .put = true, .split_copy = true};

  // --- init, endpoint --------------------------------------------------------
  // Rank `rank` of the node's job (world ranks are the node's ranks).
  // `by_messages`: large messages go through eager buffers (rndv_mode=copy).
  void init(Node& node, std::uint32_t rank, bool by_messages);

  std::uint32_t rank() const { return me_; }
  std::uint32_t size() const { return node_->options().ranks; }
  std::uint32_t local_rank() const { return me_; }
  std::uint32_t local_size() const { return size(); }
  const shm::RanksLayout& node() const { return node_->segment().ranks(); }
  std::uint32_t ncpus() const { return node_->options().ncpus; }
  bool oversubscribed() const { return size() > ncpus(); }

  // --- msg ---------------------------------------------------------------------
  progress::Packet* try_claim(std::uint32_t peer) {
    Node::Queue& q = node_->queue(me_, peer);
    if (q.tail - q.head == q.slots.size()) return nullptr;
    return &q.slots[q.tail % q.slots.size()];
  }
  void publish(std::uint32_t peer) {
    ++node_->queue(me_, peer).tail;
    wake(peer);
  }
  std::uint32_t eager_bytes() const { return node_->options().eager_bytes; }
  common::Status try_take_eager(std::uint32_t, std::uint64_t, transport::EagerRef& buffer) {
    return take(0, eager_count_, buffer);
  }
  common::Status try_take_chunk(std::uint32_t, transport::EagerRef& buffer) {
    return take(eager_count_, node_->options().eager_buffers, buffer);
  }
  std::byte* eager_data(std::uint32_t owner, transport::EagerRef buffer) const {
    return node_->eager(owner, buffer.id).data.data();
  }
  void release_eager(std::uint32_t owner, transport::EagerRef buffer) {
    node_->eager(owner, buffer.id).busy = false;
    wake_for_room(owner);
  }
  void note_eager_sent(std::uint32_t) {}
  void warm_next_eager() {}
  std::uint64_t matched_by(std::uint32_t peer) const { return node_->matched(me_, peer); }
  void count_matched(std::uint32_t sender, std::uint64_t units) { node_->matched(sender, me_) += units; }

  // --- rma -----------------------------------------------------------------------
  void unexpose(std::uint32_t, transport::RemoteMemory) {}
  static constexpr bool can_put(std::uint32_t) { return true; }
  transport::RemoteMemory expose(std::uint32_t, const void* buffer, std::uint64_t) const {
    return {reinterpret_cast<std::uint64_t>(buffer), 0};
  }
  transport::RmaPath rma_path(std::uint32_t peer) const { return rma_path_[peer]; }
  bool rma_proven(std::uint32_t peer) const { return rma_proven_[peer] != 0; }
  common::Status get(std::uint32_t peer, void* local, transport::RemoteMemory remote, std::uint64_t offset,
                     std::uint64_t bytes) {
    return copy(peer, local, reinterpret_cast<const void*>(remote.address + offset), bytes);
  }
  common::Status put(std::uint32_t peer, transport::RemoteMemory remote, std::uint64_t offset, const void* local,
                     std::uint64_t bytes) {
    return copy(peer, reinterpret_cast<void*>(remote.address + offset), local, bytes);
  }
  std::int32_t try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                              std::uint64_t copied_bytes);
  void release_split(std::uint32_t peer, std::uint32_t split) { split_busy_[peer] &= ~(1u << split); }
  transport::SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t split) const {
    return node_->split_copy(sender, receiver, split);
  }

  // --- progress --------------------------------------------------------------------
  template <class OnPacket>
  std::size_t poll(OnPacket&& on_packet) {
    std::size_t consumed = 0;
    for (std::uint32_t sender = 0; sender < size(); ++sender) {
      if (deferred_[sender] != 0) {
        if (!retry_deferred_) continue;
        deferred_[sender] = 0;
      }
      Node::Queue& q = node_->queue(sender, me_);
      while (q.head != q.tail) {
        if (!on_packet(sender, q.slots[q.head % q.slots.size()])) {
          deferred_[sender] = 1;
          break;
        }
        ++q.head;
        ++consumed;
      }
    }
    retry_deferred_ = false;
    return consumed;
  }
  void retry_deferred() { retry_deferred_ = true; }
  static constexpr bool may_sleep() { return true; }
  const progress::Packet* peek(std::uint32_t sender) const {
    const Node::Queue& q = node_->queue(sender, me_);
    return deferred_[sender] == 0 && q.head != q.tail ? &q.slots[q.head % q.slots.size()] : nullptr;
  }
  void consume(std::uint32_t sender) { ++node_->queue(sender, me_).head; }

  // One thread runs every rank: nobody sleeps while another rank has work,
  // so waking is ringing the doorbell of a rank that said it sleeps.
  void wake(std::uint32_t peer) { wake_after_fence(peer); }
  void wake_after_fence(std::uint32_t peer) {
    shm::RankControl& c = node().rank(peer);
    if (c.sleeping.load(std::memory_order_relaxed) != 0) shm::ring_doorbell(c, node().rank(me_));
  }
  void wake_for_room(std::uint32_t peer) {
    shm::RankControl& c = node().rank(peer);
    if (c.sleeping.load(std::memory_order_relaxed) == shm::kSleepsForRoom) shm::ring_doorbell(c, node().rank(me_));
  }
  void flush_wakes() {}
  void wake_deferred() {}
  bool room_wanted() const { return false; }
  void clear_room_wanted() {}

 private:
  common::Status take(std::uint32_t first, std::uint32_t end, transport::EagerRef& buffer);
  common::Status copy(std::uint32_t peer, void* to, const void* from, std::uint64_t bytes);

  Node* node_ = nullptr;
  std::uint32_t me_ = 0;
  std::uint32_t eager_count_ = 0;  // buffers [0, eager_count_) for eager messages, the rest for chunks
  std::vector<transport::RmaPath> rma_path_;
  std::vector<std::uint8_t> rma_proven_;
  std::vector<std::uint32_t> split_busy_;
  std::vector<std::uint8_t> deferred_;
  bool retry_deferred_ = false;
};

static_assert(transport::Transport<Transport>);

}  // namespace mpf::loopback
