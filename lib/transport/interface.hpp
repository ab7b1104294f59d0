// The transport interface: what the progress engine (lib/progress) needs
// from a way of reaching other ranks, in terms of what a transport can do.
// A transport is a class that satisfies the concept `transport::Transport`
// below; the engine is a template over it (progress::BasicEngine<T>), so
// every call is resolved when the library is compiled and inlined on the
// hot path (STYLE 3: no virtual call per message). A job picks its
// transport at setup; a job that spans nodes will route each peer to the
// shared-memory or the network transport with one inline branch, in a
// transport that holds both (doc/architecture.md, "Adding a transport").
//
// What a transport does, and where its code goes (every transport has this
// file split; lib/shm/transport*.{hpp,cpp} and lib/loopback are examples):
//
//   init       attach this rank: its peers, buffers, wait object
//   endpoint   per-peer state, reached by world rank in one load
//   msg        send inline: a packet claimed, filled by the engine, then
//              published to the peer, in order per pair;
//              send eager: an eager buffer lent for a message's data, named
//              by an EagerRef in the packet and given back by the receiver;
//              flow-control credits: how many data messages a peer matched
//   rma        expose memory (RemoteMemory) and let the peer get or put it;
//              split copies: a pair of counters both ends update atomically
//              (capability split_copy)
//   progress   poll: every packet that arrived, in order per sender; wake a
//              peer that sleeps on its wait object
//   *_inline.hpp  the hot paths of msg, rma and progress
//
// Waiting is the node's: each rank has a control block in the node's ranks
// region (shm::RankControl: its doorbell, a futex word, and its counters)
// whatever transports reach it; a transport wakes a peer by ringing that
// doorbell and exposes the node's ranks for the engine's sleep protocol.
#pragma once

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>

#include "common/status.hpp"
#include "progress/packet.hpp"
#include "shm/ranks_layout.hpp"
#include "transport/handles.hpp"

namespace mpf::transport {

// What a transport can do: constant per transport type, so the engine's
// code for what a transport cannot do is compiled away (if constexpr).
struct Capabilities {
  bool eager;       // lends eager buffers (else messages beyond a packet go by rendezvous)
  bool get;         // reads memory a peer exposed
  bool put;         // writes memory a peer exposed
  bool split_copy;  // shares counters with a peer for a split copy (both ends copy chunks)
  // Its reads of some peers finish later (a network's remote read): for
  // those (reads_later), start_get() answers in_progress and
  // finished_gets() reports the end.
  bool async_get = false;
};

// How large messages move between this rank and a peer, and why.
enum class RmaPath : std::uint8_t {
  direct,       // get and put, one copy
  by_messages,  // chunks through eager buffers: asked for (rndv_mode=copy)
  refused,      // chunks through eager buffers: the system refused get and put
};

// A large message that both ends copy at once (rndv_mode=split, see
// progress/engine.hpp): the message is cut into chunks; the receiver claims
// chunks from the front and reads them, the sender claims them from the
// back and writes them, until the two meet. One claim is one
// compare-and-swap on `claims`; after copying a chunk each end adds its
// bytes to `done`, and the message has arrived when `done` is its size.
// The receiver's transport owns the SplitCopy objects of each pair (sender
// -> receiver): the receiver sets one up when it matches the
// request-to-send and reuses it only after the sender's fin says the
// sender no longer looks at it. A wire format in shared memory.
inline constexpr std::uint32_t kSplitsPerPair = 4;
// An end that cannot copy its chunk sets kSplitFailed in `done`: then both
// ends' requests fail.
struct alignas(64) SplitCopy {
  std::atomic<std::uint64_t> claims;  // low 32 bits: next front chunk; high 32: end of the back chunks
  std::atomic<std::uint64_t> done;    // bytes copied, by either end; kSplitFailed
};
static_assert(sizeof(SplitCopy) == 64);
inline constexpr std::uint64_t kSplitFailed = std::uint64_t{1} << 63;

// The interface. Peers are world ranks. Functions that may not finish at
// once return common::Status (done, or retry: out of room, nothing
// happened), or a null pointer for "no room".
template <class T>
concept Transport = requires(T& t, const T& ct, std::uint32_t peer, std::uint64_t bytes, EagerRef eager,
                             RemoteMemory remote, void* local, const void* clocal,
                             bool (*on_packet)(std::uint32_t, const progress::Packet&)) {
  { T::kCapabilities } -> std::convertible_to<const Capabilities&>;

  // init, endpoint: who we are, and the node's ranks (wait objects, counters, introspection).
  { ct.rank() } -> std::same_as<std::uint32_t>;
  { ct.size() } -> std::same_as<std::uint32_t>;
  { ct.local_rank() } -> std::same_as<std::uint32_t>;
  { ct.local_size() } -> std::same_as<std::uint32_t>;
  { ct.node() } -> std::same_as<const shm::RanksLayout&>;
  { ct.ncpus() } -> std::same_as<std::uint32_t>;
  { ct.oversubscribed() } -> std::same_as<bool>;

  // msg: packets, in order per pair.
  { t.try_claim(peer) } -> std::same_as<progress::Packet*>;  // null: no room now
  t.publish(peer);
  // msg: eager buffers of this rank's, up to eager_bytes() each.
  { ct.eager_bytes() } -> std::same_as<std::uint32_t>;
  // for an eager message, a rendezvous chunk to `peer`
  { t.try_take_eager(peer, bytes, eager) } -> std::same_as<common::Status>;
  { t.try_take_chunk(peer, eager) } -> std::same_as<common::Status>;
  { ct.eager_data(peer, eager) } -> std::same_as<std::byte*>;          // the data of `peer`'s buffer
  t.release_eager(peer, eager);                                        // the receiver is done with it
  t.note_eager_sent(std::uint32_t{});                                  // a hint: the next eager buffer is worth warming
  t.warm_next_eager();                                                 // at the start of a wait
  // msg: credits, in the engine's units (match::UnexpectedQueue::cost): of
  // what this rank sent to `peer`, how much it matched; `units` more
  // matched here from `peer`.
  { ct.matched_by(peer) } -> std::same_as<std::uint64_t>;
  t.count_matched(peer, bytes);

  // rma
  { t.expose(peer, clocal, bytes) } -> std::same_as<RemoteMemory>;  // for `peer` to reach
  t.unexpose(peer, remote);  // `peer` no longer reaches it (the exposing send completed)
  { ct.can_put(peer) } -> std::same_as<bool>;  // whether put() reaches `peer`
  { ct.rma_path(peer) } -> std::same_as<RmaPath>;
  { ct.rma_proven(peer) } -> std::same_as<bool>;  // a get or put with `peer` has worked
  // done; retry: refused (nothing moved; the pair's rma_path is `refused`
  // from now on, reported once); error: failed (reported once).
  { t.get(peer, local, remote, bytes, bytes) } -> std::same_as<common::Status>;
  { t.put(peer, remote, bytes, clocal, bytes) } -> std::same_as<common::Status>;

  // progress
  { t.poll(on_packet) } -> std::same_as<std::size_t>;
  t.retry_deferred();
  { t.peek(peer) } -> std::same_as<const progress::Packet*>;
  t.consume(peer);
  t.wake(peer);              // `peer` has work from us: wake it if it sleeps
  t.wake_after_fence(peer);  // the same, right after a full fence
  t.wake_for_room(peer);     // we freed room it may wait for
  t.flush_wakes();           // the wakes deferred so far (wake_later)
  t.wake_deferred();         // ranks in a deferred sleep (kSleepsDeferred)
  { ct.room_wanted() } -> std::same_as<bool>;
  // Called last before the rank sleeps on its doorbell, after its last
  // look for work: a transport whose arrivals do not ring the doorbell
  // (the network) arms what will ring it, or says false when something
  // has arrived since (then the rank looks again instead of sleeping).
  { t.may_sleep() } -> std::same_as<bool>;
  t.clear_room_wanted();
};

// With capability async_get, also:
//   bool reads_later(peer)
//   common::Status start_get(peer, local, remote, bytes, cookie)   (in_progress, retry, error)
//   void finished_gets(done)                                       done(cookie, ok) for each read finished
// With capability split_copy, also:
//   std::int32_t try_take_split(peer, chunks, copied_chunks, copied_bytes)  (-1: none free)
//   void release_split(peer, split)
//   SplitCopy& split_copy(sender, receiver, split)

}  // namespace mpf::transport
