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
// their data (short and eager) take at most `pool_bytes`, and a single
// sender at most its share (sender_share()), so a flood from one rank
// throttles that rank and leaves room for the others. A message costs its
// entry, and an eager message also its data: the receiver copies that out
// of the sender's eager buffer into memory of its own (hold()) and gives
// the buffer back at once, so a sender whose messages wait here keeps its
// buffers for the next ones (seed 004's unexpected buffer). The throttling
// is done by the sender: it counts the cost of its data messages not yet
// matched at each receiver (the pair's credits) and, at its share, sends
// further messages by rendezvous, whose entries here are envelopes only
// and always accepted. So a receiver never has to leave a packet in its
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
// is (short: inline; eager: held, a copy of the receiver's own; rendezvous:
// the transport's handle of the memory the sender exposed).
struct UnexpectedMessage {
  progress::PacketKind kind;
  std::uint8_t flags;
  std::uint16_t signature;
  std::uint32_t context;
  std::int32_t tag;
  std::uint32_t source;
  std::uint64_t bytes;
  std::uint64_t cookie;       // the sender's request
  transport::DataRef where;   // rendezvous: the sender's exposed memory
  std::byte* held;            // eager: the data, copied out (hold())
  std::uint64_t arrived_ns;
  std::byte data[progress::kShortCapacity];  // short: the message
  UnexpectedMessage* next;
  UnexpectedMessage* prev;
};

class UnexpectedQueue {
 public:
  // Every entry costs sizeof(UnexpectedMessage) of the pool.
  UnexpectedQueue(std::size_t pool_bytes, std::uint32_t nranks);
  ~UnexpectedQueue();
  UnexpectedQueue(const UnexpectedQueue&) = delete;
  UnexpectedQueue& operator=(const UnexpectedQueue&) = delete;

  static constexpr std::size_t kEntryBytes = sizeof(UnexpectedMessage);
  // What a message of `kind` and `bytes` costs its sender's share while it
  // waits here: its entry, and an eager message's data; a rendezvous
  // envelope costs nothing (always taken).
  static std::uint64_t cost(progress::PacketKind kind, std::uint64_t bytes) {
    return kind == progress::PacketKind::rts ? 0 : kEntryBytes + (kind == progress::PacketKind::eager ? bytes : 0);
  }
  // How many bytes of cost one sender may have waiting here: the same on
  // every rank, so senders can count against it; never less than a few
  // short messages' worth.
  static std::uint64_t sender_share(std::size_t pool_bytes, std::uint32_t nranks);
  // The sender has not used up its share (senders keep within it, so this
  // only guards against a peer that does not).
  bool has_room_for(std::uint32_t source, std::uint64_t cost) const {
    return cost == 0 || per_sender_[source] + cost <= sender_share_;
  }
  // Stores a message from its packet (the caller checked has_room_for).
  UnexpectedMessage* add(const progress::Packet& packet, std::uint32_t source, std::uint64_t now_ns);
  // Memory for eager message m's data, of m->bytes, held until free(m): the
  // caller copies the data in and gives the sender's buffer back.
  std::byte* hold(UnexpectedMessage* m);
  // The oldest message a receive for (source, tag, context) matches.
  UnexpectedMessage* find(std::int32_t source, std::int32_t tag, std::uint32_t context) const;
  // The message the sender's request `cookie` sent, if it waits here.
  UnexpectedMessage* find_sent(std::uint32_t source, std::uint64_t cookie) const;
  // Takes the message out of the queue (it is still readable until free()).
  void remove(UnexpectedMessage* m);
  void free(UnexpectedMessage* m);

  const List<UnexpectedMessage>& list() const { return list_; }
  // Entries and held data.
  std::size_t used_bytes() const { return used_; }
  std::size_t high_water_bytes() const { return high_water_; }

 private:
  static constexpr std::size_t kBlock = 64;  // entries are allocated in blocks of this many
  List<UnexpectedMessage> list_;
  std::vector<std::unique_ptr<UnexpectedMessage[]>> blocks_;
  std::vector<UnexpectedMessage*> free_;
  // Held data, by size class: class c holds up to 2^(c + kSmallestClass)
  // bytes; freed memory waits for the next message of its class.
  static constexpr unsigned kSmallestClass = 7;
  static unsigned size_class(std::uint64_t bytes);
  std::vector<std::vector<std::unique_ptr<std::byte[]>>> held_free_;
  std::vector<std::uint64_t> per_sender_;  // cost of the messages of each sender waiting here
  std::uint64_t sender_share_;
  std::size_t used_ = 0;  // bytes: entries and held data
  std::size_t high_water_ = 0;
};

}  // namespace mpf::match
