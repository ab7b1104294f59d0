// What a rank tells the world about itself while it runs (SPEC §2
// Introspection): what it waits for and its matching queues, in a seqlock
// that mpfinspect reads from another process without stopping the rank,
// and its collectives per communicator, in a small table of relaxed
// atomics. The counters live next to it in RankControl; ring occupancy is
// read from the rings themselves.
//
// The rank publishes its wait once the wait has lasted a little while (not
// on the fast path of a wait that completes at once) and its queues when
// it goes to sleep, so a hung job always shows both. The wait is typed
// (WaitRecord): the inspector's analysis keys on its API, kind, peer and
// collective identity; the function name in it is display text only.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/seqlock.hpp"

namespace mpf::shm {

inline constexpr std::uint32_t kListedEntries = 16;

// One posted receive or unexpected message.
struct QueueEntry {
  std::int32_t source;   // world rank, -1 for any
  std::int32_t tag;      // -1 for any
  std::uint32_t context;
  std::uint32_t protocol;  // PacketKind of an unexpected message; 0 for a posted receive
  std::uint64_t bytes;     // message size, or receive capacity
  std::int64_t since_ns;   // CLOCK_MONOTONIC (system-wide) when it was posted or arrived
};

// The API whose call waits. A new API adds its value here (and its name in
// inspect/job_state.cpp).
enum class WaitApi : std::uint8_t { none = 0, mpi = 1, shmem = 2, mpf = 3, runtime = 4 };

// What the wait needs to end, which says whom it waits for:
//   send          peer (a world rank, -1: any receiver) takes a message
//   receive       a message from peer (-1: any) with tag (-1: any) arrives
//                 (a receive or a probe)
//   request       requests complete (MPI_Wait...): `of` and the fields
//                 describe the oldest incomplete one (none: not known)
//   collective    the members of (context, epoch) enter call `seq` there
//   rma_sync      RMA synchronisation with peer (-1: the window's group);
//                 tag says what it needs from the peer (RmaWait)
//   shmem_wait    another PE writes this PE's memory (peer -1: any)
//   conversation  peer answers in MPF conversation `tag`
//   finalize      every other rank arrives (finalize, the runtime's fence)
enum class WaitKind : std::uint8_t {
  none = 0,
  send = 1,
  receive = 2,
  request = 3,
  collective = 4,
  rma_sync = 5,
  shmem_wait = 6,
  conversation = 7,
  finalize = 8,
};

// What an RMA synchronization (WaitKind::rma_sync) waits for from its
// peer; it travels in WaitRecord::tag.
enum class RmaWait : std::int32_t {
  post = 1,      // MPI_Win_start: the target's MPI_Win_post
  complete = 2,  // MPI_Win_wait: the origin's MPI_Win_complete
  lock = 3,      // MPI_Win_lock: the holders of the lock at the target
  applied = 4,   // the target's engine to apply this rank's operations (or the origin's, at a target)
};

// The operation of a collective. Forms that match one another at run time
// (MPI_Gather with MPI_Gatherv, ...) share a family (same_collective).
enum class CollKind : std::uint8_t {
  none = 0,
  barrier,
  bcast,
  reduce,
  allreduce,
  reduce_scatter,
  reduce_scatter_block,
  scan,
  exscan,
  gather,
  gatherv,
  scatter,
  scatterv,
  allgather,
  allgatherv,
  alltoall,
  alltoallv,
  alltoallw,
  neighbor_allgather,
  neighbor_allgatherv,
  neighbor_alltoall,
  neighbor_alltoallv,
  neighbor_alltoallw,
  comm_create,       // a communicator constructor: MPI_Comm_dup, _split, _create, topologies...
  intercomm_create,  // MPI_Intercomm_create, MPI_Intercomm_merge
  last = intercomm_create,
};
// A collective's kind as it sits in CommRecord::kinds: the kind, with this
// bit for a nonblocking (or persistent) start.
inline constexpr std::uint8_t kNonblockingKind = 0x80;

constexpr CollKind collective_family(CollKind k) {
  switch (k) {
    case CollKind::reduce_scatter_block: return CollKind::reduce_scatter;
    case CollKind::gatherv: return CollKind::gather;
    case CollKind::scatterv: return CollKind::scatter;
    case CollKind::allgatherv: return CollKind::allgather;
    case CollKind::alltoallv:
    case CollKind::alltoallw: return CollKind::alltoall;
    case CollKind::neighbor_allgatherv: return CollKind::neighbor_allgather;
    case CollKind::neighbor_alltoallv:
    case CollKind::neighbor_alltoallw: return CollKind::neighbor_alltoall;
    default: return k;
  }
}
// True when two ranks' calls of kinds a and b are the same collective.
constexpr bool same_collective(CollKind a, CollKind b) { return collective_family(a) == collective_family(b); }

// What a rank waits for (see WaitKind for which fields each kind uses).
struct WaitRecord {
  WaitKind kind;  // none: running its own code
  WaitApi api;
  WaitKind of;        // request: the kind of the oldest incomplete request
  CollKind coll;      // collective (or a request of one): its operation
  std::int32_t peer;  // world rank, -1 for any
  std::int32_t tag;   // -1 for any
  std::uint32_t context;
  std::uint32_t epoch;  // with context, names the communicator (a reused context id has a new epoch)
  std::uint32_t seq;    // collective: the call's number on it (1: its first collective)
  std::int32_t root;    // a collective's root (world rank), -1 when it has none
  std::uint32_t reserved;
  std::int64_t since_ns;  // CLOCK_MONOTONIC when the wait began to show
  char function[32];      // "MPI_Bcast": display text, never analysed
};
static_assert(sizeof(WaitRecord) == 72);
static_assert(offsetof(WaitRecord, since_ns) == 32);

struct RankSnapshot {
  WaitRecord wait;
  // Queues, as of published_ns.
  std::int64_t published_ns;
  std::uint32_t posted_total;
  std::uint32_t unexpected_total;
  std::uint64_t unexpected_bytes;  // pool bytes in use
  std::uint32_t backlog_total;     // sends and replies waiting for ring space
  std::uint32_t posted_listed;     // entries filled below (at most kListedEntries)
  std::uint32_t unexpected_listed;
  std::uint32_t reserved2;
  QueueEntry posted[kListedEntries];
  QueueEntry unexpected[kListedEntries];
};

// A communicator's collectives as this rank has run them: one entry of a
// rank's table (the kCommRecords communicators it used last; an entry with
// size 0 is free). Written by the rank alone, with relaxed stores, when it
// shows a wait (progress::CollectiveLog::publish: a collective call only
// counts in process memory), and read by mpfinspect without a lock: the
// counts are those of the rank's last shown wait, which for a hung rank
// (the case that matters) is the wait it hangs in. The inspector learns a communicator's members
// from the ranks whose tables hold its (context, epoch).
inline constexpr std::uint32_t kCommRecords = 8;
inline constexpr std::uint32_t kKindsKept = 4;
struct CommRecord {
  std::atomic<std::uint32_t> context;
  std::atomic<std::uint32_t> epoch;
  std::atomic<std::uint32_t> size;       // members; 0: a free entry
  std::atomic<std::int32_t> rank;        // this rank's rank in it
  std::atomic<std::uint32_t> started;    // collective calls this rank started on it
  std::atomic<std::uint32_t> completed;  // and of those, completed
  // The kinds of the last kKindsKept calls: call s (from 1) at byte
  // s % kKindsKept, a CollKind with kNonblockingKind for a nonblocking start.
  std::atomic<std::uint32_t> kinds;
  std::uint32_t reserved;
};
static_assert(sizeof(CommRecord) == 32);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

struct alignas(64) Introspection {
  common::Seqlock<RankSnapshot> snapshot;
  // Its own cache lines, written with the snapshot when a wait lasts.
  alignas(64) CommRecord comms[kCommRecords];
};

}  // namespace mpf::shm
