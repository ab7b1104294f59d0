// The matching engine's two queues (MPI semantics; seed 002 §3.2 keeps them
// per {send,recv} x context, here one ordered list each, filtered by
// context):
//
//   posted      receives waiting for a message, in the order they were posted
//   unexpected  messages that arrived before any receive matched them, in
//               arrival order
//
// A new message is matched against the posted queue, oldest first; a new
// receive is matched against the unexpected queue, oldest first. With each
// sender's packets arriving in the order they were sent, this is MPI's
// non-overtaking rule. MPI_ANY_SOURCE and MPI_ANY_TAG are kAnySource/kAnyTag.
//
// The unexpected queue is bounded (SPEC §2 Protocols): messages that carry
// their data (short and eager) take at most `pool_bytes` of entries, and a
// single sender at most its share (sender_share()), so a flood from one rank
// throttles that rank and leaves room for the others. The throttling is
// done by the sender: it counts its data messages not yet matched at each
// receiver (the pair's credit counter in the segment) and, at its share,
// sends further messages by rendezvous, whose entries here are envelopes
// only and always accepted. So a receiver never has to leave a packet in its
// ring (which could hide the one a posted receive waits for), nothing is
// dropped, and nothing aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "progress/packet.hpp"
#include "transport/handles.hpp"

namespace mpf::match {

inline constexpr std::int32_t kAny = -1;

inline bool matches(std::int32_t want_source, std::int32_t want_tag, std::uint32_t want_context,
                    std::uint32_t source, std::int32_t tag, std::uint32_t context) {
  return context == want_context && (want_source == kAny || static_cast<std::uint32_t>(want_source) == source) &&
         (want_tag == kAny || want_tag == tag);
}

// An intrusive doubly-linked list of nodes with `next` and `prev` members.
template <class Node>
class List {
 public:
  Node* front() const { return head_; }
  bool empty() const { return head_ == nullptr; }
  std::size_t size() const { return size_; }
  void push_back(Node* n) {
    n->next = nullptr;
    n->prev = tail_;
    (tail_ ? tail_->next : head_) = n;
    tail_ = n;
    ++size_;
  }
  void remove(Node* n) {
    (n->prev ? n->prev->next : head_) = n->next;
    (n->next ? n->next->prev : tail_) = n->prev;
    n->next = n->prev = nullptr;
    --size_;
  }

 private:
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  std::size_t size_ = 0;
};

// Receives, matched by (source, tag, context); Node is a request with
// `peer`, `tag`, `context`, `next`, `prev`.
template <class Node>
class PostedQueue {
 public:
  void post(Node* r) { list_.push_back(r); }
  void remove(Node* r) { list_.remove(r); }
  // The oldest receive this message matches, taken out of the queue.
  Node* take_match(std::uint32_t source, std::int32_t tag, std::uint32_t context) {
    for (Node* r = list_.front(); r != nullptr; r = r->next) {
      if (matches(r->peer, r->tag, r->context, source, tag, context)) {
        list_.remove(r);
        return r;
      }
    }
    return nullptr;
  }
  const List<Node>& list() const { return list_; }

 private:
  List<Node> list_;
};

// A message that arrived before its receive: the envelope and where its data
// is (inline for short messages; else the transport's handle of the sender's
// eager buffer or of the memory it exposed for a rendezvous).
struct UnexpectedMessage {
  progress::PacketKind kind;
  std::uint8_t flags;
  std::uint16_t signature;
  std::uint32_t context;
  std::int32_t tag;
  std::uint32_t source;
  std::uint64_t bytes;
  std::uint64_t cookie;       // the sender's request
  transport::DataRef where;   // eager, rendezvous: where the data waits
  std::uint64_t arrived_ns;
  std::byte data[progress::kShortCapacity];  // short: the message
  UnexpectedMessage* next;
  UnexpectedMessage* prev;
};

class UnexpectedQueue {
 public:
  // Every entry costs sizeof(UnexpectedMessage) of the pool.
  UnexpectedQueue(std::size_t pool_bytes, std::uint32_t nranks);

  static constexpr std::size_t kEntryBytes = sizeof(UnexpectedMessage);
  // How many data-carrying messages one sender may have waiting here: the
  // same number on every rank, so senders can count against it.
  static std::uint32_t sender_share(std::size_t pool_bytes, std::uint32_t nranks);
  // The sender has not used up its share (senders keep within it, so this
  // only guards against a peer that does not).
  bool has_room_for(std::uint32_t source, bool carries_data) const {
    return !carries_data || per_sender_[source] < sender_share_;
  }
  // Stores a message from its packet (the caller checked has_room_for).
  UnexpectedMessage* add(const progress::Packet& packet, std::uint32_t source, std::uint64_t now_ns);
  // The oldest message a receive for (source, tag, context) matches.
  UnexpectedMessage* find(std::int32_t source, std::int32_t tag, std::uint32_t context) const;
  // The message the sender's request `cookie` sent, if it waits here.
  UnexpectedMessage* find_sent(std::uint32_t source, std::uint64_t cookie) const;
  // Takes the message out of the queue (it is still readable until free()).
  void remove(UnexpectedMessage* m);
  void free(UnexpectedMessage* m);

  const List<UnexpectedMessage>& list() const { return list_; }
  std::size_t used_bytes() const { return used_ * kEntryBytes; }
  std::size_t high_water_bytes() const { return high_water_ * kEntryBytes; }

 private:
  List<UnexpectedMessage> list_;
  std::vector<std::unique_ptr<UnexpectedMessage[]>> blocks_;
  std::vector<UnexpectedMessage*> free_;
  std::vector<std::uint32_t> per_sender_;  // data-carrying entries per sender
  std::uint32_t sender_share_;
  std::size_t used_ = 0;
  std::size_t high_water_ = 0;
};

}  // namespace mpf::match
