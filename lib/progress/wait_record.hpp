// How a waiting call describes its wait (shm::WaitRecord, read by
// mpfinspect --deadlock), and each rank's record of its collectives per
// communicator (shm::CommRecord).
//
//   engine.wait_until(done, BlockedCall::receive(WaitApi::mpi, world, tag, context, "MPI_Recv"));
//   engine.wait_until(done, BlockedCall::collective(WaitApi::mpi, id, root, "MPI_Bcast"));
//
// A BlockedCall is made only by its factories, one per kind of wait, each
// asking for what the analysis needs of that kind: a call site cannot
// leave the kind out. Building one stores a few fields; it is published
// (copied into the seqlock) only when the wait lasts (engine_wait_inline.hpp).
//
// A new API publishes its waits with the factory of their kind (a SHMEM
// wait_until is shmem_wait, an RMA fence rma_sync), and its collectives
// with a Collective per call on its group, counted in a CollectiveLog
// entry of the group (CollectiveTrack).
#pragma once

#include <cstdint>

#include "progress/request.hpp"
#include "shm/introspection.hpp"

namespace mpf::progress {

using shm::CollKind;
using shm::WaitApi;
using shm::WaitKind;

// A wait for a broadcast in a run whose root moves one rank on at each
// call (coll::Board's turns): near, the rank's own turn as root comes
// within the next few calls, and it yields as in any crowd wait; far, it
// sleeps at once (kSleepsDeferred), and the root a few turns before its
// own wakes it. Any other wait is none, and wakes the far sleepers first,
// in case it waits for one of them.
enum class Turn : std::uint8_t { none, near, far };

struct CollectiveTrack;

// One collective call: which communicator (context and epoch), its number
// there (1: the first), its operation and whether it was started
// nonblocking. Every member numbers the same call alike.
struct Collective {
  std::uint32_t context = 0;
  std::uint32_t epoch = 0;
  std::uint32_t seq = 0;
  CollKind kind = CollKind::none;
  bool nonblocking = false;
  // The communicator's count: a wait in this call makes sure it is shown.
  CollectiveTrack* track = nullptr;
};

// What a rank is blocked in, for introspection.
class BlockedCall {
 public:
  static BlockedCall send(WaitApi api, std::int32_t peer, std::int32_t tag, std::uint32_t context,
                          const char* function) {
    return p2p(WaitKind::send, api, peer, tag, context, function);
  }
  // A receive or a probe; peer kAnySource, tag kAnyTag for wildcards.
  static BlockedCall receive(WaitApi api, std::int32_t peer, std::int32_t tag, std::uint32_t context,
                             const char* function) {
    return p2p(WaitKind::receive, api, peer, tag, context, function);
  }
  // Requests completing, the oldest incomplete one described by `oldest`
  // (a send, receive or collective record); request_unknown() when it is
  // none of those (a generalized request).
  static BlockedCall request(const BlockedCall& oldest, const char* function) {
    BlockedCall b = oldest;
    b.of = oldest.kind;
    b.kind = WaitKind::request;
    b.function = function;
    b.crowd = false;
    b.turn = Turn::none;
    return b;
  }
  static BlockedCall request_unknown(WaitApi api, const char* function) {
    BlockedCall b(WaitKind::request, api, function);
    b.of = WaitKind::none;
    return b;
  }
  // A collective call on its communicator; root a world rank, -1 for none.
  static BlockedCall collective(WaitApi api, const Collective& call, std::int32_t root, const char* function) {
    BlockedCall b(WaitKind::collective, api, function);
    b.coll = call.kind;
    b.context = call.context;
    b.epoch = call.epoch;
    b.seq = call.seq;
    b.root = root;
    b.track = call.track;
    return b;
  }
  // RMA synchronisation with peer (kAnySource: the window's whole group).
  static BlockedCall rma_sync(WaitApi api, std::int32_t peer, std::uint32_t context, shm::RmaWait what,
                              const char* function) {
    return p2p(WaitKind::rma_sync, api, peer, static_cast<std::int32_t>(what), context, function);
  }
  // A SHMEM wait on this PE's memory, for a write by any PE.
  static BlockedCall shmem_wait(const char* function) {
    return p2p(WaitKind::shmem_wait, WaitApi::shmem, kAnySource, kAnyTag, 0, function);
  }
  // An MPF conversation `conversation` waiting for peer's next message.
  static BlockedCall conversation(std::int32_t peer, std::int32_t conversation, std::uint32_t context,
                                  const char* function) {
    return p2p(WaitKind::conversation, WaitApi::mpf, peer, conversation, context, function);
  }
  // Finalize, or the runtime's fence: every other rank must arrive.
  static BlockedCall finalize(WaitApi api, const char* function) {
    return BlockedCall(WaitKind::finalize, api, function);
  }

  const char* function;  // display text: "MPI_Recv", ...
  WaitKind kind;
  WaitApi api;
  WaitKind of = WaitKind::none;  // request: the oldest incomplete request's kind
  CollKind coll = CollKind::none;
  // The world rank waited for (kAnySource: any); a collective's driver
  // sets it to the member its current step waits for (coll::Task::run).
  std::int32_t peer = kAnySource;
  std::int32_t tag = kAnyTag;
  std::uint32_t context = 0;
  std::uint32_t epoch = 0;
  std::uint32_t seq = 0;
  std::int32_t root = -1;  // collectives with a root: its world rank
  // The wait ends only after most of the job's ranks have run (a flat
  // collective on the board): with more ranks than CPUs the rank yields
  // at once, without polling first and without taking a yield slot: every
  // rank it yields to has work, and sleeping would cost each a wake-up.
  bool crowd = false;
  Turn turn = Turn::none;
  // A collective's communicator count (CollectiveLog::publish shows it).
  CollectiveTrack* track = nullptr;

 private:
  BlockedCall(WaitKind k, WaitApi a, const char* f) : function(f), kind(k), api(a) {}
  static BlockedCall p2p(WaitKind k, WaitApi api, std::int32_t peer, std::int32_t tag, std::uint32_t context,
                         const char* function) {
    BlockedCall b(k, api, function);
    b.peer = peer;
    b.tag = tag;
    b.context = context;
    return b;
  }
};

class CollectiveLog;

// A communicator's (or a group's) collective count as the rank keeps it,
// beside the communicator; CollectiveLog publishes it. Counting a call is
// two increments here and nothing else: the shared table is written only
// when the rank shows a wait (CollectiveLog::publish), so a collective's
// data path touches no extra cache line.
struct CollectiveTrack {
  CollectiveTrack() = default;
  // A copy is another communicator's count, not yet in the log.
  CollectiveTrack(const CollectiveTrack& other)
      : started(other.started), completed(other.completed), kinds(other.kinds) {}
  CollectiveTrack& operator=(const CollectiveTrack&) = delete;
  inline ~CollectiveTrack();

  // What a call touches, first.
  std::uint32_t started = 0;
  std::uint32_t completed = 0;
  std::uint32_t kinds = 0;       // as shm::CommRecord::kinds
  std::uint32_t slot = ~0u;      // its entry in the log
  // What the log shows of it, while it has an entry there.
  std::uint32_t context = 0;
  std::uint32_t epoch = 0;
  std::uint32_t size = 0;
  std::int32_t rank = 0;
  CollectiveLog* log = nullptr;  // the log it has an entry in
  std::uint64_t last_shown = 0;  // when its entry was last written (the log's clock)
};

// The writer of a rank's shm::CommRecord table: one entry per communicator,
// for the kCommRecords shown last. A communicator takes an entry when it
// is created (show) and again whenever it is waited in; the entry shown
// longest ago gives way. The counts are copied into the table when the
// rank publishes a wait (publish), the only time a reader needs them: an
// inspector looks at a job whose ranks wait.
class CollectiveLog {
 public:
  CollectiveLog() = default;
  CollectiveLog(const CollectiveLog&) = delete;
  CollectiveLog& operator=(const CollectiveLog&) = delete;
  ~CollectiveLog() {
    for (CollectiveTrack*& t : tracks_) {
      if (t != nullptr) t->log = nullptr;
    }
  }

  void init(shm::Introspection& block) {
    records_ = block.comms;
    for (CollectiveTrack*& t : tracks_) {
      if (t != nullptr) t->log = nullptr;
      t = nullptr;
    }
  }

  // Shows the communicator (context, epoch) of `size` members, this rank
  // `rank` among them (a new communicator, or one being waited in).
  void show(CollectiveTrack& track, std::uint32_t context, std::uint32_t epoch, std::uint32_t size, std::int32_t rank);
  // A collective call starts: returns its number there.
  static std::uint32_t started(CollectiveTrack& track, CollKind kind, bool nonblocking) {
    const std::uint32_t seq = ++track.started;
    const unsigned shift = 8 * (seq % shm::kKindsKept);
    const std::uint32_t byte = static_cast<std::uint8_t>(kind) | (nonblocking ? shm::kNonblockingKind : 0u);
    track.kinds = (track.kinds & ~(0xffu << shift)) | (byte << shift);
    return seq;
  }
  // A collective call on it has completed.
  static void completed(CollectiveTrack& track) { ++track.completed; }
  // Copies every shown communicator's counts into the table (slow path:
  // when the rank shows a wait), `waited` first given an entry if it lost
  // its own.
  void publish(CollectiveTrack* waited);
  // The track is going away (its communicator freed).
  void forget(CollectiveTrack& track) {
    if (track.slot < shm::kCommRecords && tracks_[track.slot] == &track) {
      tracks_[track.slot] = nullptr;
      if (records_ != nullptr) records_[track.slot].size.store(0, std::memory_order_release);
    }
    track.log = nullptr;
    track.slot = ~0u;
  }

 private:
  void write(std::uint32_t slot, const CollectiveTrack& track);

  shm::CommRecord* records_ = nullptr;
  CollectiveTrack* tracks_[shm::kCommRecords] = {};
  std::uint64_t clock_ = 0;
};

inline CollectiveTrack::~CollectiveTrack() {
  if (log != nullptr) log->forget(*this);
}

}  // namespace mpf::progress
