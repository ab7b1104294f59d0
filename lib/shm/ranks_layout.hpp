// The segment's "ranks" region: what every rank of the node shares about
// itself and about waiting. Every job has it (Segment caches it).
//
//   [RanksHeader]        the region's geometry
//   [NodeWaiting]        the node's shared waiting state (yield slots, sleepers)
//   [RankControl x n]    per rank: lifecycle, doorbell, counters
//   [Introspection x n]  per rank: what it waits in and its queues (seqlock)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/futex.hpp"
#include "shm/introspection.hpp"
#include "shm/region.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::shm {

// Places in the node's queue of sleepers (NodeWaiting).
inline constexpr std::uint32_t kSleepTicketPlaces = 256;

// Lifecycle of a rank as its own process records it; mpfrun reads it when the
// process exits to tell a clean exit from one that skipped MPI_Finalize.
enum class RankState : std::uint32_t {
  launched = 0,     // started by mpfrun; the runtime has not initialised (yet)
  initialized = 1,  // MPI_Init (or shmem_init, mpf_init) completed
  finalized = 2,    // MPI_Finalize completed
  aborted = 3,      // MPI_Abort was called; abort_code holds the code
};

// The state's name in reports (mpfrun --report, mpfinspect --json).
inline const char* to_string(RankState state) {
  switch (state) {
    case RankState::launched: return "not_initialized";
    case RankState::initialized: return "initialized";
    case RankState::finalized: return "finalized";
    case RankState::aborted: return "aborted";
  }
  return "unknown";
}

// The node's shared waiting state, the mutable part of what all ranks share.
// Accessed with std::atomic_ref (the struct stays trivially copyable).
struct alignas(kCacheLine) NodeWaiting {
  // Cache line 0: when ranks outnumber CPUs, at most as many waiting ranks
  // as the node has yield slots (YieldSlots::slots_for: every rank, or
  // yielders_per_cpu x ncpus) keep yielding instead of sleeping (the
  // engine's yield slots, progress/yield_slots.hpp): a CPU with a yielding
  // rank is never idle, so a rank woken there runs after a context switch
  // instead of waiting for an idle CPU to wake up (tens of microseconds on
  // a virtual machine), and a message for a yielding rank needs no wake-up
  // at all. A slot whose holder's wait ends goes to the rank that has slept
  // longest (the queue below), the likeliest to be handed work next.
  std::uint32_t yield_slots_taken;
  // Ranks in (or on their way into) a futex sleep: a rank that would wake
  // every rank (coll::Board) reads this one word instead of every rank's
  // `sleeping` flag when it is 0, the common case.
  std::uint32_t sleepers;
  // Ranks in a deferred sleep (kSleepsDeferred), not counted in `sleepers`:
  // a rank that waits for anything else wakes them (Transport::
  // wake_deferred) when this is not 0.
  std::uint32_t deferred_sleepers;
  // Cache lines 1-2: the queue of sleepers, by ticket. A rank going to
  // sleep takes the next ticket and writes its rank at that ticket's place
  // in sleep_ticket_owners; a slot passed on goes to the oldest ticket whose
  // rank still sleeps on it (RankControl::sleep_ticket). A place reused
  // before it was read only means a sleeper is not picked.
  alignas(kCacheLine) std::uint64_t sleep_tickets_next;
  alignas(kCacheLine) std::uint64_t sleep_tickets_oldest;  // tickets below were passed over
  alignas(kCacheLine) std::uint32_t sleep_ticket_owners[kSleepTicketPlaces];
};
static_assert(sizeof(NodeWaiting) == 3 * kCacheLine + kSleepTicketPlaces * sizeof(std::uint32_t));

// Counters a rank publishes about its own communication. Single writer (the
// rank), relaxed atomics: readers (mpfrun's report, mpfinspect) only need each
// value to be untorn, not a snapshot across counters. The writer bumps them
// with count() below: a load and a store, not a locked read-modify-write,
// which its single writer does not need.
struct RankCounters {
  std::atomic<std::uint64_t> pmix_puts;     // wire-up key/value pairs published
  std::atomic<std::uint64_t> pmix_gets;     // wire-up key/value pairs read from peers
  std::atomic<std::uint64_t> pmix_fences;   // wire-up fences completed
  std::atomic<std::uint64_t> init_ns;       // time spent in runtime initialisation
  std::atomic<std::uint64_t> finalize_ns;   // time spent in runtime finalisation
  // Messages sent, and their payload bytes, per protocol.
  std::atomic<std::uint64_t> short_sent, short_bytes;
  std::atomic<std::uint64_t> eager_sent, eager_bytes;
  std::atomic<std::uint64_t> rndv_sent, rndv_bytes;
  std::atomic<std::uint64_t> received, received_bytes;
  std::atomic<std::uint64_t> unexpected;          // messages that arrived before their receive
  std::atomic<std::uint64_t> unexpected_hwm_bytes; // high-water mark of the unexpected pool
  std::atomic<std::uint64_t> flow_stalls;          // sends held back: ring full, no eager buffer, peer's pool full
  std::atomic<std::uint64_t> sleeps;               // times the rank slept on its futex
  std::atomic<std::uint64_t> wakeups_sent;         // futex wakes this rank issued to sleeping peers
  std::atomic<std::uint64_t> turn_sleeps;          // deferred sleeps (kSleepsDeferred): a far turn's
  std::atomic<std::uint64_t> turn_timeouts;        // those that nobody woke (ended by their time limit)
  // One-sided communication (lib/mpi/win_*.cpp).
  std::atomic<std::uint64_t> rma_operations;       // RMA operations issued
  std::atomic<std::uint64_t> rma_applied;          // RMA operations this rank's engine applied for origins
  std::atomic<std::uint64_t> rma_types_sent;       // datatype layouts sent to targets with an operation
  std::atomic<std::uint64_t> rma_type_cache_hits;  // operations whose datatype the target had cached
  // MPF conversations (lib/mpf).
  std::atomic<std::uint64_t> mpf_sent, mpf_sent_bytes;          // messages sent, and their bytes
  std::atomic<std::uint64_t> mpf_received, mpf_received_bytes;  // messages received, and their bytes
  std::atomic<std::uint64_t> mpf_full_waits;                    // sends that waited for room in a full queue
  // OpenSHMEM (lib/shmem): puts and gets (signals' puts included) and
  // their bytes, atomics by kind, signals, and the accesses that reached
  // another PE's global or static variables by Cross Memory Attach.
  std::atomic<std::uint64_t> shmem_puts, shmem_put_bytes;
  std::atomic<std::uint64_t> shmem_gets, shmem_get_bytes;
  std::atomic<std::uint64_t> shmem_amo_fetch, shmem_amo_set, shmem_amo_swap, shmem_amo_compare_swap;
  std::atomic<std::uint64_t> shmem_amo_add, shmem_amo_bitwise;
  std::atomic<std::uint64_t> shmem_signals;
  std::atomic<std::uint64_t> shmem_static_accesses;
};

// Adds `n` to a counter that only the calling rank writes.
inline void count(std::atomic<std::uint64_t>& counter, std::uint64_t n = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

// RankControl::sleep_ticket of a sleeper that has been handed a yield slot.
inline constexpr std::uint64_t kPromotedTicket = ~std::uint64_t{0};

// Why a rank sleeps (RankControl::sleeping; 0 while it is awake). A peer
// that hands it work (a packet, a fin, a collective's data) wakes any
// sleeper. A peer that only frees room (ring slots it drained, an eager
// buffer it copied out of, a collective cell or slot it read) wakes a rank
// that waits for room, and no other: in a token ring every receiver drains
// a sleeping sender, and waking it for nothing cost a second wake-up and
// context switch per hop.
enum SleepReason : std::uint32_t {
  kSleepsForWork = 1,  // waits for messages or data only
  kSleepsForRoom = 2,  // some of its sends or collective steps wait for room, too
  // Waits for a broadcast of a rotating root whose turn is far off
  // (coll::Board's turns): only the root a few turns before its own, or a
  // rank that waits for something else, wakes it; a timed sleep, in case
  // neither comes.
  kSleepsDeferred = 3,
};

// One per rank. Cache line 0: lifecycle, written by the rank, read by mpfrun
// and mpfinspect. Cache line 1: the rank's wake-up word, written by peers.
// Cache lines 2-7: counters, written by the rank.
struct alignas(kCacheLine) RankControl {
  std::atomic<std::uint32_t> state;  // RankState
  std::int32_t pid;                  // written by the rank at attach
  std::atomic<std::int32_t> abort_code;
  // Set once when the kernel refused Cross Memory Attach (errno of the
  // refusal, EPERM): large messages of this rank then take two copies.
  std::atomic<std::int32_t> cma_refused_errno;
  // 1 while the rank waits in its progress engine (polling, yielding or
  // about to sleep): what it is handed now is served soon (rma/mailbox.hpp).
  std::atomic<std::uint32_t> polling;
  std::uint32_t reserved[11];
  // Eventcount for sleeping (SPEC §2 Waiting): the rank sets `sleeping`
  // (a SleepReason), re-checks for work, then futex-waits on `doorbell`; a
  // peer that hands it work bumps `doorbell` and wakes it when it sees
  // `sleeping`, one that frees room only when the rank waits for room.
  alignas(kCacheLine) std::atomic<std::uint32_t> doorbell;
  std::atomic<std::uint32_t> sleeping;
  // The rank's place in the queue of sleepers (NodeWaiting): 0 when it
  // has none, kPromotedTicket when a rank passed it a yield slot, else its
  // ticket + 1. Written by the rank and, once, by the rank that promotes it.
  std::atomic<std::uint64_t> sleep_ticket;
  alignas(kCacheLine) RankCounters counters;
};
static_assert(offsetof(RankControl, doorbell) == kCacheLine);
static_assert(offsetof(RankControl, counters) == 2 * kCacheLine);
static_assert(sizeof(RankControl) == 8 * kCacheLine);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free && std::atomic<std::uint64_t>::is_always_lock_free,
              "segment atomics must be lock-free to work across processes");

// Wakes `sleeper` whatever it sleeps for, or makes its next sleep end at
// once: bumps its doorbell and wakes its futex. Counted in `waker`'s
// counters (the calling rank's).
inline void ring_doorbell(RankControl& sleeper, RankControl& waker) {
  sleeper.doorbell.fetch_add(1, std::memory_order_seq_cst);
  common::futex_wake(sleeper.doorbell);
  count(waker.counters.wakeups_sent);
}

// A view of the ranks region.
class RanksLayout {
 public:
  static constexpr std::string_view kName = "ranks";
  // 2: typed wait records in the introspection snapshots; 3: MPF counters;
  // 4: OpenSHMEM counters.
  static constexpr std::uint32_t kVersion = 4;
  static RegionSpec spec();

  RanksLayout() = default;
  // Checks the region's geometry against its size and the job's rank count.
  RanksLayout(const Region& region, std::uint32_t nranks);

  RankControl& rank(std::uint32_t r) const { return control_[r]; }
  Introspection& introspection(std::uint32_t r) const { return introspection_[r]; }
  NodeWaiting& waiting() const { return *waiting_; }

 private:
  struct Header {
    std::uint32_t nranks;
    std::uint32_t introspection_bytes;  // sizeof(Introspection) of the build that wrote it
    std::uint64_t waiting_offset;
    std::uint64_t control_offset;
    std::uint64_t introspection_offset;
  };
  static_assert(sizeof(Header) == 32, "the region's header is a wire format: change kVersion with it");
  static std::uint64_t bytes_for(std::uint32_t nranks);
  NodeWaiting* waiting_ = nullptr;
  RankControl* control_ = nullptr;
  Introspection* introspection_ = nullptr;
};

}  // namespace mpf::shm
