// The network transport: how a rank reaches ranks on other nodes (SPEC §2
// Network), over a libfabric reliable-datagram endpoint (net/fabric.hpp).
// It carries the engine's packets as they are (progress/packet.hpp), in
// order per pair, so the engine's protocols run unchanged across nodes; it
// is not a transport of its own but the network half of
// transport::Routed (transport/routed.hpp), which sends each call to the
// shared-memory transport or to this one by the peer's route.
//
//   packets   a tagged message per packet (net/wire.hpp), sent from a pool
//             of send slots; received into posted buffers and kept per
//             sender, in order, until the engine takes them
//   eager     an eager message's data (and a rendezvous chunk's) travels
//             in the same message, right behind its packet: the send slot
//             is the sender's "eager buffer", the receive buffer the
//             receiver's, given back to the endpoint when the engine has
//             copied the data out
//   credits   a sender has at most `window` packets to a peer that the peer
//             has not taken yet, and its messages unmatched there cost at
//             most the peer's share of its unexpected pool (the engine's
//             credits, in its units): so a flood of unexpected messages
//             throttles its senders and never overruns the receiver (seed
//             004 §2). The receiver tells the sender what it took and
//             matched in the header of every message it sends back, and in
//             a credit message of its own when half a window or a quarter
//             of the share is owed, or before it sleeps
//   large     rendezvous by remote read where the provider has it: the
//             sender registers its buffer (expose), the receiver reads it
//             with one fi_read that completes later (start_get,
//             finished_gets), the sender deregisters it when the
//             receiver's fin arrives (unexpose); otherwise by messages
//             (RmaPath::by_messages): the engine streams chunks of
//             eager_bytes through send slots
//   waiting   the endpoint's completion queue does not ring the rank's
//             doorbell: before the rank sleeps, may_sleep() asks libfabric
//             whether it may wait (fi_trywait) and arms a thread that rings
//             the doorbell when the queue's descriptor becomes readable
//             (net/sleep_watch.hpp)
//
// Peers are world ranks. One thread calls it (the engine's).
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.hpp"
#include "net/fabric.hpp"
#include "net/sleep_watch.hpp"
#include "net/wire.hpp"
#include "progress/packet.hpp"
#include "shm/ranks_layout.hpp"
#include "transport/interface.hpp"

namespace mpf::net {

struct Options {
  std::string provider;            // net_provider: a libfabric provider name
  std::uint32_t window = 32;       // packets in flight per pair (ring_slots, as on the node)
  std::uint32_t eager_bytes = 0;   // data bytes a message carries at most (the node's eager buffer size)
  std::uint64_t credit_share = 0;  // the engine's share of a receiver's unexpected pool per sender
};

// How the transport ends the job when the network fails it (the runtime's
// abort): it names what failed.
using FatalHandler = void (*)(const std::string& message);

class Transport {
 public:
  static constexpr transport::Capabilities kCapabilities{.eager = true, .get = true, .put = false, .split_copy = false};
  // The ids of this rank's send slots lent as eager buffers carry this bit,
  // which no shared-memory eager buffer's id has: transport::Routed tells
  // whose a buffer of this rank's is by it.
  static constexpr std::uint32_t kSendSlotMark = 1u << 31;

  // --- init (transport_init.cpp) ------------------------------------------------
  // Opens this rank's endpoint of `provider`, before the address exchange,
  // for messages of up to `largest_message` bytes (a packet and its data).
  // Throws NetError naming the provider and what failed.
  void open(const std::string& provider, std::size_t largest_message);
  std::vector<std::byte> address() const { return fabric_->address(); }
  // After the exchange: the ranks on other nodes (world ranks) and their
  // addresses, in the same order, are inserted; buffers are made and
  // receives posted; the sleep watch starts for the rank whose control
  // block is `control`. Throws NetError.
  void connect(const Options& options, std::uint32_t me, std::uint32_t size, shm::RankControl& control,
               FatalHandler fatal, std::span<const std::uint32_t> peers,
               std::span<const std::vector<std::byte>> addresses);
  // Whether every send has left (its completion came back): before the
  // finalize fence, so that no message is lost when the endpoint closes.
  bool drained();
  void close();
  bool active() const { return fabric_ != nullptr; }
  const std::string& provider() const { return fabric_->provider(); }

  // --- msg (transport_msg.cpp) ------------------------------------------------
  progress::Packet* try_claim(std::uint32_t peer);
  void publish(std::uint32_t peer);
  std::uint32_t eager_bytes() const { return eager_bytes_; }
  // A send slot for an eager message's data or a rendezvous chunk: retry
  // while only the slots kept for packets are free.
  common::Status try_take_buffer(transport::EagerRef& buffer);
  std::byte* eager_data(std::uint32_t owner, transport::EagerRef buffer) {
    return owner == me_ ? send_slot(buffer.id & ~kSendSlotMark)->data() : receive_buffer(buffer.id)->data();
  }
  void release_eager(std::uint32_t owner, transport::EagerRef buffer);
  std::uint64_t matched_by(std::uint32_t peer) const { return peers_[peer].matched_there; }
  void count_matched(std::uint32_t sender, std::uint64_t units);

  // --- rma (transport_rma.cpp) -----------------------------------------------------
  // Whether a peer reads what this rank exposes (rendezvous by remote read).
  bool remote_read() const { return fabric_->remote_read(); }
  // Registers `bytes` at `buffer` for peers to read; {0, 0} when nothing
  // needs registering (no bytes, or no remote read).
  transport::RemoteMemory expose(const void* buffer, std::uint64_t bytes);
  // Deregisters what expose() returned (once every reader is done).
  void unexpose(transport::RemoteMemory memory);
  // Starts reading `bytes` of `peer`'s exposed memory into `local`:
  // in_progress, then finished_gets() reports `cookie`; retry when the
  // provider cannot (too large): the engine then asks for messages.
  common::Status start_get(std::uint32_t peer, void* local, transport::RemoteMemory remote, std::uint64_t bytes,
                           std::uint64_t cookie);
  // Calls done(cookie, ok) for every read that has finished since.
  template <class Done>
  void finished_gets(Done&& done) {
    for (const auto& [cookie, ok] : finished_reads_) done(cookie, ok);
    finished_reads_.clear();
  }

  // --- progress (transport_progress.cpp, poll here) ------------------------------
  template <class OnPacket>
  std::size_t poll(OnPacket&& on_packet);
  void retry_deferred() { retry_deferred_ = true; }
  const progress::Packet* peek(std::uint32_t sender);
  void consume(std::uint32_t sender);
  bool may_sleep();

 private:
  // Send slots beyond twice the window, kept for packets: an eager message
  // or a chunk never takes the last of them, so a control packet always
  // finds one (a rendezvous that ran out of eager buffers still goes out).
  static constexpr std::uint32_t kPacketReserve = 8;

  struct Arrival {
    std::uint32_t buffer;
    bool data;  // carries data: the buffer goes back at release_eager, not when taken
  };
  struct Peer {
    fi_addr_t address = FI_ADDR_NOTAVAIL;
    std::uint64_t sent = 0;            // packets we sent it
    std::uint64_t consumed_there = 0;  // of those, how many it took (its credits)
    std::uint64_t matched_there = 0;   // our data it matched, in the engine's units
    std::uint64_t consumed_here = 0;   // its packets we took
    std::uint64_t matched_here = 0;    // its data we matched
    std::uint64_t consumed_told = 0;   // what we last told it
    std::uint64_t matched_told = 0;
    std::deque<Arrival> arrived;             // its packets not taken yet, in order
    std::uint64_t next_seq = 0;              // the number of its next packet in order
    std::map<std::uint64_t, Arrival> early;  // packets whose completion came before an earlier one's
    bool deferred = false;                   // the engine left its oldest packet (no room yet)
    bool listed = false;                     // in ready_
    bool owed = false;                       // in owed_
  };
  struct Unsent {
    std::uint32_t slot;
    std::uint32_t bytes;
    std::uint32_t peer;
  };

  WireMessage* send_slot(std::uint32_t i) { return reinterpret_cast<WireMessage*>(send_memory_.get() + i * stride_); }
  WireMessage* receive_buffer(std::uint32_t i) {
    return reinterpret_cast<WireMessage*>(receive_memory_.get() + i * stride_);
  }
  void read_completions();
  void on_arrival(std::uint32_t buffer, std::uint64_t tag);
  void on_error();
  void post_receive(std::uint32_t buffer);
  void send(std::uint32_t slot, std::uint32_t bytes, std::uint32_t peer);
  bool try_send(const Unsent& u);
  void flush_unsent();
  void take(std::uint32_t sender, Peer& p);
  void owe(std::uint32_t peer, Peer& p);
  bool send_credit(std::uint32_t peer);
  void stamp(WireHeader& h, std::uint32_t peer, WireKind kind);
  [[noreturn]] void fail(const std::string& what);

  std::unique_ptr<Fabric> fabric_;
  SleepWatch watch_;
  FatalHandler fatal_ = nullptr;
  std::uint32_t me_ = 0;
  std::uint32_t window_ = 0;
  std::uint32_t eager_bytes_ = 0;
  std::uint64_t credit_share_ = 0;
  std::size_t stride_ = 0;            // bytes of a send slot or receive buffer
  std::vector<Peer> peers_;           // by world rank (ranks on this node: unused)
  std::vector<std::uint32_t> ready_;  // peers with packets arrived
  std::vector<std::uint32_t> owed_;   // peers we owe credits
  bool retry_deferred_ = false;
  // Send slots: packets, and the data behind them.
  std::unique_ptr<std::byte[]> send_memory_;
  std::vector<fi_context2> send_contexts_;
  std::vector<std::uint32_t> free_slots_;
  std::uint32_t send_slots_ = 0;
  std::uint32_t claimed_ = 0;  // try_claim()'s slot, until publish()
  std::deque<Unsent> unsent_;  // sends the endpoint refused for now, in order
  // Receive buffers, each posted until a message lands in it.
  std::unique_ptr<std::byte[]> receive_memory_;
  std::vector<fi_context2> receive_contexts_;
  std::vector<std::uint32_t> unposted_;  // buffers the endpoint refused to post for now
  // Remote reads: registrations by key, reads in flight by their context.
  struct Read {
    fi_context2 context;
    std::uint64_t cookie;
    std::uint32_t peer;
    void* local;
    transport::RemoteMemory remote;
    std::uint64_t bytes;
  };
  std::deque<Read*> unposted_reads_;  // reads the endpoint refused for now, in order
  bool try_post(Read* read);
  void post_reads();
  std::map<std::uint64_t, fid_mr*> registered_;
  std::uint64_t next_key_ = 1;
  std::vector<std::unique_ptr<Read>> reads_;  // every Read made, reused
  std::vector<Read*> free_reads_;
  std::vector<std::pair<std::uint64_t, bool>> finished_reads_;  // (cookie, ok)
  bool read_failure_reported_ = false;
  void on_read_done(Read* read, bool ok);
  Read* read_of(void* context);
};

template <class OnPacket>
std::size_t Transport::poll(OnPacket&& on_packet) {
  if (!active()) return 0;
  read_completions();
  if (retry_deferred_) {
    retry_deferred_ = false;
    for (const std::uint32_t source : ready_) peers_[source].deferred = false;
  }
  std::size_t taken = 0;
  for (std::size_t i = 0; i < ready_.size();) {
    const std::uint32_t source = ready_[i];
    Peer& p = peers_[source];
    while (!p.deferred && !p.arrived.empty()) {
      if (!on_packet(source, receive_buffer(p.arrived.front().buffer)->packet)) {
        p.deferred = true;  // no room in the engine's unexpected pool: it stays first in line
        break;
      }
      take(source, p);
      ++taken;
    }
    if (p.arrived.empty()) {
      p.listed = false;
      p.deferred = false;
      ready_[i] = ready_.back();
      ready_.pop_back();
    } else {
      ++i;
    }
  }
  return taken;
}

}  // namespace mpf::net
