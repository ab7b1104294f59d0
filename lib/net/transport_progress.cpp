// Completions, arrivals and sleeping over the network (see transport.hpp).
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstdio>

#include "net/transport.hpp"

namespace mpf::net {

void Transport::read_completions() {
  fi_cq_tagged_entry entries[16];
  for (;;) {
    const ssize_t n = fi_cq_read(fabric_->queue(), entries, 16);
    if (n == -FI_EAGAIN) break;
    if (n == -FI_EAVAIL) {
      on_error();
      continue;
    }
    if (n < 0) fail(fabric_error("fi_cq_read", n));
    for (ssize_t i = 0; i < n; ++i) {
      const fi_cq_tagged_entry& e = entries[i];
      auto* context = static_cast<fi_context2*>(e.op_context);
      if ((e.flags & FI_RECV) != 0) {
        on_arrival(static_cast<std::uint32_t>(context - receive_contexts_.data()), e.tag);
      } else if ((e.flags & FI_READ) != 0) {
        on_read_done(read_of(e.op_context), true);
      } else {
        free_slots_.push_back(static_cast<std::uint32_t>(context - send_contexts_.data()));
      }
    }
    if (n < 16) break;
  }
  if (!unposted_.empty()) {
    std::vector<std::uint32_t> again;
    again.swap(unposted_);
    for (const std::uint32_t b : again) post_receive(b);
  }
  flush_unsent();
  post_reads();
  // Credits due that the endpoint refused when they fell due.
  for (const std::uint32_t peer : owed_) {
    const Peer& p = peers_[peer];
    if (p.consumed_here - p.consumed_told >= window_ / 2 || p.matched_here - p.matched_told >= credit_share_ / 4) {
      send_credit(peer);
    }
  }
}

void Transport::on_error() {
  fi_cq_err_entry error{};
  if (fi_cq_readerr(fabric_->queue(), &error, 0) != 1) fail("reported an error it then could not read");
  if (Read* read = read_of(error.op_context)) {
    // A failed read fails its message at both ends (the engine's fin),
    // not the job.
    if (!read_failure_reported_) {
      std::fprintf(stderr, "rank %u: a remote read failed: %s\n", me_, fabric_error("completion", -error.err).c_str());
      read_failure_reported_ = true;
    }
    on_read_done(read, false);
    return;
  }
  auto* context = static_cast<fi_context2*>(error.op_context);
  std::string with;
  if (context >= send_contexts_.data() && context < send_contexts_.data() + send_contexts_.size()) {
    with = " on a send";
  } else if (error.tag != 0) {
    with = " on a receive from rank " + std::to_string(tag_source(error.tag));
  }
  fail("failed" + with + ": " + fabric_error("completion", -error.err) +
       "; a rank on another node has probably ended or the network between the nodes broke");
}

void Transport::on_arrival(std::uint32_t buffer, std::uint64_t tag) {
  WireMessage* m = receive_buffer(buffer);
  const std::uint32_t source = tag_source(tag);
  if (source >= peers_.size() || peers_[source].address == FI_ADDR_NOTAVAIL || m->wire.source != source) {
    fail("delivered a message from an unknown sender (tag " + std::to_string(tag) + ")");
  }
  Peer& p = peers_[source];
  p.consumed_there = std::max(p.consumed_there, m->wire.consumed);
  p.matched_there = std::max(p.matched_there, m->wire.matched);
  if (tag_kind(tag) == WireKind::credit) {
    post_receive(buffer);
    return;
  }
  const bool data = carries_data(m->packet.header.kind);
  if (data) m->packet.chunk.buffer.id = buffer;  // eager_data() of the sender's finds it here
  if (m->wire.seq != p.next_seq) {
    p.early.emplace(m->wire.seq, Arrival{buffer, data});
    return;
  }
  p.arrived.push_back({buffer, data});
  ++p.next_seq;
  for (auto next = p.early.find(p.next_seq); next != p.early.end(); next = p.early.find(p.next_seq)) {
    p.arrived.push_back(next->second);
    p.early.erase(next);
    ++p.next_seq;
  }
  if (!p.listed) {
    p.listed = true;
    ready_.push_back(source);
  }
}

void Transport::post_receive(std::uint32_t buffer) {
  const ssize_t posted = fi_trecv(fabric_->endpoint(), receive_buffer(buffer), stride_, nullptr, FI_ADDR_UNSPEC, 0,
                                  ~std::uint64_t{0}, &receive_contexts_[buffer]);
  if (posted == -FI_EAGAIN) {
    unposted_.push_back(buffer);
  } else if (posted != 0) {
    fail(fabric_error("fi_trecv", posted));
  }
}

void Transport::take(std::uint32_t sender, Peer& p) {
  const Arrival a = p.arrived.front();
  p.arrived.pop_front();
  if (!a.data) post_receive(a.buffer);
  ++p.consumed_here;
  if (p.consumed_here - p.consumed_told >= window_ / 2 && send_credit(sender)) return;
  owe(sender, p);
}

const progress::Packet* Transport::peek(std::uint32_t sender) {
  Peer& p = peers_[sender];
  if (p.arrived.empty()) read_completions();
  if (p.deferred || p.arrived.empty()) return nullptr;
  return &receive_buffer(p.arrived.front().buffer)->packet;
}

void Transport::consume(std::uint32_t sender) { take(sender, peers_[sender]); }

bool Transport::may_sleep() {
  if (!active()) return true;
  // What we owe goes out first: a sender may be waiting for it.
  for (std::size_t i = 0; i < owed_.size();) {
    Peer& p = peers_[owed_[i]];
    const bool settled =
        (p.consumed_here == p.consumed_told && p.matched_here == p.matched_told) || send_credit(owed_[i]);
    if (settled) {
      p.owed = false;
      owed_[i] = owed_.back();
      owed_.pop_back();
    } else {
      ++i;
    }
  }
  flush_unsent();
  post_reads();
  if (!unsent_.empty() || !owed_.empty() || !unposted_reads_.empty()) {
    return false;  // the endpoint needs progress to take them
  }
  fid* queue = &fabric_->queue()->fid;
  if (fi_trywait(fabric_->fabric(), &queue, 1) != FI_SUCCESS) return false;
  watch_.arm();
  return true;
}

}  // namespace mpf::net
