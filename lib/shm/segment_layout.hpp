// The node's shared segment as a wire format (SPEC §2 "Shared segment").
//
// mpfrun creates one segment per job on each node before it starts the ranks
// (an anonymous memfd: nothing of it can be left in /dev/shm) and passes its
// file descriptor to every rank; mpfinspect maps it read-only through
// /proc/<mpfrun pid>/fd/<fd>. Everything in it is reached by offsets from the
// segment's start, never by pointers, because each process maps it at its own
// address. The version comes first so that a reader of another build refuses a
// layout it does not know instead of misreading it.
//
//   [SegmentHeader]            written once by the creator, read-only afterwards
//   [RankControl x nranks]     one cache-line-aligned block per rank
//   [Inbox x nranks]           per receiver: which senders have packets pending
//   [Introspection x nranks]   per rank: blocked call and queues, under a seqlock
//   [credits nranks x nranks]  pair (s -> r) at credits_offset + r*row + s*8: data
//                              messages of s that r has matched (written by r);
//                              row = nranks*8 rounded up to a cache line
//   [rings nranks x nranks]    ring (s -> r) at rings_offset + (r*nranks + s)*ring_stride
//   [eager pools x nranks]     per sender: eager_cells buffers of eager_cell_bytes
//   [collective slots x nranks] per rank: the slot it publishes collective data in
//   [collective cells nranks x nranks x 2] pair (s -> r): two MailCells of
//                              cell_bytes at cells_offset + ((r*nranks + s)*2 + i)*cell_bytes
//   [cell acks nranks x nranks] pair (s -> r) at cell_acks_offset + r*row + s*8:
//                              cells of s that r has taken (written by r)
//   [split copies nranks x nranks x 4] pair (s -> r): SplitCopy i at
//                              splits_offset + ((r*nranks + s)*4 + i)*64
//   [board]                    MPI_COMM_WORLD's flat collectives (BoardHeader,
//                              then board_entries(nranks) entries and 2 x (nranks + 1)
//                              rows, each a BoardStamp and kBoardDataBytes, then
//                              the stage: a BoardStamp and board_stage_bytes,
//                              then two sums: SumPieces and board_stage_bytes each)
//   [tunables JSON text]       the job's resolved tunables (Tunables::to_json)
//
// Memory: at 64 ranks with the default tunables the rings take 17 MiB and the
// eager pools 16 MiB, the collective slots 2 MiB, the collective cells
// 2 MiB, the split copies 1 MiB, the board 1.5 MiB, its stage 1 MiB and
// its sums 2 MiB (pages of these are touched only when ranks outnumber CPUs
// and a large collective uses them); everything else is a few hundred KiB.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpf::shm {

inline constexpr std::uint32_t kSegmentMagic = 0x5346504d;  // "MPFS", little-endian
inline constexpr std::uint32_t kLayoutVersion = 16;
// Places in the segment header's queue of sleepers (SegmentHeader).
inline constexpr std::uint32_t kSleepTicketPlaces = 256;
inline constexpr std::size_t kCacheLine = 64;

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

// Cache lines 0-3. Written by mpfrun before the first fork; immutable while
// ranks run, so readers need no synchronisation beyond the fork/exec itself.
// Cache lines 4 and on are the node's shared waiting state, the mutable part.
struct alignas(kCacheLine) SegmentHeader {
  std::uint32_t magic;
  std::uint32_t layout_version;
  std::uint64_t segment_bytes;
  std::uint32_t nranks;
  std::uint32_t ncpus;           // CPUs the job may run on (mpfrun's affinity mask)
  std::uint32_t oversubscribed;  // 1 when nranks > ncpus: waiting ranks must block, not spin
  std::uint32_t board_stage_bytes;  // data bytes of the board's stage (the coll_board_stage tunable)
  std::uint64_t rank_control_offset;
  std::uint64_t rank_control_stride;
  std::uint64_t tunables_offset;  // UTF-8 JSON text, not NUL-terminated
  std::uint64_t tunables_bytes;
  std::int64_t start_unix_ns;     // when mpfrun created the job
  char jobid[32];                 // NUL-terminated
  std::uint64_t splits_offset;    // the split copies (SplitCopy)
  std::uint64_t board_offset;     // the board (BoardHeader)
  // Cache line 2: the shared-memory transport's geometry.
  alignas(kCacheLine) std::uint64_t inbox_offset;
  std::uint64_t inbox_stride;
  std::uint64_t rings_offset;
  std::uint64_t ring_stride;        // bytes of one ring (header and slots)
  std::uint64_t eager_offset;
  std::uint64_t eager_pool_stride;  // bytes of one rank's eager pool
  std::uint32_t ring_slots;
  std::uint32_t eager_cells;
  std::uint32_t eager_cell_bytes;   // payload bytes of one eager cell
  std::uint32_t eager_small_cells;  // after the eager cells of a pool: cells of kSmallCellBytes
  // Cache line 3: introspection, flow control and collective slots.
  alignas(kCacheLine) std::uint64_t introspection_offset;
  std::uint64_t introspection_stride;
  std::uint64_t credits_offset;
  std::uint64_t coll_offset;
  std::uint64_t coll_stride;      // bytes of one rank's slot: CollSlot, then coll_bytes of data
  std::uint32_t coll_bytes;       // data bytes of one slot (the coll_buffer tunable)
  std::uint32_t cell_bytes;       // bytes of one collective cell (MailCell and its data)
  std::uint64_t cells_offset;
  std::uint64_t cell_acks_offset;
  // Cache line 4: when ranks outnumber CPUs, at most as many waiting ranks
  // as the node has yield slots (YieldSlots::slots_for: every rank, or
  // yielders_per_cpu x ncpus) keep yielding instead of sleeping (the
  // engine's yield slots, progress/yield_slots.hpp): a CPU with a yielding
  // rank is never idle, so a rank woken there runs after a context switch
  // instead of waiting for an idle CPU to wake up (tens of microseconds on
  // a virtual machine), and a message for a yielding rank needs no wake-up
  // at all. A slot whose holder's wait ends goes to the rank that has slept
  // longest (the queue below), the likeliest to be handed work next.
  // Accessed with std::atomic_ref (the header stays trivially copyable).
  alignas(kCacheLine) std::uint32_t yield_slots_taken;
  // Ranks in (or on their way into) a futex sleep: a rank that would wake
  // every rank (coll::Board) reads this one word instead of every rank's
  // `sleeping` flag when it is 0, the common case.
  std::uint32_t sleepers;
  // Ranks in a deferred sleep (kSleepsDeferred), not counted in `sleepers`:
  // a rank that waits for anything else wakes them (Transport::
  // wake_deferred) when this is not 0.
  std::uint32_t deferred_sleepers;
  // Cache lines 5-6: the queue of sleepers, by ticket. A rank going to
  // sleep takes the next ticket and writes its rank at that ticket's place
  // in sleep_ticket_owners; a slot passed on goes to the oldest ticket whose
  // rank still sleeps on it (RankControl::sleep_ticket). A place reused
  // before it was read only means a sleeper is not picked.
  alignas(kCacheLine) std::uint64_t sleep_tickets_next;
  alignas(kCacheLine) std::uint64_t sleep_tickets_oldest;  // tickets below were passed over
  alignas(kCacheLine) std::uint32_t sleep_ticket_owners[kSleepTicketPlaces];
};
static_assert(sizeof(SegmentHeader) == 7 * kCacheLine + kSleepTicketPlaces * sizeof(std::uint32_t));
static_assert(offsetof(SegmentHeader, inbox_offset) == 2 * kCacheLine);
static_assert(offsetof(SegmentHeader, introspection_offset) == 3 * kCacheLine);
static_assert(offsetof(SegmentHeader, magic) == 0 && offsetof(SegmentHeader, layout_version) == 4,
              "magic and version must stay first: every reader checks them before anything else");

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
// Cache lines 2-4: counters, written by the rank.
struct alignas(kCacheLine) RankControl {
  std::atomic<std::uint32_t> state;  // RankState
  std::int32_t pid;                  // written by the rank at attach
  std::atomic<std::int32_t> abort_code;
  // Set once when the kernel refused Cross Memory Attach (errno of the
  // refusal, EPERM): large messages of this rank then take two copies.
  std::atomic<std::int32_t> cma_refused_errno;
  std::uint32_t reserved[12];
  // Eventcount for sleeping (SPEC §2 Waiting): the rank sets `sleeping`
  // (a SleepReason), re-checks for work, then futex-waits on `doorbell`; a
  // peer that hands it work bumps `doorbell` and wakes it when it sees
  // `sleeping`, one that frees room only when the rank waits for room.
  alignas(kCacheLine) std::atomic<std::uint32_t> doorbell;
  std::atomic<std::uint32_t> sleeping;
  // The rank's place in the queue of sleepers (SegmentHeader): 0 when it
  // has none, kPromotedTicket when a rank passed it a yield slot, else its
  // ticket + 1. Written by the rank and, once, by the rank that promotes it.
  std::atomic<std::uint64_t> sleep_ticket;
  alignas(kCacheLine) RankCounters counters;
};
static_assert(offsetof(RankControl, doorbell) == kCacheLine);
static_assert(offsetof(RankControl, counters) == 2 * kCacheLine);
static_assert(sizeof(RankControl) == 5 * kCacheLine);

// Per receiver, at inbox_offset + r * inbox_stride: a bitmap of
// inbox_words(nranks) atomic 64-bit words. Sender s sets bit s after it
// publishes a packet in ring (s -> r), so a poll looks only at rings with
// packets instead of scanning every peer.
inline constexpr std::size_t inbox_words(std::uint32_t nranks) { return (nranks + 63) / 64; }

// A large message that both ends copy at once (rndv_mode=split, see
// progress/engine.hpp): the message is cut into chunks; the receiver claims
// chunks from the front and reads them with CMA, the sender claims them from
// the back and writes them, until the two meet. One claim is one
// compare-and-swap on `claims`; after copying a chunk each end adds its bytes
// to `done`, and the message has arrived when `done` is its size. The
// receiver owns the SplitCopy objects of each pair (sender -> receiver): it
// sets one up when it matches the request-to-send and reuses it only after
// the sender's fin says the sender no longer looks at it.
inline constexpr std::uint32_t kSplitsPerPair = 4;
struct alignas(kCacheLine) SplitCopy {
  std::atomic<std::uint64_t> claims;  // low 32 bits: next front chunk; high 32: end of the back chunks
  std::atomic<std::uint64_t> done;    // bytes copied, by either end
};
static_assert(sizeof(SplitCopy) == kCacheLine);

// Header of an eager cell, in its own cache line; the payload follows.
// The sending rank owns the cell: it sets `busy` when it fills the cell and
// the receiver clears it (release) once it has copied the data out.
struct alignas(kCacheLine) EagerCell {
  std::atomic<std::uint32_t> busy;
};
static_assert(sizeof(EagerCell) == kCacheLine);
// A rank's eager pool: eager_cells cells of eager_cell_bytes, then
// eager_small_cells cells of kSmallCellBytes for messages that fit.
inline constexpr std::uint32_t kSmallCellBytes = 1024;
inline constexpr std::uint64_t kSmallCellStride = sizeof(EagerCell) + kSmallCellBytes;
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<std::uint64_t>::is_always_lock_free,
              "segment atomics must be lock-free to work across processes");

// A rank's collective slot (seed 002 §3.3: collectives over dedicated slots,
// not over point-to-point messages). The owner publishes a step of a
// collective in it: a table of pieces, each addressed to one consumer (or to
// every consumer), and their data; consumers copy their pieces out and
// count themselves in `consumed`. The owner rewrites the slot only when every
// consumer of the previous step has done so, and readers validate what they
// read with `version` (a seqlock: odd while the owner writes), because a rank
// that is not a consumer may look at a step before it knows that.
inline constexpr std::uint32_t kCollPieces = 64;

struct CollPiece {
  std::int32_t dest;      // the consumer's world rank, or -1 for every consumer
  std::uint32_t bytes;
  std::uint64_t offset;   // where the piece goes in the consumer's block
  std::uint32_t data_at;  // where its data is in the slot's data area
  std::uint32_t reserved;
};

struct alignas(kCacheLine) CollSlot {
  std::atomic<std::uint32_t> version;
  std::uint32_t context;  // which collective: the communicator's context id,
  std::uint32_t seq;      // its collective call count,
  std::uint32_t step;     // and the step within the call;
  std::uint32_t kind;     // what the call is (coll::Key)
  std::int32_t root;
  std::uint32_t pieces;
  alignas(kCacheLine) std::atomic<std::uint64_t> consumed;  // written by consumers
  alignas(kCacheLine) CollPiece piece[kCollPieces];
  // the data area follows (coll_bytes)
};
static_assert(sizeof(CollSlot) % kCacheLine == 0);

// A collective cell (seed 002 §3.3's per-pair protocol slots): small
// collective messages go from one rank to another through a pair of cells
// that only the sender writes and only the receiver reads, so a message
// costs one cache-line transfer, where the slot's table, version and
// counter cost several. Messages of a pair are numbered from 1; message n
// goes in cell n % 2, and the sender writes it only after the receiver has
// taken message n - 2. The receiver's count of taken messages is in the
// cell acks, and also in every message it posts back (`taken`): when
// messages go both ways, as in a barrier, the sender learns it from the
// cells it reads anyway, without a cache miss on the ack. `stamp` is
// stored last (release): a cell holds message n once its stamp reads n.
inline constexpr std::uint32_t kCellsPerPair = 2;

struct alignas(kCacheLine) MailCell {
  std::atomic<std::uint64_t> stamp;
  std::uint32_t context;  // which collective (coll::Key) and step:
  std::uint32_t seq;      // a receiver takes only the message it expects,
  std::int32_t root;      // so mismatched calls wait (and mpfinspect names
  std::uint32_t step;     // them) instead of mixing their data
  std::uint16_t kind;
  std::uint16_t bytes;    // of data, which starts at `data`
  // The low 32 bits of the count of messages of the pair (receiver ->
  // sender) that the sender had taken: the receiver has at most
  // kCellsPerPair messages of its own not yet taken, so it finds the rest.
  std::uint32_t taken;
  std::byte data[kCacheLine - 32];
  // the rest of the cell's data follows (cell_bytes - sizeof(MailCell))
};
static_assert(sizeof(MailCell) == kCacheLine && offsetof(MailCell, data) == 32);

// The board: a shared area through which all ranks of MPI_COMM_WORLD run
// flat collectives when they outnumber the CPUs (coll/board.hpp). Two kinds
// of use:
//   rows     a collective call (barrier, reduction, all-to-all round) in
//            which every rank writes its row, counts itself in `arrived`,
//            and waits for `released`; the last to arrive finishes the call
//            (combines the rows into the result row) and releases it. Calls
//            are numbered from 1; call c uses the rows of parity c % 2.
//   entries  a ring of board_entries(nranks) broadcast entries: the root
//            writes one, the others copy it out and count down `remaining`;
//            a root reuses an entry once that is zero.
//   stage    one large entry (board_stage_bytes) for data that would take
//            many entries: a large Bcast's message, the result of a large
//            Reduce or Allreduce. Used like an entry (stamp, remaining,
//            waiter), except that a reduction's pieces write its data
//            before the last to arrive stamps it.
//   sums     two vectors of board_stage_bytes, used in turn, into which a
//            large reduction with a commutative operation adds every
//            rank's input, piece by piece: in whatever order the ranks get
//            a CPU when the order does not change the result (an exact
//            operation), else in rank order (coll::Board::add_to_sum).
inline constexpr std::uint32_t kBoardEntriesMin = 16;
// The ring's entries: one per rank, and at least kBoardEntriesMin. In a run
// of Bcasts with rotating roots a rank sleeps until its turn comes near
// (coll/board.hpp), up to nranks - 2 calls; with fewer entries than that,
// roots would wait for it to copy out the oldest.
inline constexpr std::uint32_t board_entries(std::uint64_t nranks) {
  return nranks > kBoardEntriesMin ? static_cast<std::uint32_t>(nranks) : kBoardEntriesMin;
}
inline constexpr std::uint32_t kBoardDataBytes = 8192;  // data of one row or entry

struct alignas(kCacheLine) BoardHeader {
  std::atomic<std::uint64_t> arrived;                       // arrivals at row calls, all calls together
  alignas(kCacheLine) std::atomic<std::uint64_t> released;  // the last row call every rank arrived at
};
static_assert(sizeof(BoardHeader) == 2 * kCacheLine);

// Head of a row or an entry; kBoardDataBytes of data follow it.
struct alignas(kCacheLine) BoardStamp {
  std::atomic<std::uint64_t> stamp;      // entry: the broadcast number it holds
  std::atomic<std::uint32_t> remaining;  // entry: ranks yet to copy it out
  std::atomic<std::uint32_t> waiter;     // entry: world rank + 1 of a root waiting for it, 0 none
  std::uint32_t context, seq, kind;      // the collective's key (coll::Key), so that ranks in
  std::int32_t root;                     // different calls are told apart, not mixed
  std::uint32_t bytes;
};
static_assert(sizeof(BoardStamp) == kCacheLine);
inline constexpr std::size_t kBoardStride = sizeof(BoardStamp) + kBoardDataBytes;

inline constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// A sum's pieces are at least this long; each has a SumPiece at the head of
// the sum, which says who may add to it.
inline constexpr std::uint32_t kSumPieceMin = 4096;
struct alignas(kCacheLine) SumPiece {
  // (use << 32) | (added << 1) | held: the sum's use (its low 32 bits) that
  // last wrote the piece, how many ranks have added to it in that use, and
  // whether a rank is adding to it now. A word of an older use counts as
  // nothing added, so a sum needs no clearing between uses.
  std::atomic<std::uint64_t> state;
};
static_assert(sizeof(SumPiece) == kCacheLine);
inline constexpr std::uint64_t sum_pieces(std::uint64_t sum_bytes) {
  return (sum_bytes + kSumPieceMin - 1) / kSumPieceMin;
}
// One sum: its pieces' words, then its data.
inline constexpr std::uint64_t board_sum_stride(std::uint64_t sum_bytes) {
  return sum_pieces(sum_bytes) * sizeof(SumPiece) + round_up(sum_bytes, kCacheLine);
}

// One receiver's row of per-sender counters (credits, cell acks), padded to
// whole cache lines: with few ranks the rows of two receivers would share
// a line that both write on every message.
inline constexpr std::size_t counter_row_bytes(std::uint64_t nranks) {
  return round_up(nranks * sizeof(std::uint64_t), kCacheLine);
}

// One cell of eager_cell_bytes (the eager_limit) in a rank's eager pool.
inline constexpr std::uint64_t eager_cell_stride(std::uint64_t eager_cell_bytes) {
  return sizeof(EagerCell) + round_up(eager_cell_bytes, kCacheLine);
}

// Entries and rows, before the stage.
inline constexpr std::uint64_t board_rows_end(std::uint64_t nranks) {
  return sizeof(BoardHeader) + (board_entries(nranks) + 2 * (nranks + 1)) * kBoardStride;
}

// The sums, after the stage (board_stage_bytes of data after its stamp).
inline constexpr std::uint64_t board_sums_offset(std::uint64_t nranks, std::uint64_t stage_bytes) {
  return board_rows_end(nranks) + sizeof(BoardStamp) + round_up(stage_bytes, kCacheLine);
}

}  // namespace mpf::shm
