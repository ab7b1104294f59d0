// The shared-memory transport: how one rank reaches the others on its node
// through the job's segment (SPEC §2), an implementation of the transport
// interface (transport/interface.hpp). Per ordered pair of ranks, a
// lock-free ring of packets (common/spsc_ring.hpp); per receiver, a bitmap
// of senders with packets pending, so a poll never scans idle peers; per
// sender, a pool of eager buffers; Cross Memory Attach for single-copy
// large messages (get and put), and split copies whose counters both ends
// share; each rank's doorbell, on which it sleeps when it has nothing to do.
//
// The files, as every transport has them:
//   transport.hpp                 this class
//   transport_init.cpp            init: attaching to the segment
//   transport_endpoint.hpp        per-peer state
//   transport_msg_inline.hpp      packets, eager buffers, credits
//   transport_rma_inline.hpp,     get and put with CMA, split copies
//   transport_rma.cpp
//   transport_progress_inline.hpp polling and waking
// The segment's layout of the transport's region is transport_layout.hpp.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.hpp"
#include "progress/packet.hpp"
#include "shm/segment.hpp"
#include "shm/transport_endpoint.hpp"
#include "shm/transport_layout.hpp"
#include "transport/interface.hpp"
#include "wireup/routes.hpp"

namespace mpf::shm {

// Peers are named by world rank, as everywhere above the transports; the
// transport reaches a rank on its node through its endpoint, built at init
// out of the route table. Ranks on other nodes are not this transport's:
// calls naming them are errors of the caller.
class Transport {
 public:
  static constexpr transport::Capabilities kCapabilities{.eager = true, .get = true, .put = true, .split_copy = true};

  // --- init ------------------------------------------------------------------
  // Attaches this rank (routes.me()) to the segment's rings and pools.
  // `force_two_copy`: large messages go through eager buffers (rndv_mode=copy).
  void init(const Segment& segment, const wireup::RouteTable& routes, bool force_two_copy);

  // This rank and the job's size, in world ranks.
  std::uint32_t rank() const { return me_; }
  std::uint32_t size() const { return nranks_; }
  // This rank's place in the node segment, and a peer's (which must be on
  // this node); the number of ranks on the node.
  std::uint32_t local_rank() const { return local_me_; }
  std::uint32_t local_of(std::uint32_t peer) const { return endpoints_[peer].local; }
  std::uint32_t world_of(std::uint32_t local) const { return world_of_local_[local]; }
  std::uint32_t local_size() const { return static_cast<std::uint32_t>(world_of_local_.size()); }
  // The node's ranks: control blocks (wait objects, counters), introspection,
  // the shared waiting state.
  const RanksLayout& node() const { return segment_->ranks(); }
  RankControl& control() const { return *control_; }
  Introspection& introspection() const { return segment_->introspection(local_me_); }
  // More ranks than CPUs on this node, and how many CPUs.
  bool oversubscribed() const { return segment_->header().oversubscribed != 0; }
  std::uint32_t ncpus() const { return segment_->header().ncpus; }
  const SegmentHeader& header() const { return segment_->header(); }
  const Segment& segment() const { return *segment_; }
  // The transport's region of the segment.
  const TransportLayout& layout() const { return layout_; }

  // --- msg (transport_msg_inline.hpp) ---------------------------------------
  // A free packet in the ring to `peer`, or null when the ring is full.
  inline progress::Packet* try_claim(std::uint32_t peer);
  // Hands the claimed packet to `peer` and makes sure it will look.
  inline void publish(std::uint32_t peer);

  // Eager buffers are cells of this rank's pool in the segment.
  std::uint32_t eager_bytes() const { return cell_bytes_; }
  // A free cell, marked busy: done, or retry when all are in use. Eager
  // messages and rendezvous chunks draw from separate parts of the pool:
  // eager messages can sit unexpected at a receiver for a long time,
  // chunks never do, so a rendezvous always finds cells to stream through.
  // An eager message of at most kSmallCellBytes takes a small cell while
  // one is free.
  inline common::Status try_take_eager(std::uint32_t peer, std::uint64_t message_bytes, transport::EagerRef& cell);
  inline common::Status try_take_chunk(std::uint32_t peer, transport::EagerRef& cell);
  std::byte* eager_data(std::uint32_t owner, transport::EagerRef cell) const {
    return layout_.eager_data(endpoints_[owner].local, cell.id);
  }
  // Gives `owner`'s cell back once its data has been copied out.
  inline void release_eager(std::uint32_t owner, transport::EagerRef cell);
  // After an eager send: brings the cell the next one will likely take
  // (the next free one in turn) into this CPU's cache for writing, for as
  // many bytes as that send had, the first time the rank waits afterwards.
  // The cell's lines were last read by a receiver; fetched while the rank
  // waits anyway, they are not fetched one by one on the next send's path.
  // Only when the rank starts to wait: right after a send, a streaming
  // sender would take lines its receiver is still reading.
  void note_eager_sent(std::uint32_t bytes) { warm_bytes_ = bytes; }
  inline void warm_next_eager();

  // Credits, in the engine's units: of what this rank sent to `peer`, how
  // much the peer has matched.
  std::uint64_t matched_by(std::uint32_t peer) const {
    // Acquire: the peer's match happened before we count the credit back.
    return layout_.matched(local_me_, endpoints_[peer].local).load(std::memory_order_acquire);
  }
  // Counts `units` more of `sender`'s matched here.
  void count_matched(std::uint32_t sender, std::uint64_t units) {
    std::atomic<std::uint64_t>& c = layout_.matched(endpoints_[sender].local, local_me_);
    c.store(c.load(std::memory_order_relaxed) + units, std::memory_order_release);  // we are its only writer
  }

  // --- rma (transport_rma_inline.hpp, transport_rma.cpp) ----------------------
  // CMA reaches any address of a peer's: exposing memory is naming it.
  void unexpose(std::uint32_t, transport::RemoteMemory) {}
  static constexpr bool can_put(std::uint32_t) { return true; }
  transport::RemoteMemory expose(std::uint32_t, const void* buffer, std::uint64_t) const {
    return {reinterpret_cast<std::uint64_t>(buffer), 0};
  }
  transport::RmaPath rma_path(std::uint32_t peer) const { return endpoints_[peer].rma_path; }
  bool rma_proven(std::uint32_t peer) const { return endpoints_[peer].rma_proven != 0; }
  // Single copies with CMA, of `bytes` at `offset` into the peer's memory.
  // retry: the kernel refused (EPERM); the pair's path is `refused` from
  // now on, reported once on stderr. error: any other failure, reported on
  // stderr with the call and errno text.
  inline common::Status get(std::uint32_t peer, void* local, transport::RemoteMemory remote, std::uint64_t offset,
                            std::uint64_t bytes);
  inline common::Status put(std::uint32_t peer, transport::RemoteMemory remote, std::uint64_t offset, const void* local,
                            std::uint64_t bytes);
  // One copy between contiguous `local` bytes and `count` pieces of the
  // peer's memory, in order (an RMA window reached by Cross Memory
  // Attach: the peer's datatype layout is the pieces), with the results
  // of get() and put(). A piece list may be of any length.
  common::Status copy_pieces(std::uint32_t peer, bool write, std::byte* local, const iovec* remote,
                             std::size_t count);
  // A free split copy of the pair (peer -> this rank), set up for a message
  // of `chunks` chunks whose first `copied` chunks (`copied_bytes`) this
  // rank has read already, or -1 when all are in use.
  std::int32_t try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                              std::uint64_t copied_bytes);
  // The sender is done with it (its fin arrived).
  void release_split(std::uint32_t peer, std::uint32_t split) { endpoints_[peer].split_busy &= ~(1u << split); }
  SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t split) const {
    return layout_.split_copy(endpoints_[sender].local, endpoints_[receiver].local, split);
  }

  // --- progress (transport_progress_inline.hpp) -------------------------------
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
  inline const progress::Packet* peek(std::uint32_t sender) const;
  inline void consume(std::uint32_t sender);
  // Arrivals ring the doorbell: a rank may always sleep on it.
  static constexpr bool may_sleep() { return true; }

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
  bool asleep(std::uint32_t peer) const {
    return endpoints_[peer].control->sleeping.load(std::memory_order_seq_cst) != 0;
  }
  inline void flush_wakes();
  // Wakes every rank in a deferred sleep (kSleepsDeferred): one load when
  // there is none. For a rank about to wait for something a deferred
  // sleeper may have to do.
  inline void wake_deferred();
  // Wakes `peer` whatever it sleeps for, or makes its next sleep end at
  // once.
  void ring_doorbell(std::uint32_t peer) { shm::ring_doorbell(*endpoints_[peer].control, *control_); }
  // Something of this rank cannot go on until a peer frees room (a
  // collective cell or slot still unread): its next sleep then lets freed
  // room wake it (kSleepsForRoom). Sends held back in the progress engine
  // say so themselves (its backlog).
  void want_room() { room_wanted_ = true; }
  bool room_wanted() const { return room_wanted_; }
  void clear_room_wanted() { room_wanted_ = false; }

 private:
  common::Status cma_copy(std::uint32_t peer, bool write, std::byte* local, std::uint64_t remote, std::size_t bytes);
  void note_cma_refused(std::uint32_t peer, const char* call);
  template <class OnPacket>
  inline std::size_t drain(std::uint32_t sender, OnPacket& on_packet);
  // The first free cell of [first, first + count), looking from `next` on
  // in steps of `step` (< count, coprime with it: every cell is looked at).
  inline common::Status take_cell_of(std::uint32_t first, std::uint32_t count, std::uint32_t& next,
                                     transport::EagerRef& cell, std::uint32_t step = 1);
  // Whether an eager message of `bytes` takes a small cell while one is free.
  bool fits_small_cell(std::uint64_t bytes) const { return small_cells_ != 0 && bytes <= kSmallCellBytes; }
  inline void defer_wake(std::uint32_t peer, WakeDue due);

  // Polls of a sender's empty ring before its inbox bit is cleared.
  static constexpr std::uint32_t kIdlePollsBeforeClear = 64;

  const Segment* segment_ = nullptr;
  TransportLayout layout_;
  std::uint32_t me_ = 0;        // world rank
  std::uint32_t local_me_ = 0;  // place in the segment
  std::uint32_t nranks_ = 0;    // world ranks
  RankControl* control_ = nullptr;
  std::atomic<std::uint64_t>* inbox_ = nullptr;  // mine: bit i for the rank of local index i
  std::size_t inbox_words_ = 0;
  std::vector<Endpoint> endpoints_;            // per world rank (ranks on other nodes: kOffNode)
  std::vector<std::uint32_t> world_of_local_;  // per local index: the world rank
  std::vector<std::uint64_t> deferred_;        // by local index: senders whose head packet we left in the ring
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
  std::uint32_t warm_bytes_ = 0;          // note_eager_sent(), until warm_next_eager()
  std::vector<std::uint32_t> wakes_due_;  // wake_later() peers, each once
  bool room_wanted_ = false;
  bool cma_refusal_reported_ = false;
};

static_assert(transport::Transport<Transport>);

}  // namespace mpf::shm

#include "shm/transport_msg_inline.hpp"
#include "shm/transport_progress_inline.hpp"
#include "shm/transport_rma_inline.hpp"
