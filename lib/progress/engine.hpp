// The progress engine: point-to-point messaging over the transports, for
// every API (SPEC §2 Protocols, Waiting). It starts sends and receives,
// matches messages to receives (lib/match), runs the protocols, and waits:
//
//   short       the data rides in the packet                 (<= short_limit)
//   eager       the data is copied into an eager buffer      (<= eager_limit)
//               of the sender's; the send completes at once
//   rendezvous  request-to-send; after the match one copy with Cross Memory
//               Attach: both ends at once (rndv_mode=split, the default),
//               the receiver pulling (get, seed 002's RTA) or the sender
//               pushing (put, RAT); or pipelined chunks through eager
//               buffers (copy, or when the kernel refuses CMA)
//   split copy  the receiver reads chunks from the front of the message, the
//               sender writes chunks from the back, one chunk per round of
//               progress, until they meet (transport::SplitCopy). Two CPUs copy
//               where get and put use one; an end that is busy elsewhere
//               leaves its chunks to the other, so nothing waits for it.
//               A pair has kSplitsPerPair SplitCopies; a message that finds
//               them all in use is read from the front a chunk per round
//               and split as soon as one is free (advance_reads).
//               From kSplitMinBytes, once a CMA copy with the pair has
//               worked (the first large message of a pair uses get), and
//               only while we send the peer no large message of our own:
//               then it has its own copying to do (both directions busy,
//               where get measured faster)
//   synchronous short and eager sends complete on the receiver's ack (TA)
//
// Sends that find no ring space wait in a per-peer backlog, in order, and go
// out as room appears. A sender without a free eager buffer, or whose
// messages unmatched at the receiver fill its share of the receiver's
// unexpected pool, uses rendezvous (flow control by credits: see
// match/queues.hpp). An eager message that arrives unexpected is copied out
// of its buffer at once, so the sender has the buffer back.
// A waiting rank polls, then yields, then sleeps on its futex until a peer
// hands it work (wait_until).
//
// The engine is written against the transport interface
// (transport/interface.hpp): BasicEngine<T> runs over transport T, every
// transport call resolved at compile time. The library instantiates it for
// the routed transport (Engine: shared memory on the node, the network to
// other nodes); the unit tests also over the in-process loopback transport
// (lib/loopback).
//
// Single-threaded: one thread at a time calls into the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <vector>

#include "common/debug.hpp"
#include "common/tunables.hpp"
#include "match/queues.hpp"
#include "progress/packet.hpp"
#include "progress/request.hpp"
#include "progress/wait_record.hpp"
#include "progress/yield_slots.hpp"
#include "shm/introspection.hpp"
#include "transport/routed.hpp"
#include "transport/interface.hpp"

namespace mpf::progress {

// Completion::error values the engine produces.
inline constexpr std::int32_t kErrorTruncated = 1;
inline constexpr std::int32_t kErrorSignature = 2;  // the sender's datatype signature is not the receive's
// The transport could not move the data (reported on stderr where it
// failed, with the system call and errno text); both ends' requests fail.
inline constexpr std::int32_t kErrorTransport = 3;

// Split copies: the smallest chunk, and the smallest message (two chunks:
// below that one end would copy it all anyway). Fixed rather than a
// tunable: each chunk costs one claim on a shared counter, which is noise
// against copying 128 KiB, and whether a message splits at all is
// rndv_mode's choice.
inline constexpr std::uint64_t kSplitChunkMin = 128 * 1024;
inline constexpr std::uint64_t kSplitMinBytes = 2 * kSplitChunkMin;

template <transport::Transport T>
class BasicEngine {
 public:
  void init(T& transport, const common::Tunables& tunables);

  Request* new_request() { return pool_.acquire(); }
  void free_request(Request* r) { pool_.release(r); }

  // Starts a filled-in send (is_send, peer, tag, context, buffer, bytes, mode).
  void start_send(Request* r);
  // A standard-mode send that fits in a packet, sent at once without a
  // request (the blocking MPI_Send fast path). False when it cannot go out
  // right now (no ring space, no credit, an earlier send still waiting):
  // then the caller starts a request as usual.
  bool try_send_now(std::uint32_t peer, std::int32_t tag, std::uint32_t context, const void* buffer,
                    std::uint64_t bytes, std::uint16_t signature);
  // Starts a filled-in receive (peer may be kAnySource, tag kAnyTag).
  void start_recv(Request* r);
  // A blocking receive from one sender (a world rank) of a short or eager
  // message, without a request (the blocking MPI_Recv fast path): the
  // oldest unexpected message it matches, or else the sender's next packet,
  // taken straight from that sender's ring after waiting for it for a short
  // while, polling that ring only. True, with `status` filled in, when that
  // was the message; false when the receive must go the usual way (a receive
  // posted earlier comes first, the message is synchronous, a rendezvous or
  // too long, other work is pending, the packet is another message, nothing
  // came in time), having changed nothing.
  bool try_recv_now(std::uint32_t source, std::int32_t tag, std::uint32_t context, void* buffer,
                    std::uint64_t capacity, std::uint16_t signature, Completion& status);
  // Cancels a receive that has not matched yet; false if it already has.
  bool cancel_recv(Request* r);
  // Starts cancelling send `s` (started, not yet freed): a control packet
  // behind the message asks the receiver to drop it if no receive has
  // matched it, and `s` is done() when the answer comes: cancelled
  // (status.cancelled, no data delivered) or not (the send completes as
  // usual). The receiver answers when it next makes progress.
  void cancel_send(Request* s);

  // The oldest unexpected message a receive for (source, tag, context) would
  // match, after one round of progress; null if none has arrived.
  const match::UnexpectedMessage* probe(std::int32_t source, std::int32_t tag, std::uint32_t context);
  // Takes that message out of the matching queue for a later receive
  // (MPI_Mprobe / MPI_Mrecv).
  match::UnexpectedMessage* claim(std::int32_t source, std::int32_t tag, std::uint32_t context);
  // Completes receive `r` (started, not posted) with a claimed message.
  void receive_claimed(Request* r, match::UnexpectedMessage* m);

  void progress();
  // Adds `hook` (once) to the functions called on every round of progress:
  // nonblocking collectives advance there, and RMA requests served by the
  // target, while the rank waits for anything.
  void add_progress_hook(void (*hook)()) {
    for (std::uint32_t i = 0; i < hook_count_; ++i) {
      if (hooks_[i] == hook) return;
    }
    if (hook_count_ == kMaxHooks) std::abort();  // more users of hooks than kMaxHooks: a bug of ours
    hooks_[hook_count_++] = hook;
  }
  // Something a hook did for others counts as work: a waiting rank starts
  // its polls and yields over instead of going to sleep (a target serving
  // one-sided operations keeps serving them while they come).
  void note_activity() { activity_ = true; }
  // Progresses until done() is true, waiting as the wait_policy says.
  template <class Done>
  void wait_until(Done&& done, const BlockedCall& call);

  // Shows `call` as the rank's blocked-in call while it waits outside the
  // engine (the wire-up fence of MPI_Finalize), and clears it again.
  void announce_blocked(const BlockedCall& call) { publish_blocked(call); }
  void clear_announced() {
    if (blocked_published_) clear_blocked();
  }

  T& transport() { return *transport_; }
  // This rank's record of its collectives per communicator (introspection).
  CollectiveLog& collectives() { return collectives_; }
  const match::PostedQueue<Request>& posted() const { return posted_; }
  const match::UnexpectedQueue& unexpected() const { return *unexpected_; }
  std::size_t backlog_size() const { return backlog_count_; }
  // Nothing this rank started or owes is still on its way: every send has
  // completed (also those whose requests were freed, and buffered ones) and
  // every reply has gone out. MPI_Finalize waits for this.
  bool quiescent() const { return incomplete_sends_ == 0 && backlog_count_ == 0; }

 private:
  // What a message is and where its data is: from a packet that just
  // arrived, or from the unexpected queue.
  struct Message {
    PacketKind kind;
    std::uint8_t flags;
    std::uint16_t signature;
    std::uint32_t source;
    std::int32_t tag;
    std::uint64_t bytes;
    std::uint64_t cookie;
    const std::byte* data;     // short, and eager held in the unexpected queue
    transport::DataRef where;  // eager: the sender's buffer; rendezvous: its exposed memory
  };
  struct Outbound {
    enum class What : std::uint8_t { start, stream, control } what;
    Request* request;
    Packet packet;  // control
  };

  bool on_packet(std::uint32_t source, const Packet& p);
  // The message a packet that just arrived carries.
  static Message message_of(std::uint32_t source, const Packet& p);
  void deliver(Request* r, const Message& m);
  // A short or eager message's data, `bytes` of it, copied to `to`: the
  // sender's eager buffer goes back, the message counts as matched for the
  // sender's credit (deliver() and try_recv_now()).
  void copy_out(const Message& m, void* to, std::uint64_t bytes);
  void count_received(std::uint64_t bytes) {
    shm::count(counters_->received);
    shm::count(counters_->received_bytes, bytes);
  }
  void on_cts(Request* s, const Packet& p);
  void advance_reads();
  // One end copied the whole of `r` with one get or put: the other end
  // learns it (fin), and `r` is complete.
  void finish_single_copy(Request* r, std::uint32_t peer);
  // The transport failed to move `r`'s data (and said why): `r` fails, and
  // so does the peer's request, told by a fin with kFailed.
  void fail_copy(Request* r, std::uint32_t peer);
  void finish_gets();
  bool start_split(Request* r, std::uint32_t source);
  void advance_splits();
  bool advance_split(Request* x, bool claim);
  void on_split_fin(std::uint32_t source, const Packet& p);
  void on_data(std::uint32_t source, const Packet& p);
  void on_cancel(std::uint32_t source, const Packet& p);
  void on_cancel_reply(Request* s, bool cancelled);
  void complete(Request* r, std::uint64_t bytes);
  void fail(Request* r) {
    r->status.error = kErrorTransport;
    complete(r, 0);
  }

  bool try_start_send(Request* r);
  // A short or eager send's data is out: a synchronous send waits for the
  // receiver's ack, any other is complete.
  void sent_with_data(Request* r) {
    if (r->mode == SendMode::synchronous) {
      r->stage = Stage::awaiting_ack;
    } else {
      complete(r, r->bytes);
    }
  }
  bool try_stream(Request* s);
  void send_control(std::uint32_t peer, const PacketHeader& header, const RendezvousFields& fields);
  void enqueue(std::uint32_t peer, Outbound item);
  void flush_backlog();
  void sleep_once(const auto& done);
  // The futex sleep itself, once a sleep is announced and `seen` read from
  // the doorbell: counted, shown to the inspector, reported under
  // debug=wait. For at most `timeout_ns` (0: no limit); false when that ran
  // out.
  bool sleep_on_doorbell(std::uint32_t seen, std::uint64_t timeout_ns);
  // A sleep of a far turn (Turn::far): woken by the root a few turns
  // before this rank's own, by a rank that waits for something else, or
  // after kDeferredSleepNs. False, without sleeping, when this rank has
  // sends waiting for room (freed room wakes only normal sleepers).
  bool sleep_deferred(const auto& done);
  void publish_blocked(const BlockedCall& call);
  void clear_blocked();
  void publish_queues();
  std::uint64_t now_ns() const;

  T* transport_ = nullptr;
  shm::RankControl* control_ = nullptr;  // this rank's: its doorbell, counters
  shm::RankCounters* counters_ = nullptr;
  shm::Introspection* introspection_ = nullptr;
  bool blocked_published_ = false;
  static constexpr std::uint32_t kMaxHooks = 4;
  void (*hooks_[kMaxHooks])() = {};
  std::uint32_t hook_count_ = 0;
  RequestPool pool_;
  match::PostedQueue<Request> posted_;
  std::unique_ptr<match::UnexpectedQueue> unexpected_;
  std::vector<std::deque<Outbound>> backlog_;  // per peer, in order
  std::vector<std::uint64_t> data_sent_;       // per peer: the cost of the short and eager messages sent
  std::vector<std::uint64_t> matched_seen_;    // per peer: its matched counter when we last read it
  std::uint64_t credit_limit_ = 0;             // the peer's unexpected share for us, in bytes
  std::size_t backlog_count_ = 0;
  std::size_t incomplete_sends_ = 0;
  std::vector<std::uint32_t> rendezvous_out_;  // per peer: our rendezvous sends not yet complete
  std::size_t gets_in_flight_ = 0;  // reads started that finish later (async_get)
  std::deque<Request*> reads_;    // matched rendezvous receives to read with CMA (get), in order;
                                  // those with chunk_bytes set wait for a SplitCopy (advance_reads)
  std::vector<Request*> splits_;  // split copies this rank takes part in, unfinished
  bool copied_ = false;           // the last round of progress copied rendezvous data
  bool activity_ = false;         // a hook served others since the wait last looked (note_activity)

  // From the tunables, fixed at init.
  std::uint64_t short_limit_ = 0;
  std::uint64_t eager_limit_ = 0;
  enum class RndvMode : std::uint8_t { split, get, put, copy } rndv_mode_ = RndvMode::split;
  std::uint64_t spin_limit_ = 0;
  std::uint64_t yield_limit_ = 0;
  bool never_sleep_ = false;
  common::DebugTopics debug_;
  // Oversubscribed adaptive waiting: the node's yield slots (not enabled
  // otherwise), whether this rank holds one in its current wait, and how
  // long it keeps yielding with it.
  YieldSlots yield_slots_;
  bool holds_yield_slot_ = false;
  std::uint64_t yield_ns_ = 0;
  // Last: written only when the rank shows a wait, so it stays off the
  // cache lines the data path uses.
  CollectiveLog collectives_;
};

// The engine of the library's ranks, over shared memory on the node and
// the network beyond it (transport/routed.hpp; instantiated in engine.cpp).
using Engine = BasicEngine<transport::Routed>;
extern template class BasicEngine<transport::Routed>;

}  // namespace mpf::progress

#include "progress/engine_wait_inline.hpp"
