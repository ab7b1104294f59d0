// The node's MPF conversations (seed 003 §3) in the segment's region
// "mpf.conversations": a table of conversations, each with its own queue,
// shared by every rank of the node and read by mpfinspect.
//
//   header      geometry, the table lock (find, create and discard), counts
//   entries[c]  conversation c: its name, lock, connections, queue positions;
//               then per rank its roles (a byte), and the bitmaps of ranks
//               waiting for a message (FCFS, BROADCAST) or for room (senders)
//   rings[c]    conversation c's queue: records of mpf_queue_bytes bytes in
//               all, each a 64-byte Record and the message's bytes
//
// A queue is a ring of byte positions that only grow: records are reserved
// at write_pos, in send order, and released at release_pos once nobody
// needs them any more; FCFS receivers share fcfs_pos, each BROADCAST
// receiver keeps its own position in its process. A record counts its
// readers (refs): every BROADCAST receiver connected when it was sent, one
// FCFS receiver if any was connected (or if nobody received at all: then
// the first receiver to join takes it), and its sender while it writes.
// Whoever drops the count to zero releases what it can. A closing
// BROADCAST receiver drops its count on the records it has not read, and
// only those: no other receiver's position is ever looked at (the paper's
// "vexing" close_receive problem).
//
// Everything of an entry is written under its lock except the records'
// counts and flags, read and written with atomics, and the waiting
// bitmaps. All-zero is a free entry; the region's initialiser writes the
// header and the locks (process-shared mutexes).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "shm/region.hpp"

namespace mpf::conversation {

inline constexpr std::string_view kRegionName = "mpf.conversations";
inline constexpr std::uint32_t kVersion = 1;
// A conversation's name has at most kNameBytes - 1 bytes.
inline constexpr std::size_t kNameBytes = 64;
inline constexpr std::uint64_t kLine = 64;
inline constexpr std::uint64_t kPage = 4096;

// A rank's connections to a conversation, as bits of its roles byte.
inline constexpr std::uint8_t kRoleSend = 1;
inline constexpr std::uint8_t kRoleFcfs = 2;
inline constexpr std::uint8_t kRoleBroadcast = 4;

struct TableHeader {
  std::uint32_t conversations;  // entries
  std::uint32_t nranks;
  std::uint32_t bitmap_words;  // 64-bit words of a bitmap of ranks
  std::uint32_t reserved;
  std::uint64_t queue_bytes;  // each conversation's ring
  std::uint64_t entry_bytes;  // an entry with its per-rank arrays
  std::uint64_t entries_offset;
  std::uint64_t rings_offset;             // page-aligned
  std::atomic<std::uint32_t> live;        // conversations that exist now
  std::atomic<std::uint32_t> finalizing;  // ranks that reached mpf_finalize
  pthread_mutex_t lock;                   // finds, creates and discards conversations
};

enum class EntryState : std::uint32_t { free = 0, live = 1 };

struct alignas(kLine) Entry {
  pthread_mutex_t lock;
  std::atomic<EntryState> state;
  std::uint32_t generation;  // uses of this entry so far (mpfinspect tells them apart)
  char name[kNameBytes];
  // Connections, of every rank.
  std::atomic<std::uint32_t> senders;
  std::atomic<std::uint32_t> fcfs;
  std::atomic<std::uint32_t> broadcast;
  std::atomic<std::uint32_t> wake_cursor;  // where the next FCFS wake-up starts looking
  std::atomic<std::uint64_t> write_pos;    // the end of the records reserved
  std::atomic<std::uint64_t> release_pos;  // the start of the records still needed
  std::atomic<std::uint64_t> fcfs_pos;     // the FCFS receivers' next record, or write_pos
  std::atomic<std::uint64_t> messages;     // records in [release_pos, write_pos)
  std::atomic<std::uint64_t> bytes;        // their messages' bytes
  std::atomic<std::uint64_t> sent;         // messages sent since it was created
  std::atomic<std::uint64_t> created_ns;   // CLOCK_MONOTONIC
};

// Record flags.
inline constexpr std::uint32_t kForFcfs = 1;     // one FCFS receiver takes it
inline constexpr std::uint32_t kAdopted = 2;     // sent while nobody received; the first BROADCAST receiver took it
inline constexpr std::uint32_t kDirect = 4;      // too large for the queue: the data stays in the sender's buffer
inline constexpr std::uint32_t kWantStaged = 8;  // kDirect, and a reader cannot reach the sender's memory

// A message in a ring; its bytes follow (wrapping at the ring's end).
struct alignas(kLine) Record {
  std::uint64_t bytes;               // the message's length
  std::atomic<std::uint32_t> refs;   // readers still to read it, and its sender while it writes
  std::atomic<std::uint32_t> ready;  // its bytes are in place (the sender's release store)
  std::atomic<std::uint32_t> flags;
  std::int32_t sender;                // world rank
  std::atomic<std::int32_t> claimer;  // kForFcfs: the receiver that took it, -1 before
  std::uint32_t reserved;
  std::uint64_t sent_ns;              // CLOCK_MONOTONIC
  std::uint64_t address;              // kDirect: the sender's buffer
  std::atomic<std::uint64_t> staged;  // kDirect: the node memory holding a copy (kWantStaged), 0 until then
};
// Record::staged when the sender could not make the copy: its readers give up.
inline constexpr std::uint64_t kStagingFailed = ~std::uint64_t{0};
static_assert(sizeof(Record) == kLine);

// What a record takes of its ring.
inline std::uint64_t footprint(std::uint64_t bytes, std::uint32_t flags) {
  return kLine + ((flags & kDirect) != 0 ? 0 : (bytes + kLine - 1) / kLine * kLine);
}

// What a rank blocked on a conversation waits for, shown to mpfinspect in
// its wait record's context as role | (ConversationWait << 8).
enum class ConversationWait : std::uint32_t {
  message = 0,  // a receiver: the next message
  room = 1,     // a sender: room in the full queue
  readers = 2,  // a sender: its message too large for the queue to be read from its buffer
};

// Waiting bitmaps of an entry.
enum class Waiting : std::uint32_t { fcfs = 0, broadcast = 1, senders = 2 };

// The region as a rank or mpfinspect finds it; checks the geometry.
class TableView {
 public:
  static shm::RegionSpec spec();

  TableView() = default;
  explicit TableView(const shm::Region& region);

  const TableHeader& header() const { return *header_; }
  TableHeader& header_mut() const { return *header_; }
  std::uint32_t conversations() const { return header_->conversations; }
  std::uint64_t queue_bytes() const { return header_->queue_bytes; }
  Entry& entry(std::uint32_t c) const {
    return *reinterpret_cast<Entry*>(base_ + header_->entries_offset + c * header_->entry_bytes);
  }
  std::atomic<std::uint8_t>* roles(std::uint32_t c) const {
    return reinterpret_cast<std::atomic<std::uint8_t>*>(reinterpret_cast<std::byte*>(&entry(c)) + sizeof(Entry));
  }
  std::atomic<std::uint64_t>* waiting(std::uint32_t c, Waiting which) const {
    return reinterpret_cast<std::atomic<std::uint64_t>*>(reinterpret_cast<std::byte*>(&entry(c)) + sizeof(Entry) +
                                                         roles_bytes() +
                                                         static_cast<std::uint32_t>(which) * header_->bitmap_words * 8);
  }
  std::byte* ring(std::uint32_t c) const { return base_ + header_->rings_offset + c * header_->queue_bytes; }
  // The record at `pos` of conversation c's ring.
  Record& record(std::uint32_t c, std::uint64_t pos) const {
    return *reinterpret_cast<Record*>(ring(c) + pos % header_->queue_bytes);
  }

 private:
  std::uint64_t roles_bytes() const { return (std::uint64_t{header_->nranks} + kLine - 1) / kLine * kLine; }

  std::byte* base_ = nullptr;
  TableHeader* header_ = nullptr;
};

}  // namespace mpf::conversation
