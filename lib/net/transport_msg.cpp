// Packets, the data behind them, and credits over the network (see
// transport.hpp).
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstring>

#include "net/transport.hpp"

namespace mpf::net {

progress::Packet* Transport::try_claim(std::uint32_t peer) {
  const Peer& p = peers_[peer];
  if (p.sent - p.consumed_there >= window_ || free_slots_.empty()) return nullptr;
  claimed_ = free_slots_.back();
  free_slots_.pop_back();
  return &send_slot(claimed_)->packet;
}

void Transport::publish(std::uint32_t peer) {
  WireMessage* m = send_slot(claimed_);
  std::uint32_t slot = claimed_;
  std::uint32_t bytes = sizeof(WireMessage);
  if (carries_data(m->packet.header.kind)) {
    // The data is in the slot the engine took for it: the packet joins it
    // there, and the claimed slot goes back.
    slot = m->packet.chunk.buffer.id & ~kSendSlotMark;
    WireMessage* with_data = send_slot(slot);
    with_data->packet = m->packet;
    bytes += m->packet.chunk.chunk_bytes;
    free_slots_.push_back(claimed_);
    m = with_data;
  }
  stamp(m->wire, peer, WireKind::packet);
  m->wire.seq = peers_[peer].sent++;
  send(slot, bytes, peer);
}

common::Status Transport::try_take_buffer(transport::EagerRef& buffer) {
  if (free_slots_.size() <= kPacketReserve) return common::Status::retry;
  buffer.id = free_slots_.back() | kSendSlotMark;
  free_slots_.pop_back();
  return common::Status::done;
}

void Transport::release_eager(std::uint32_t owner, transport::EagerRef buffer) {
  if (owner == me_) {
    free_slots_.push_back(buffer.id & ~kSendSlotMark);  // taken, never sent
  } else {
    post_receive(buffer.id);
  }
}

void Transport::count_matched(std::uint32_t sender, std::uint64_t units) {
  Peer& p = peers_[sender];
  p.matched_here += units;
  if (p.matched_here - p.matched_told >= credit_share_ / 4 && send_credit(sender)) return;
  owe(sender, p);
}

void Transport::stamp(WireHeader& h, std::uint32_t peer, WireKind kind) {
  Peer& p = peers_[peer];
  h.consumed = p.consumed_here;
  h.matched = p.matched_here;
  h.source = me_;
  h.kind = kind;
  h.seq = 0;
  p.consumed_told = p.consumed_here;
  p.matched_told = p.matched_here;
}

void Transport::send(std::uint32_t slot, std::uint32_t bytes, std::uint32_t peer) {
  const Unsent u{slot, bytes, peer};
  // Behind sends the endpoint refused, to keep each pair's order.
  if (!unsent_.empty() || !try_send(u)) unsent_.push_back(u);
}

bool Transport::try_send(const Unsent& u) {
  const ssize_t sent = fi_tsend(fabric_->endpoint(), send_slot(u.slot), u.bytes, nullptr, peers_[u.peer].address,
                                wire_tag(WireKind::packet, me_), &send_contexts_[u.slot]);
  if (sent == 0) return true;
  if (sent == -FI_EAGAIN) return false;
  fail("could not send to rank " + std::to_string(u.peer) + ": " + fabric_error("fi_tsend", sent));
}

void Transport::flush_unsent() {
  while (!unsent_.empty() && try_send(unsent_.front())) unsent_.pop_front();
}

void Transport::owe(std::uint32_t peer, Peer& p) {
  if (p.owed) return;
  p.owed = true;
  owed_.push_back(peer);
}

bool Transport::send_credit(std::uint32_t peer) {
  WireHeader h{};
  Peer& p = peers_[peer];
  const std::uint64_t consumed = p.consumed_told, matched = p.matched_told;
  stamp(h, peer, WireKind::credit);
  // Injected: the header is copied at once, and no send slot is needed.
  const ssize_t sent = fi_tinject(fabric_->endpoint(), &h, sizeof h, p.address, wire_tag(WireKind::credit, me_));
  if (sent == 0) return true;
  p.consumed_told = consumed;
  p.matched_told = matched;
  if (sent == -FI_EAGAIN) return false;
  fail("could not send credits to rank " + std::to_string(peer) + ": " + fabric_error("fi_tinject", sent));
}

}  // namespace mpf::net
