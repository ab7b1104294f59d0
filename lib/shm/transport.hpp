// The shared-memory transport: how one rank reaches the others on its node
// through the job's segment (SPEC §2). Per ordered pair of ranks, a lock-free
// ring of packets (common/spsc_ring.hpp); per receiver, a bitmap of senders
// with packets pending, so a poll never scans idle peers; per sender, a pool
// of eager buffers; Cross Memory Attach for single-copy large messages; and
// each rank's doorbell, on which it sleeps when it has nothing to do.
//
// The transport moves packets and bytes; what they mean (matching,
// protocols) is the progress layer's business. Hot paths are inline in
// transport_inline.hpp; this file's .cpp holds setup and slow paths.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "shm/packet.hpp"
#include "shm/segment.hpp"
#include "shm/transport_layout.hpp"
#include "wireup/routes.hpp"

namespace mpf::shm {

// How large messages are copied between a pair of ranks, and why.
enum class CopyPath : std::uint8_t {
  cma,           // one copy with process_vm_readv / process_vm_writev
  two_copy,      // pipelined through eager buffers: the rndv_mode tunable asked for it
  cma_refused,   // pipelined through eager buffers: the kernel refused CMA (EPERM)
};

// Peers are named by world rank, as everywhere above the transports; the
// transport reaches a rank on its node through its local index (its place
// in the segment), from tables built at init out of the route table, so a
// call pays one load for the translation. Ranks on other nodes are not
// this transport's: calls naming them are errors of the caller.
class Transport {
 public:
  // Attaches this rank (routes.me()) to the segment's rings and pools.
  void init(const Segment& segment, const wireup::RouteTable& routes, bool force_two_copy);

  // This rank and the job's size, in world ranks.
  std::uint32_t rank() const { return me_; }
  std::uint32_t size() const { return nranks_; }
  // This rank's place in the node segment, and a peer's (which must be on
  // this node); the number of ranks on the node.
  std::uint32_t local_rank() const { return local_me_; }
  std::uint32_t local_of(std::uint32_t peer) const { return local_of_[peer]; }
  std::uint32_t world_of(std::uint32_t local) const { return world_of_local_[local]; }
  std::uint32_t local_size() const { return static_cast<std::uint32_t>(world_of_local_.size()); }
  RankControl& control() const { return *control_; }
  Introspection& introspection() const { return segment_->introspection(local_me_); }
  // More ranks than CPUs on this node, and how many CPUs.
  bool oversubscribed() const { return segment_->header().oversubscribed != 0; }
  std::uint32_t ncpus() const { return segment_->header().ncpus; }
  const SegmentHeader& header() const { return segment_->header(); }
  const Segment& segment() const { return *segment_; }
  // The node's count of sleeping ranks (NodeWaiting::sleepers), for
  // std::atomic_ref.
  std::uint32_t& sleepers() const { return segment_->ranks().waiting().sleepers; }
  // The node's count of ranks in a deferred sleep (kSleepsDeferred).
  std::uint32_t& deferred_sleepers() const { return segment_->ranks().waiting().deferred_sleepers; }
  // The node's shared waiting state (yield slots: progress/yield_slots.hpp).
  NodeWaiting& waiting() const { return segment_->ranks().waiting(); }
  // The transport's region of the segment.
  const TransportLayout& layout() const { return layout_; }

  // --- sending (inline) --------------------------------------------------
  // A free packet in the ring to `peer`, or null when the ring is full.
  inline Packet* try_claim(std::uint32_t peer);
  // Hands the claimed packet to `peer` and makes sure it will look.
  inline void publish(std::uint32_t peer);

  // --- eager buffers -------------------------------------------------------
  std::uint32_t cell_bytes() const { return cell_bytes_; }
  // A free cell of this rank's pool, marked busy, or -1 when all are in use.
  // Eager messages and rendezvous chunks draw from separate parts of the
  // pool: eager messages can sit unexpected at a receiver for a long time,
  // chunks never do, so a rendezvous always finds cells to stream through.
  // An eager message of at most kSmallCellBytes takes a small cell while
  // one is free.
  inline std::int32_t try_take_eager_cell(std::uint64_t message_bytes);
  inline std::int32_t try_take_chunk_cell();
  std::byte* cell_data(std::uint32_t owner, std::uint32_t cell) const {
    return layout_.eager_data(local_of_[owner], cell);
  }
  // After an eager send: brings the cell the next one will likely take
  // (the next free one in turn) into this CPU's cache for writing, for as
  // many bytes as that send had, the first time the rank waits afterwards.
  // The cell's lines were last read by a receiver; fetched while the rank
  // waits anyway, they are not fetched one by one on the next send's path
  // (2-rank ping-pong of 256 B to 16 KiB: 20-30% less time per message).
  // Only when the rank starts to wait: right after a send, a streaming
  // sender would take lines its receiver is still reading.
  void note_eager_sent(std::uint32_t bytes) { warm_bytes_ = bytes; }
  inline void warm_next_eager_cell();
  // Gives `owner`'s cell back once its data has been copied out.
  inline void release_cell(std::uint32_t owner, std::uint32_t cell);

  // --- receiving (inline) --------------------------------------------------
  // Calls on_packet(source, packet) for packets waiting from each sender, in
  // each sender's order. on_packet returns false to leave a packet where it is
  // (the receiver cannot take it yet); that sender is then skipped until
  // retry_deferred() is called. Returns the number of packets consumed.
  template <class OnPacket>
  inline std::size_t poll(OnPacket&& on_packet);
  // Deferred senders are polled again on the next poll().
  void retry_deferred() { retry_deferred_ = deferred_any_; }
  // One sender's ring, for a receive that waits for that sender only (the
  // engine's try_recv_now): its oldest packet, or null when none has
  // arrived or poll() holds the sender back; then consume() takes the packet
  // peek() returned as poll() would have taken it.
  inline const Packet* peek(std::uint32_t sender) const;
  inline void consume(std::uint32_t sender);

  // --- flow control ----------------------------------------------------------
  // Data messages this rank sent to `peer` that the peer has matched.
  std::uint64_t matched_by(std::uint32_t peer) const {
    // Acquire: the peer's match happened before we count the credit back.
    return layout_.matched(local_me_, local_of_[peer]).load(std::memory_order_acquire);
  }
  // Counts one more data message from `sender` matched here.
  void count_matched(std::uint32_t sender) {
    std::atomic<std::uint64_t>& c = layout_.matched(local_of_[sender], local_me_);
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_release);  // we are its only writer
  }

  // --- waking ----------------------------------------------------------------
  // Wakes `peer` if it sleeps: after handing it work.
  inline void wake(std::uint32_t peer);
  // The same, when the caller has just executed a full fence.
  inline void wake_after_fence(std::uint32_t peer);
  // Wakes `peer` if it sleeps waiting for room (kSleepsForRoom): after
  // freeing ring slots, an eager buffer, a collective cell or slot of it.
  inline void wake_for_room(std::uint32_t peer);
  inline void wake_for_room_after_fence(std::uint32_t peer);
  // Wakes `peer` at the next flush_wakes(), if it sleeps then. The fence a
  // wake needs waits for the caller's stores to reach the other caches;
  // deferred, it overlaps with the caller's next loads (a collective
  // posts, then looks for its peer's message: one transfer of latency
  // instead of two). The progress engine flushes at every progress() and
  // before it sleeps; whoever defers a wake flushes before it returns to
  // the application.
  inline void wake_later(std::uint32_t peer);
  // The same for wake_for_room(); a work wake due too wins.
  inline void wake_later_for_room(std::uint32_t peer);
  // Whether `peer` has said it sleeps (or is about to: it looks for work
  // once more after saying so). seq_cst, for a caller's Dekker with that.
  bool asleep(std::uint32_t peer) const { return control_of_[peer]->sleeping.load(std::memory_order_seq_cst) != 0; }
  inline void flush_wakes();
  // Wakes every rank in a deferred sleep (kSleepsDeferred): one load when
  // there is none. For a rank about to wait for something a deferred
  // sleeper may have to do.
  inline void wake_deferred();
  // Wakes `peer` whatever it sleeps for, or makes its next sleep end at
  // once: the caller has handed it a yield slot (progress/yield_slots.hpp).
  void ring_doorbell(std::uint32_t peer) { ring_doorbell(*control_of_[peer]); }
  // Something of this rank cannot go on until a peer frees room (a
  // collective cell or slot still unread): its next sleep then lets freed
  // room wake it (kSleepsForRoom). Sends held back in the progress engine
  // say so themselves (its backlog).
  void want_room() { room_wanted_ = true; }
  bool room_wanted() const { return room_wanted_; }
  void clear_room_wanted() { room_wanted_ = false; }

  // --- large messages --------------------------------------------------------
  CopyPath copy_path(std::uint32_t peer) const { return copy_path_[peer]; }
  // A CMA copy with `peer` has succeeded: the kernel lets this pair use it.
  bool cma_proven(std::uint32_t peer) const { return cma_proven_[peer] != 0; }
  // A free split copy of the pair (peer -> this rank), set up for a message
  // of `chunks` chunks whose first `copied` chunks (`copied_bytes`) this
  // rank has read already, or -1 when all are in use.
  std::int32_t try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                              std::uint64_t copied_bytes);
  // The sender is done with it (its fin arrived).
  void release_split(std::uint32_t peer, std::uint32_t split) { split_busy_[peer] &= ~(1u << split); }
  SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t split) const {
    return layout_.split_copy(local_of_[sender], local_of_[receiver], split);
  }
  // Single copies with CMA. On EPERM the pair is switched to the two-copy
  // path (reported once on stderr) and false is returned; any other failure
  // throws std::runtime_error naming the call and the error.
  bool cma_read(std::uint32_t peer, void* local, std::uint64_t remote, std::size_t bytes) {
    return cma_copy(peer, false, static_cast<std::byte*>(local), remote, bytes);
  }
  bool cma_write(std::uint32_t peer, std::uint64_t remote, const void* local, std::size_t bytes) {
    // process_vm_writev only reads the local buffer.
    return cma_copy(peer, true, static_cast<std::byte*>(const_cast<void*>(local)), remote, bytes);
  }

 private:
  void note_cma_refused(std::uint32_t peer, const char* call);
  bool cma_copy(std::uint32_t peer, bool write, std::byte* local, std::uint64_t remote, std::size_t bytes);
  template <class OnPacket>
  inline std::size_t drain(std::uint32_t sender, OnPacket& on_packet);
  // The first free cell of [first, first + count), looking from `next` on
  // in steps of `step` (< count, coprime with it: every cell is looked at).
  inline std::int32_t take_cell_of(std::uint32_t first, std::uint32_t count, std::uint32_t& next,
                                   std::uint32_t step = 1);
  // Whether an eager message of `bytes` takes a small cell while one is free.
  bool fits_small_cell(std::uint64_t bytes) const { return small_cells_ != 0 && bytes <= kSmallCellBytes; }

  // Polls of a sender's empty ring before its inbox bit is cleared.
  static constexpr std::uint32_t kIdlePollsBeforeClear = 64;

  // What a deferred wake of a peer is for: room only, or work.
  enum WakeDue : std::uint8_t { kNoWakeDue = 0, kRoomWakeDue = 1, kWorkWakeDue = 2 };
  inline void defer_wake(std::uint32_t peer, WakeDue due);
  // Bumps a sleeping rank's doorbell and wakes it.
  inline void ring_doorbell(RankControl& sleeper);

  static constexpr std::uint32_t kOffNode = ~0U;

  const Segment* segment_ = nullptr;
  TransportLayout layout_;
  std::uint32_t me_ = 0;        // world rank
  std::uint32_t local_me_ = 0;  // place in the segment
  std::uint32_t nranks_ = 0;    // world ranks
  RankControl* control_ = nullptr;
  std::atomic<std::uint64_t>* inbox_ = nullptr;  // mine: bit i for the rank of local index i
  std::size_t inbox_words_ = 0;
  // Per world rank (entries of ranks on other nodes stay empty):
  std::vector<std::uint32_t> local_of_;          // its local index, or kOffNode
  std::vector<RankControl*> control_of_;         // its control block
  std::vector<std::atomic<std::uint64_t>*> peer_inbox_word_;  // the word of its inbox that holds my bit
  std::vector<PacketRing::Producer> out_;        // ring to it
  std::vector<PacketRing::Consumer> in_;         // ring from it
  std::vector<std::uint32_t> world_of_local_;    // per local index: the world rank
  std::vector<std::uint64_t> deferred_;          // by local index: senders whose head packet we left in the ring
  std::vector<std::uint32_t> idle_polls_;        // per sender: polls that found its ring empty
  bool deferred_any_ = false;
  bool retry_deferred_ = false;
  std::uint32_t cells_ = 0;
  std::uint32_t eager_cells_ = 0;  // cells [0, eager_cells_) for eager, the rest for chunks
  std::uint32_t small_cells_ = 0;  // cells [cells_, cells_ + small_cells_): small eager messages
  std::uint32_t next_small_cell_ = 0;
  std::uint32_t small_step_ = 1;
  std::uint32_t cell_bytes_ = 0;
  std::uint32_t next_eager_cell_ = 0;
  std::uint32_t next_chunk_cell_ = 0;
  std::uint32_t warm_bytes_ = 0;  // note_eager_sent(), until warm_next_eager_cell()
  std::vector<std::uint32_t> wakes_due_;         // wake_later() peers, each once
  std::vector<std::uint8_t> wake_due_;           // per peer: a WakeDue
  bool room_wanted_ = false;
  std::vector<pid_t> peer_pid_;
  std::vector<CopyPath> copy_path_;
  std::vector<std::uint8_t> cma_proven_;   // per peer: a CMA copy succeeded
  std::vector<std::uint32_t> split_busy_;  // per sender: bit i set while split copy i is in use
  bool cma_refusal_reported_ = false;
};

}  // namespace mpf::shm

#include "shm/transport_inline.hpp"
