// The node's conversation table as one rank uses it (layout.hpp): joining
// and leaving conversations by name, and the queue operations under
// mpf_send and mpf_receive. It never waits: a caller that finds no room or
// no message says what it waits for (want) and waits in the progress
// engine; whoever makes room or sends wakes it through the Waker.
//
//   Table table(view, me, waker);
//   Connection to;  table.open("work", kRoleSend, to);
//   Reservation r = table.try_reserve(to.conversation, bytes);   // null record: full
//   table.copy_in(to.conversation, r, data, bytes);  table.publish(to.conversation, r);
//   Connection from;  table.open("work", kRoleFcfs, from);
//   Found m = table.take_fcfs(from.conversation, capacity);      // message, nothing, too_long
//   table.copy_out(...);  table.finish_read(from.conversation, *m.record);
#pragma once

#include <cstdint>
#include <string_view>

#include "conversation/layout.hpp"

namespace mpf::conversation {

// Wakes a rank that may sleep waiting for a conversation.
class Waker {
 public:
  virtual void wake(std::uint32_t rank) = 0;

 protected:
  ~Waker() = default;
};

// One connection, as its process keeps it.
struct Connection {
  std::uint32_t conversation = 0;  // the entry
  std::uint8_t role = 0;           // kRoleSend, kRoleFcfs or kRoleBroadcast
  std::uint64_t head = 0;          // BROADCAST: the next record to look at
  std::uint64_t joined_at = 0;     // BROADCAST: write_pos when it joined; records before are its own only if adopted
};

enum class OpenStatus {
  opened,
  table_full,       // every entry is in use (mpf_conversations)
  mixed_protocols,  // the rank receives with the other protocol already
};

// A message a receiver found.
struct Found {
  enum class What { nothing, message, too_long } what = What::nothing;
  std::uint64_t pos = 0;   // its record's position
  std::uint64_t next = 0;  // the position after it
  Record* record = nullptr;
};

// A record reserved for a send.
struct Reservation {
  Record* record = nullptr;  // null: no room now
  std::uint64_t pos = 0;
};

class Table {
 public:
  Table(const TableView& view, std::uint32_t me, Waker& waker) : view_(view), me_(me), waker_(&waker) {}

  const TableView& view() const { return view_; }

  // Connects this rank to the conversation `name` (created if it does not
  // exist) as a sender or a receiver of the given protocol.
  OpenStatus open(std::string_view name, std::uint8_t role, Connection& out);
  // Disconnects; the last connection of all discards the conversation and
  // its unread messages. A BROADCAST receiver releases what it had left
  // to read. `last_of_role`: the rank has no other connection of this
  // role to the conversation (its process counts them).
  void close(const Connection& c, bool last_of_role);

  // --- sending ---
  // Whether a message of `bytes` stays in the sender's buffer (it can never
  // fit in a queue).
  bool direct(std::uint64_t bytes) const { return footprint(bytes, 0) > view_.queue_bytes(); }
  // A record for the next message, in send order, or none when the queue
  // has no room for it now.
  Reservation try_reserve(std::uint32_t c, std::uint64_t bytes, std::uint64_t address);
  // Whether try_reserve would find room now (a lock-free look).
  bool room_for(std::uint32_t c, std::uint64_t bytes) const;
  void copy_in(std::uint32_t c, const Reservation& r, const void* data, std::uint64_t bytes) const;
  // The message is in place (or, direct, may be read): wakes who reads it.
  // For a queued message the sender's hold ends here too.
  void publish(std::uint32_t c, Record& r);
  // Wakes the readers of `r` again (a direct message's staged copy is ready).
  void wake_readers(std::uint32_t c, Record& r);
  // A direct message's sender lets go of it once its readers have read it.
  void drop_sender(std::uint32_t c, Record& r) { drop(c, r); }

  // --- receiving ---
  // The FCFS receivers' next message, taken by this rank (unless too long
  // for `capacity`: then it stays).
  Found take_fcfs(std::uint32_t c, std::uint64_t capacity);
  // A BROADCAST receiver's next message; it stays until advance().
  Found next_broadcast(Connection& k, std::uint64_t capacity);
  void advance(Connection& k, const Found& f) const { k.head = f.next; }
  // The message's bytes out of the queue (not direct ones).
  void copy_out(std::uint32_t c, const Found& f, void* to) const;
  // This reader is done with the message.
  void finish_read(std::uint32_t c, Record& r);
  // Whether a message waits for this connection now.
  bool has_message(Connection& k);

  // --- the node's processes ---
  // This rank reached mpf_finalize: the last to arrive wakes the others.
  void arrive_at_finalize();
  // Every rank of the node has reached mpf_finalize. Not the ranks that
  // called mpf_init so far: a rank that has not called it yet would be
  // missed, and its messages discarded by the others' closes.
  bool all_arrived() const {
    const TableHeader& h = view_.header();
    return h.finalizing.load(std::memory_order_acquire) >= h.nranks;
  }

  // --- waiting ---
  // This rank waits on conversation c (for a message, or for room): the
  // next message or room wakes it. Set before looking once more.
  void want(std::uint32_t c, Waiting which) const;
  void unwant(std::uint32_t c, Waiting which) const;

 private:
  // Drops one hold on `r`; the last releases what can be released.
  void drop(std::uint32_t c, Record& r);
  // Moves release_pos over the records nobody holds; wakes waiting senders
  // when it moved. Entry lock held.
  void release_locked(std::uint32_t c);
  void wake_all(std::uint32_t c, Waiting which);
  void wake_one(std::uint32_t c, Waiting which);
  // The conversation's last connection has closed. Both locks held.
  void discard_locked(std::uint32_t c);
  // Calls copy(ring bytes, offset in the message, length) for the one or
  // two pieces (it wraps at the ring's end) of the message at `pos`.
  template <class Copy>
  void for_each_piece(std::uint32_t c, std::uint64_t pos, std::uint64_t bytes, Copy&& copy) const;
  std::uint64_t footprint_at(std::uint32_t c, std::uint64_t pos) const {
    const Record& r = view_.record(c, pos);
    return footprint(r.bytes, r.flags.load(std::memory_order_relaxed));
  }

  TableView view_;
  std::uint32_t me_;
  Waker* waker_;
};

}  // namespace mpf::conversation
