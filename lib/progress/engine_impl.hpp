// The progress engine's protocols and matching (see engine.hpp): the
// definitions of BasicEngine<T>, included where the engine is instantiated
// for a transport (engine.cpp for the library, the unit tests for the
// loopback transport).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "progress/engine.hpp"

namespace mpf::progress {

namespace detail {

// memcpy that takes a null buffer with nothing to copy: MPI lets a
// zero-count message's buffer be NULL, and memcpy does not.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(to, from, bytes);
}

}  // namespace detail

template <transport::Transport T>
void BasicEngine<T>::init(T& transport, const common::Tunables& t) {
  transport_ = &transport;
  control_ = &transport.node().rank(transport.local_rank());
  counters_ = &control_->counters;
  introspection_ = &transport.node().introspection(transport.local_rank());
  collectives_.init(*introspection_);
  unexpected_ = std::make_unique<match::UnexpectedQueue>(
      static_cast<std::size_t>(t.integer(common::Tunable::unexpected_pool)), transport.size());
  backlog_.assign(transport.size(), {});
  data_sent_.assign(transport.size(), 0);
  matched_seen_.assign(transport.size(), 0);
  rendezvous_out_.assign(transport.size(), 0);
  credit_limit_ = match::UnexpectedQueue::sender_share(
      static_cast<std::size_t>(t.integer(common::Tunable::unexpected_pool)), transport.size());
  short_limit_ = static_cast<std::uint64_t>(t.integer(common::Tunable::short_limit));
  eager_limit_ = T::kCapabilities.eager
                     ? std::min<std::uint64_t>(static_cast<std::uint64_t>(t.integer(common::Tunable::eager_limit)),
                                               transport.eager_bytes())
                     : 0;
  debug_ = common::DebugTopics::from(t);
  const std::string& mode = t.text(common::Tunable::rndv_mode);
  rndv_mode_ = mode == "put"    ? RndvMode::put
               : mode == "copy" ? RndvMode::copy
               : mode == "get"  ? RndvMode::get
                                : RndvMode::split;

  const auto spins = static_cast<std::uint64_t>(t.integer(common::Tunable::spin_count));
  const auto yields = static_cast<std::uint64_t>(t.integer(common::Tunable::yield_count));
  const std::string& policy = t.text(common::Tunable::wait_policy);
  if (policy == "spin") {
    spin_limit_ = std::numeric_limits<std::uint64_t>::max();
  } else if (policy == "yield") {
    // Polls only with a CPU per rank: with more ranks than CPUs they would
    // take the CPU from the rank with work, hundreds of times slower.
    spin_limit_ = transport.oversubscribed() ? 0 : spins;
    never_sleep_ = true;
  } else if (policy == "sleep") {
    spin_limit_ = 0;
    yield_limit_ = 0;
  } else if (transport.oversubscribed()) {
    // More ranks than CPUs: a poll takes the CPU from a rank that could be
    // producing what we wait for, so do not poll; yield only while holding
    // one of the node's yield slots, else sleep until woken.
    spin_limit_ = 0;
    yield_slots_.init(transport.node(), transport.local_rank(), transport.local_size(),
                      YieldSlots::slots_for(transport.local_size(), transport.ncpus(),
                                            static_cast<std::uint32_t>(t.integer(common::Tunable::yielders_per_cpu)),
                                            static_cast<std::uint32_t>(t.integer(common::Tunable::all_yield_per_cpu))));
    yield_ns_ = static_cast<std::uint64_t>(t.integer(common::Tunable::yield_us)) * 1000;
  } else {
    spin_limit_ = spins;
    yield_limit_ = yields;
  }
}

template <transport::Transport T>
std::uint64_t BasicEngine<T>::now_ns() const {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// ---------------------------------------------------------------------------
// Sending

template <transport::Transport T>
void BasicEngine<T>::start_send(Request* r) {
  r->is_send = true;
  ++incomplete_sends_;
  r->status = Completion{};
  r->offset = 0;
  const auto peer = static_cast<std::uint32_t>(r->peer);
  if (!backlog_[peer].empty() || !try_start_send(r)) [[unlikely]] {
    r->stage = Stage::backlogged;
    shm::count(counters_->flow_stalls);
    enqueue(peer, {Outbound::What::start, r, {}});
  }
}

template <transport::Transport T>
bool BasicEngine<T>::try_send_now(std::uint32_t peer, std::int32_t tag, std::uint32_t context, const void* buffer,
                                  std::uint64_t bytes, std::uint16_t signature) {
  if (bytes > short_limit_ || !backlog_[peer].empty() || debug_.protocol) return false;
  constexpr std::uint64_t cost = match::UnexpectedQueue::kEntryBytes;
  if (data_sent_[peer] - matched_seen_[peer] + cost > credit_limit_) return false;
  Packet* p = transport_->try_claim(peer);
  if (p == nullptr) return false;
  p->header = {PacketKind::short_msg, 0, signature, context, tag, transport_->rank(), bytes, 0};
  detail::copy_bytes(p->inline_data, buffer, bytes);
  data_sent_[peer] += cost;
  transport_->publish(peer);
  shm::count(counters_->short_sent);
  shm::count(counters_->short_bytes, bytes);
  return true;
}

template <transport::Transport T>
bool BasicEngine<T>::try_start_send(Request* r) {
  const auto peer = static_cast<std::uint32_t>(r->peer);
  Packet* p = transport_->try_claim(peer);
  if (p == nullptr) return false;
  PacketHeader& h = p->header;
  h.flags = r->mode == SendMode::synchronous ? kSynchronous : 0;
  h.signature = r->signature;
  h.context = r->context;
  h.tag = r->tag;
  h.source = transport_->rank();
  h.bytes = r->bytes;
  h.cookie = r->cookie();
  // Flow control: what of ours waits unmatched at the peer costs at most
  // credit_limit_ of its unexpected pool (match::UnexpectedQueue::cost);
  // beyond that, rendezvous (envelope only). The peer's counter is read
  // again only when the last value we read says we are at the limit (it
  // only grows), so a steady stream does not pull the counter's cache line
  // over on every send.
  const bool carries_data = r->bytes <= eager_limit_ || r->bytes <= short_limit_;
  const std::uint64_t cost = match::UnexpectedQueue::kEntryBytes + (r->bytes <= short_limit_ ? 0 : r->bytes);
  bool credit = carries_data && data_sent_[peer] - matched_seen_[peer] + cost <= credit_limit_;
  if (carries_data && !credit) [[unlikely]] {
    matched_seen_[peer] = transport_->matched_by(peer);
    credit = data_sent_[peer] - matched_seen_[peer] + cost <= credit_limit_;
    if (!credit) shm::count(counters_->flow_stalls);
  }
  if (debug_.protocol) [[unlikely]] {
    const char* protocol = carries_data && !credit    ? "rendezvous (out of credit: "
                           : r->bytes <= short_limit_ ? "short"
                           : r->bytes <= eager_limit_ ? "eager"
                                                      : "rendezvous";
    const bool stalled = carries_data && !credit;
    common::debug_report(transport_->rank(), "send %llu bytes to rank %d tag %d: %s%s%s",
                         static_cast<unsigned long long>(r->bytes), r->peer, r->tag, protocol,
                         stalled ? std::to_string(data_sent_[peer] - matched_seen_[peer]).c_str() : "",
                         stalled ? " bytes of its unexpected pool in use)" : "");
  }
  if (credit && r->bytes <= short_limit_) {
    data_sent_[peer] += cost;
    h.kind = PacketKind::short_msg;
    detail::copy_bytes(p->inline_data, r->buffer, r->bytes);
    transport_->publish(peer);
    shm::count(counters_->short_sent);
    shm::count(counters_->short_bytes, r->bytes);
    sent_with_data(r);
    return true;
  }
  if (credit && r->bytes <= eager_limit_) {
    transport::EagerRef buffer{};
    if (transport_->try_take_eager(peer, r->bytes, buffer) == common::Status::done) [[likely]] {
      data_sent_[peer] += cost;
      h.kind = PacketKind::eager;
      p->chunk = {buffer, static_cast<std::uint32_t>(r->bytes), 0};
      detail::copy_bytes(transport_->eager_data(transport_->rank(), buffer), r->buffer, r->bytes);
      transport_->publish(peer);
      transport_->note_eager_sent(static_cast<std::uint32_t>(r->bytes));
      shm::count(counters_->eager_sent);
      shm::count(counters_->eager_bytes, r->bytes);
      sent_with_data(r);
      return true;
    }
    // Every eager buffer is in use (its receivers have not copied them out
    // yet): rendezvous needs none.
    shm::count(counters_->flow_stalls);
    if (debug_.protocol) [[unlikely]] {
      common::debug_report(transport_->rank(), "no free eager buffer: rendezvous instead");
    }
  }
  h.kind = PacketKind::rts;
  r->rendezvous = true;
  ++rendezvous_out_[peer];
  r->remote = transport_->expose(peer, r->buffer, r->bytes);  // unexposed when the send completes
  p->rendezvous = {r->remote, 0, 0, 0};
  transport_->publish(peer);
  shm::count(counters_->rndv_sent);
  shm::count(counters_->rndv_bytes, r->bytes);
  r->stage = Stage::awaiting_fin;  // or a cts, if the receiver asks for put or copy
  return true;
}

// Pushes chunks of a rendezvous through eager buffers (two-copy path).
// Returns true when every chunk is out.
template <transport::Transport T>
bool BasicEngine<T>::try_stream(Request* s) {
  const auto peer = static_cast<std::uint32_t>(s->peer);
  while (s->offset < s->transfer_bytes) {
    transport::EagerRef buffer{};
    if (transport_->try_take_chunk(peer, buffer) != common::Status::done) return false;
    Packet* p = transport_->try_claim(peer);
    if (p == nullptr) {
      // Give the buffer back: we own it and nobody has seen it.
      transport_->release_eager(transport_->rank(), buffer);
      return false;
    }
    const std::uint64_t chunk = std::min<std::uint64_t>(transport_->eager_bytes(), s->transfer_bytes - s->offset);
    detail::copy_bytes(transport_->eager_data(transport_->rank(), buffer), s->buffer + s->offset, chunk);
    p->header = {PacketKind::data, 0, 0, s->context, s->tag, transport_->rank(), s->transfer_bytes, s->peer_cookie};
    p->chunk = {buffer, static_cast<std::uint32_t>(chunk), s->offset};
    transport_->publish(peer);
    s->offset += chunk;
  }
  complete(s, s->transfer_bytes);
  return true;
}

template <transport::Transport T>
void BasicEngine<T>::send_control(std::uint32_t peer, const PacketHeader& header, const RendezvousFields& fields) {
  if (backlog_[peer].empty()) [[likely]] {
    if (Packet* p = transport_->try_claim(peer)) {
      p->header = header;
      p->rendezvous = fields;
      transport_->publish(peer);
      return;
    }
  }
  Outbound item{Outbound::What::control, nullptr, {}};
  item.packet.header = header;
  item.packet.rendezvous = fields;
  enqueue(peer, item);
}

template <transport::Transport T>
void BasicEngine<T>::enqueue(std::uint32_t peer, Outbound item) {
  backlog_[peer].push_back(item);
  ++backlog_count_;
}

template <transport::Transport T>
void BasicEngine<T>::flush_backlog() {
  for (std::uint32_t peer = 0; peer < backlog_.size() && backlog_count_ > 0; ++peer) {
    std::deque<Outbound>& queue = backlog_[peer];
    while (!queue.empty()) {
      Outbound& item = queue.front();
      bool sent = false;
      switch (item.what) {
        case Outbound::What::start:
          sent = try_start_send(item.request);
          break;
        case Outbound::What::stream:
          sent = try_stream(item.request);
          break;
        case Outbound::What::control:
          if (Packet* p = transport_->try_claim(peer)) {
            *p = item.packet;
            transport_->publish(peer);
            sent = true;
          }
          break;
      }
      if (!sent) break;  // keep this peer's order: nothing overtakes the head
      queue.pop_front();
      --backlog_count_;
    }
  }
}

// ---------------------------------------------------------------------------
// Receiving

template <transport::Transport T>
void BasicEngine<T>::start_recv(Request* r) {
  r->is_send = false;
  r->status = Completion{};
  r->offset = 0;
  if (match::UnexpectedMessage* m = unexpected_->find(r->peer, r->tag, r->context)) {
    unexpected_->remove(m);
    receive_claimed(r, m);
    return;
  }
  r->stage = Stage::posted;
  r->posted_ns = 0;  // stamped when first published (publish_queues): no clock read here
  posted_.post(r);
}

template <transport::Transport T>
bool BasicEngine<T>::try_recv_now(std::uint32_t source, std::int32_t tag, std::uint32_t context, void* buffer,
                                  std::uint64_t capacity, std::uint16_t signature, Completion& status) {
  if (!posted_.list().empty() || debug_.protocol) return false;  // a receive posted earlier matches first
  // A message that arrived before this receive is the one it matches: the
  // oldest that fits, taken from the unexpected queue.
  if (match::UnexpectedMessage* m = unexpected_->find(static_cast<std::int32_t>(source), tag, context)) {
    if (m->kind == PacketKind::rts || m->bytes > capacity || (m->flags & kSynchronous) != 0 ||
        (signature != 0 && m->signature != 0 && m->signature != signature)) {
      return false;  // the usual path's to handle
    }
    unexpected_->remove(m);
    const std::uint64_t bytes = m->bytes;
    copy_out({m->kind, m->flags, m->signature, m->source, m->tag, bytes, m->cookie,
              m->kind == PacketKind::short_msg ? m->data : m->held, m->where},
             buffer, bytes);
    count_received(bytes);
    status = Completion{static_cast<std::int32_t>(source), m->tag, 0, bytes, bytes, false};
    unexpected_->free(m);
    transport_->retry_deferred();  // room in the pool: look at held-back senders again
    return true;
  }
  // Taking the sender's next packet is MPI's matching only if no receive
  // posted before this one and no message that arrived before it is in
  // line first; rendezvous copies and held-back sends need progress.
  auto direct = [&] {
    return posted_.list().empty() && backlog_count_ == 0 && reads_.empty() && splits_.empty() &&
           unexpected_->find(static_cast<std::int32_t>(source), tag, context) == nullptr;
  };
  if (!direct()) return false;
  // A ping-pong's reply comes within microseconds; a longer wait goes the
  // usual way, which shows it to the inspector and yields or sleeps. With
  // more ranks than CPUs only a packet already there is taken.
  const std::uint64_t polls = spin_limit_ == 0 ? 1 : kPublishAfterPolls;
  const Packet* p = transport_->peek(source);
  if (p == nullptr) transport_->warm_next_eager();
  for (std::uint64_t poll = 1; p == nullptr; ++poll) {
    if (poll >= polls) return false;
    cpu_relax();
    // Now and then the rest of the engine: other senders' packets, the
    // progress hook. The awaited packet may then be drained into the
    // unexpected queue, where the usual path finds it.
    if (poll % 64 == 0 && (progress(), !direct())) return false;
    p = transport_->peek(source);
  }
  const PacketHeader& h = p->header;
  if ((h.kind != PacketKind::short_msg && h.kind != PacketKind::eager) || h.context != context ||
      (tag != kAnyTag && h.tag != tag) || h.bytes > capacity || (h.flags & kSynchronous) != 0 ||
      (signature != 0 && h.signature != 0 && h.signature != signature)) {
    return false;  // truncation, a signature mismatch and synchronous sends are the usual path's to handle
  }
  copy_out(message_of(source, *p), buffer, h.bytes);
  count_received(h.bytes);
  status = Completion{static_cast<std::int32_t>(source), h.tag, 0, h.bytes, h.bytes, false};
  transport_->consume(source);
  return true;
}

template <transport::Transport T>
bool BasicEngine<T>::cancel_recv(Request* r) {
  if (r->stage != Stage::posted) return false;
  posted_.remove(r);
  r->status.cancelled = true;
  complete(r, 0);
  return true;
}

template <transport::Transport T>
void BasicEngine<T>::cancel_send(Request* s) {
  if (s->cancel_pending || s->status.cancelled) return;
  s->cancel_pending = true;
  // Behind the message in the same ring (or backlog): when the receiver
  // reads it, the message has been matched or waits in its unexpected queue.
  send_control(static_cast<std::uint32_t>(s->peer),
               {PacketKind::cancel, 0, 0, 0, 0, transport_->rank(), 0, s->cookie()}, {});
}

template <transport::Transport T>
void BasicEngine<T>::on_cancel(std::uint32_t source, const Packet& p) {
  match::UnexpectedMessage* m = unexpected_->find_sent(source, p.header.cookie);
  if (m != nullptr) {
    // Dropped as a match would take it: the sender's credit goes back.
    transport_->count_matched(source, match::UnexpectedQueue::cost(m->kind, m->bytes));
    unexpected_->remove(m);
    unexpected_->free(m);
    transport_->retry_deferred();
  }
  send_control(source,
               {PacketKind::cancel_reply, 0, 0, 0, 0, transport_->rank(), m != nullptr ? 1u : 0u, p.header.cookie}, {});
}

template <transport::Transport T>
void BasicEngine<T>::on_cancel_reply(Request* s, bool cancelled) {
  s->cancel_pending = false;
  if (!cancelled) return;  // matched: the send completes (or has completed) as usual
  s->status.cancelled = true;
  if (s->stage == Stage::complete) {
    s->status.bytes = 0;
  } else {
    complete(s, 0);  // a synchronous or rendezvous send no receive will answer now
  }
}

template <transport::Transport T>
const match::UnexpectedMessage* BasicEngine<T>::probe(std::int32_t source, std::int32_t tag, std::uint32_t context) {
  progress();
  return unexpected_->find(source, tag, context);
}

template <transport::Transport T>
match::UnexpectedMessage* BasicEngine<T>::claim(std::int32_t source, std::int32_t tag, std::uint32_t context) {
  match::UnexpectedMessage* m = unexpected_->find(source, tag, context);
  if (m != nullptr) unexpected_->remove(m);
  return m;
}

template <transport::Transport T>
void BasicEngine<T>::receive_claimed(Request* r, match::UnexpectedMessage* m) {
  r->is_send = false;
  const Message msg{m->kind, m->flags, m->signature, m->source,
                    m->tag,  m->bytes, m->cookie,    m->kind == PacketKind::short_msg ? m->data : m->held,
                    m->where};
  deliver(r, msg);
  unexpected_->free(m);
  transport_->retry_deferred();  // room in the pool: look at held-back senders again
}

template <transport::Transport T>
void BasicEngine<T>::complete(Request* r, std::uint64_t bytes) {
  r->status.bytes = bytes;
  r->stage = Stage::complete;
  if (r->is_send) --incomplete_sends_;
  if (r->rendezvous) {
    --rendezvous_out_[static_cast<std::uint32_t>(r->peer)];
    if (r->is_send) transport_->unexpose(static_cast<std::uint32_t>(r->peer), r->remote);
  }
}

namespace detail {

// Chunks of a thirty-second of the message, between 128 KiB (a system call
// per chunk stays a few per cent of the copy) and 4 MiB (a round of progress
// stays short).
inline std::uint32_t split_chunk_bytes(std::uint64_t bytes) {
  constexpr std::uint64_t kGrain = 64 * 1024;
  const std::uint64_t chunk = (bytes / 32 + kGrain - 1) / kGrain * kGrain;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(chunk, kSplitChunkMin, 4 << 20));
}

}  // namespace detail

template <transport::Transport T>
auto BasicEngine<T>::message_of(std::uint32_t source, const Packet& p) -> Message {
  const PacketHeader& h = p.header;
  transport::DataRef where{};
  if (h.kind == PacketKind::eager) {
    where.eager = p.chunk.buffer;
  } else if (h.kind == PacketKind::rts) {
    where.remote = p.rendezvous.memory;
  }
  return {h.kind, h.flags, h.signature, source,
          h.tag,  h.bytes, h.cookie,    h.kind == PacketKind::short_msg ? p.inline_data : nullptr,
          where};
}

template <transport::Transport T>
void BasicEngine<T>::copy_out(const Message& m, void* to, std::uint64_t bytes) {
  transport_->count_matched(m.source, match::UnexpectedQueue::cost(m.kind, m.bytes));
  if (m.data != nullptr) {
    detail::copy_bytes(to, m.data, bytes);  // a short message's, or an unexpected eager message's held copy
  } else {
    detail::copy_bytes(to, transport_->eager_data(m.source, m.where.eager), bytes);
    transport_->release_eager(m.source, m.where.eager);
  }
}

template <transport::Transport T>
void BasicEngine<T>::deliver(Request* r, const Message& m) {
  r->status.source = static_cast<std::int32_t>(m.source);
  r->status.tag = m.tag;
  r->peer_rank = m.source;
  const std::uint64_t accepted = std::min(m.bytes, r->bytes);
  r->status.message_bytes = m.bytes;
  if (m.bytes > r->bytes) {
    r->status.error = kErrorTruncated;
  } else if (r->signature != 0 && m.signature != 0 && r->signature != m.signature) [[unlikely]] {
    r->status.error = kErrorSignature;  // the data still moves: the protocol completes as usual
  }
  count_received(accepted);
  const bool sync = (m.flags & kSynchronous) != 0;
  auto ack = [&] { send_control(m.source, {PacketKind::ack, 0, 0, 0, 0, transport_->rank(), 0, m.cookie}, {}); };
  switch (m.kind) {
    case PacketKind::short_msg:
    case PacketKind::eager:
      copy_out(m, r->buffer, accepted);
      if (sync) ack();
      complete(r, accepted);
      return;
    case PacketKind::rts: {
      r->stage = Stage::receiving;
      r->peer_cookie = m.cookie;
      r->transfer_bytes = accepted;
      // One copy where the transport reaches the sender's memory: a read
      // (get), a write by the sender (put), or both ends at once (split);
      // else chunks through eager buffers.
      const bool direct = transport_->rma_path(m.source) == transport::RmaPath::direct && rndv_mode_ != RndvMode::copy;
      const bool by_get = direct && T::kCapabilities.get &&
                          (rndv_mode_ != RndvMode::put || !T::kCapabilities.put || !transport_->can_put(m.source));
      const bool by_put = direct && !by_get && T::kCapabilities.put;
      const bool split = by_get && T::kCapabilities.split_copy && rndv_mode_ == RndvMode::split &&
                         accepted >= kSplitMinBytes && rendezvous_out_[m.source] == 0 &&
                         transport_->rma_proven(m.source);
      if (debug_.protocol) [[unlikely]] {
        common::debug_report(transport_->rank(), "receive %llu bytes from rank %u tag %d by %s",
                             static_cast<unsigned long long>(accepted), m.source, m.tag,
                             split    ? "single copies by both ends (split)"
                             : by_put ? "a single copy by the sender (put)"
                             : by_get ? "a single copy by the receiver (get)"
                                      : "two copies through eager buffers");
      }
      if (by_get) {
        r->remote = m.where.remote;
        r->offset = 0;
        r->split = -1;
        r->chunk_bytes = split ? detail::split_chunk_bytes(accepted) : 0;
        // A split starts at once when a SplitCopy of the pair is free and no
        // earlier receive waits for one. Otherwise the message is read
        // after this round's poll (advance_reads): the ring slots of the
        // packets drained so far go back to the sender first, so it can hand
        // us more while we copy.
        if (split && reads_.empty() && start_split(r, m.source)) return;
        reads_.push_back(r);
        return;
      }
      if (by_put) {
        send_control(m.source, {PacketKind::cts, 0, 0, 0, 0, transport_->rank(), accepted, m.cookie},
                     {transport_->expose(m.source, r->buffer, accepted), r->cookie(), 0, 0});
        return;
      }
      send_control(m.source, {PacketKind::cts, kCopyMode, 0, 0, 0, transport_->rank(), accepted, m.cookie},
                   {{0, 0}, r->cookie(), 0, 0});
      if (accepted == 0) complete(r, 0);
      return;
    }
    default:
      return;  // not a message kind; on_packet never passes one
  }
}

template <transport::Transport T>
void BasicEngine<T>::on_cts(Request* s, const Packet& p) {
  s->peer_cookie = p.rendezvous.peer_cookie;
  s->transfer_bytes = p.header.bytes;
  const auto peer = static_cast<std::uint32_t>(s->peer);
  if ((p.header.flags & kSplitMode) != 0) {
    s->remote = p.rendezvous.memory;
    s->split = static_cast<std::int32_t>(p.rendezvous.split);
    s->chunk_bytes = p.rendezvous.chunk_bytes;
    splits_.push_back(s);
    return;
  }
  if ((p.header.flags & kCopyMode) == 0) {
    const common::Status put = transport_->put(peer, p.rendezvous.memory, 0, s->buffer, s->transfer_bytes);
    if (put == common::Status::done) {
      finish_single_copy(s, peer);
      return;
    }
    if (put == common::Status::error) [[unlikely]] {
      fail_copy(s, peer);
      return;
    }
    // Refused: the chunks go through eager buffers instead.
  }
  s->stage = Stage::streaming;
  s->offset = 0;
  if (!backlog_[peer].empty() || !try_stream(s)) enqueue(peer, {Outbound::What::stream, s, {}});
}

template <transport::Transport T>
void BasicEngine<T>::finish_single_copy(Request* r, std::uint32_t peer) {
  send_control(peer, {PacketKind::fin, 0, 0, 0, 0, transport_->rank(), r->transfer_bytes, r->peer_cookie}, {});
  complete(r, r->transfer_bytes);
}

template <transport::Transport T>
void BasicEngine<T>::fail_copy(Request* r, std::uint32_t peer) {
  send_control(peer, {PacketKind::fin, kFailed, 0, 0, 0, transport_->rank(), 0, r->peer_cookie}, {});
  fail(r);
}

// Reads the oldest matched rendezvous (get), one per round of progress; on
// refusal, asks the sender for the two-copy pipeline. A
// message that could be split (chunk_bytes set) was left here because every
// SplitCopy of the pair was in use: it is read a chunk per round, and as
// soon as a SplitCopy is free again the rest becomes a split, so that the
// sender copies from the back while we go on from the front, rather than
// leaving the whole message to the receiver.
template <transport::Transport T>
void BasicEngine<T>::advance_reads() {
  Request* r = reads_.front();
  const std::uint32_t source = r->peer_rank;
  if (r->chunk_bytes != 0) {
    const std::uint64_t left = r->transfer_bytes - r->offset;
    if (left > r->chunk_bytes && start_split(r, source)) {
      reads_.pop_front();
      if (debug_.protocol) [[unlikely]] {
        common::debug_report(transport_->rank(), "receive %llu bytes from rank %u tag %d: split from byte %llu on",
                             static_cast<unsigned long long>(r->transfer_bytes), source, r->status.tag,
                             static_cast<unsigned long long>(r->offset));
      }
      return;
    }
    const std::uint64_t n = std::min<std::uint64_t>(r->chunk_bytes, left);
    const common::Status read = transport_->get(source, r->buffer + r->offset, r->remote, r->offset, n);
    if (read != common::Status::done) [[unlikely]] {
      reads_.pop_front();
      if (read == common::Status::error) {
        fail_copy(r, source);
        return;
      }
      // Refused after earlier reads worked: the sender streams the whole
      // message through eager buffers (the bytes read so far come again).
      r->offset = 0;
      send_control(source, {PacketKind::cts, kCopyMode, 0, 0, 0, transport_->rank(), r->transfer_bytes, r->peer_cookie},
                   {{0, 0}, r->cookie(), 0, 0});
      return;
    }
    copied_ = true;
    r->offset += n;
    if (r->offset < r->transfer_bytes) return;
    reads_.pop_front();
    if (debug_.protocol) [[unlikely]] {
      common::debug_report(transport_->rank(),
                           "receive %llu bytes from rank %u tag %d: read alone, a chunk at a time "
                           "(every split copy of the pair was in use)",
                           static_cast<unsigned long long>(r->transfer_bytes), source, r->status.tag);
    }
    finish_single_copy(r, source);
    return;
  }
  reads_.pop_front();
  if constexpr (T::kCapabilities.async_get) {
    if (transport_->reads_later(source)) [[unlikely]] {
      const common::Status started = transport_->start_get(source, r->buffer, r->remote, r->transfer_bytes, r->cookie());
      if (started == common::Status::in_progress) {
        ++gets_in_flight_;  // finished in progress(): finish_gets()
        return;
      }
      if (started == common::Status::error) {
        fail_copy(r, source);
        return;
      }
      send_control(source,
                   {PacketKind::cts, kCopyMode, 0, 0, 0, transport_->rank(), r->transfer_bytes, r->peer_cookie},
                   {{0, 0}, r->cookie(), 0, 0});
      return;
    }
  }
  const common::Status read = transport_->get(source, r->buffer, r->remote, 0, r->transfer_bytes);
  if (read == common::Status::done) {
    copied_ = true;
    finish_single_copy(r, source);
    return;
  }
  if (read == common::Status::error) [[unlikely]] {
    fail_copy(r, source);
    return;
  }
  send_control(source, {PacketKind::cts, kCopyMode, 0, 0, 0, transport_->rank(), r->transfer_bytes, r->peer_cookie},
               {{0, 0}, r->cookie(), 0, 0});
}

// ---------------------------------------------------------------------------
// Split copies (see engine.hpp and transport::SplitCopy)

// The receiver's side, from the match on: takes a SplitCopy of the pair for
// the rest of `r` (remote, chunk_bytes set; the first `offset` bytes, whole
// chunks, read already) and tells the sender where the data goes. False when
// all are in use.
template <transport::Transport T>
bool BasicEngine<T>::start_split(Request* r, std::uint32_t source) {
  if constexpr (!T::kCapabilities.split_copy) return false;  // never asked: deliver() checks first
  const std::uint32_t chunk = r->chunk_bytes;
  const auto chunks = static_cast<std::uint32_t>((r->transfer_bytes + chunk - 1) / chunk);
  const auto read = static_cast<std::uint32_t>(r->offset / chunk);
  const std::int32_t split = transport_->try_take_split(source, chunks, read, r->offset);
  if (split < 0) return false;
  r->split = split;
  send_control(
      source, {PacketKind::cts, kSplitMode, 0, 0, 0, transport_->rank(), r->transfer_bytes, r->peer_cookie},
      {transport_->expose(source, r->buffer, r->transfer_bytes), r->cookie(), static_cast<std::uint32_t>(split), chunk});
  splits_.push_back(r);
  return true;
}

template <transport::Transport T>
void BasicEngine<T>::advance_splits() {
  // Receives first; a send's chunks only in a round that copied none of
  // those. When both directions are busy each end copies what it receives
  // (as get does), and helps its receivers once that is done.
  for (const bool sends : {false, true}) {
    for (std::size_t i = 0; i < splits_.size();) {
      Request* x = splits_[i];
      if (x->is_send != sends) {
        ++i;
      } else if (advance_split(x, !sends || !copied_)) {
        splits_[i] = splits_.back();
        splits_.pop_back();
      } else {
        ++i;
      }
    }
  }
}

// Copies one chunk of `x`'s message if `claim` and one is left to claim;
// completes `x` once every byte has arrived, or fails it when either end
// could not copy its chunk. Returns true when `x` is finished here.
template <transport::Transport T>
bool BasicEngine<T>::advance_split(Request* x, bool claim) {
  if constexpr (!T::kCapabilities.split_copy) return true;  // never started: start_split() says so
  const std::uint32_t me = transport_->rank();
  const std::uint32_t peer = x->is_send ? static_cast<std::uint32_t>(x->peer) : x->peer_rank;
  const auto split = static_cast<std::uint32_t>(x->split);
  transport::SplitCopy& sc =
      x->is_send ? transport_->split_copy(me, peer, split) : transport_->split_copy(peer, me, split);
  constexpr std::uint64_t kLow = 0xffffffffu;
  // Claim: the receiver moves the front up, the sender moves the end down.
  std::uint64_t claims = sc.claims.load(std::memory_order_relaxed);
  std::int64_t chunk = -1;
  while (claim && x->chunk_bytes != 0) {
    const std::uint64_t front = claims & kLow, end = claims >> 32;
    if (front >= end) break;
    const std::uint64_t next = x->is_send ? ((end - 1) << 32 | front) : (end << 32 | (front + 1));
    if (sc.claims.compare_exchange_weak(claims, next, std::memory_order_relaxed)) {
      chunk = static_cast<std::int64_t>(x->is_send ? end - 1 : front);
      break;
    }
  }
  if (chunk >= 0) {
    const std::uint64_t offset = static_cast<std::uint64_t>(chunk) * x->chunk_bytes;
    const std::uint64_t n = std::min<std::uint64_t>(x->chunk_bytes, x->transfer_bytes - offset);
    const common::Status copy = x->is_send ? transport_->put(peer, x->remote, offset, x->buffer + offset, n)
                                           : transport_->get(peer, x->buffer + offset, x->remote, offset, n);
    if (copy == common::Status::done) [[likely]] {
      copied_ = true;
      // seq_cst: our copy happens before the peer sees the count, and the
      // read-modify-write is the full fence the wake check needs.
      if (sc.done.fetch_add(n, std::memory_order_seq_cst) + n == x->transfer_bytes) transport_->wake_after_fence(peer);
    } else if (x->is_send && copy == common::Status::retry) {
      // Refused: give the chunk back (only we move the end, and the front
      // cannot pass it) and leave the rest to the receiver, which has read
      // from us before.
      claims = sc.claims.load(std::memory_order_relaxed);
      while (!sc.claims.compare_exchange_weak(claims, static_cast<std::uint64_t>(chunk + 1) << 32 | (claims & kLow),
                                              std::memory_order_relaxed)) {
      }
      x->chunk_bytes = 0;
      transport_->wake(peer);  // it may sleep, counting on us for that chunk
    } else {
      // Failed (reported by the transport), or refused at the receiver
      // after earlier copies worked: the message cannot arrive whole. Both
      // ends see the mark and fail their requests.
      if (copy == common::Status::retry) {
        std::fprintf(stderr,
                     "rank %u: the receive of %llu bytes from rank %u fails: the kernel refused Cross Memory "
                     "Attach in the middle of it; run with --set rndv_mode=copy to avoid it\n",
                     me, static_cast<unsigned long long>(x->transfer_bytes), peer);
      }
      sc.done.fetch_or(transport::kSplitFailed, std::memory_order_seq_cst);
      transport_->wake_after_fence(peer);
    }
  }
  // Acquire: the other end's copies are visible once its count is.
  const std::uint64_t done = sc.done.load(std::memory_order_acquire);
  const bool failed = (done & transport::kSplitFailed) != 0;
  if (done != x->transfer_bytes && !failed) return false;
  if (x->is_send) {
    // The receiver may reuse the SplitCopy once we no longer look at it.
    send_control(peer,
                 {PacketKind::fin, static_cast<std::uint8_t>(kSplitMode | (failed ? kFailed : 0)), 0, 0, 0, me,
                  x->transfer_bytes, x->peer_cookie},
                 {{0, 0}, 0, split, 0});
  }
  if (failed) [[unlikely]] {
    fail(x);
  } else {
    complete(x, x->transfer_bytes);
  }
  return true;
}

// The receiver's side: the sender has seen every byte arrive (or the
// copy fail) and is done with the SplitCopy. The receive may not have
// noticed yet: it is complete (or failed).
template <transport::Transport T>
void BasicEngine<T>::on_split_fin(std::uint32_t source, const Packet& p) {
  if constexpr (T::kCapabilities.split_copy) {
    const std::uint32_t split = p.rendezvous.split;
    Request* r = pool_.find(p.header.cookie);
    if (r != nullptr && r->stage == Stage::receiving && r->split == static_cast<std::int32_t>(split)) {
      if (auto at = std::find(splits_.begin(), splits_.end(), r); at != splits_.end()) splits_.erase(at);
      if ((p.header.flags & kFailed) != 0) {
        fail(r);
      } else {
        complete(r, r->transfer_bytes);
      }
    }
    transport_->release_split(source, split);
  }
}

template <transport::Transport T>
void BasicEngine<T>::on_data(std::uint32_t source, const Packet& p) {
  Request* r = pool_.find(p.header.cookie);
  if (r != nullptr) {
    detail::copy_bytes(r->buffer + p.chunk.offset, transport_->eager_data(source, p.chunk.buffer), p.chunk.chunk_bytes);
    r->offset += p.chunk.chunk_bytes;
  }
  transport_->release_eager(source, p.chunk.buffer);
  if (r != nullptr && r->offset == r->transfer_bytes) complete(r, r->transfer_bytes);
}

template <transport::Transport T>
bool BasicEngine<T>::on_packet(std::uint32_t source, const Packet& p) {
  const PacketHeader& h = p.header;
  switch (h.kind) {
    case PacketKind::short_msg:
    case PacketKind::eager:
    case PacketKind::rts: {
      if (Request* r = posted_.take_match(source, h.tag, h.context)) [[likely]] {
        deliver(r, message_of(source, p));
        return true;
      }
      if (!unexpected_->has_room_for(source, match::UnexpectedQueue::cost(h.kind, h.bytes))) [[unlikely]] {
        // Leave it in the ring: the sender is throttled until receives are
        // posted (never dropped, never an abort).
        return false;
      }
      match::UnexpectedMessage* m = unexpected_->add(p, source, now_ns());
      if (h.kind == PacketKind::eager) {
        // Copied out at once, so that the sender has its buffer back for its
        // next messages while this one waits for its receive.
        detail::copy_bytes(unexpected_->hold(m), transport_->eager_data(source, p.chunk.buffer), h.bytes);
        transport_->release_eager(source, p.chunk.buffer);
      }
      shm::count(counters_->unexpected);
      const std::uint64_t used = unexpected_->used_bytes();
      if (used > counters_->unexpected_hwm_bytes.load(std::memory_order_relaxed)) {
        counters_->unexpected_hwm_bytes.store(used, std::memory_order_relaxed);
      }
      return true;
    }
    case PacketKind::cts:
      if (Request* s = pool_.find(h.cookie)) on_cts(s, p);
      return true;
    case PacketKind::data:
      on_data(source, p);
      return true;
    case PacketKind::fin:
      if ((h.flags & kSplitMode) != 0) {
        on_split_fin(source, p);
        return true;
      }
      [[fallthrough]];
    case PacketKind::ack:
      if (Request* r = pool_.find(h.cookie)) {
        if ((h.flags & kFailed) != 0) [[unlikely]] {
          fail(r);
        } else {
          complete(r, h.kind == PacketKind::fin ? h.bytes : r->bytes);
        }
      }
      return true;
    case PacketKind::cancel:
      on_cancel(source, p);
      return true;
    case PacketKind::cancel_reply:
      if (Request* s = pool_.find(h.cookie)) on_cancel_reply(s, h.bytes != 0);
      return true;
  }
  return true;  // an unknown kind cannot come from this build; consume it
}

// ---------------------------------------------------------------------------
// Introspection (slow path: only when a wait has lasted or the rank sleeps)

template <transport::Transport T>
void BasicEngine<T>::publish_blocked(const BlockedCall& call) {
  collectives_.publish(call.track);  // the counts a reader of this wait needs
  const auto now = static_cast<std::int64_t>(now_ns());
  introspection_->snapshot.write([&](shm::RankSnapshot& s) {
    shm::WaitRecord& w = s.wait;
    w.kind = call.kind;
    w.api = call.api;
    w.of = call.of;
    w.coll = call.coll;
    w.peer = call.peer;
    w.tag = call.tag;
    w.context = call.context;
    w.epoch = call.epoch;
    w.seq = call.seq;
    w.root = call.root;
    w.since_ns = now;
    // A bounded copy, not snprintf: this runs at every wait that lasts.
    const char* name = call.function != nullptr ? call.function : "";
    const std::size_t length = ::strnlen(name, sizeof w.function - 1);
    std::memcpy(w.function, name, length);
    w.function[length] = '\0';
  });
  blocked_published_ = true;
}

template <transport::Transport T>
void BasicEngine<T>::clear_blocked() {
  introspection_->snapshot.write([](shm::RankSnapshot& s) { s.wait.kind = shm::WaitKind::none; });
  blocked_published_ = false;
}

template <transport::Transport T>
void BasicEngine<T>::publish_queues() {
  collectives_.publish(nullptr);
  const auto now = static_cast<std::int64_t>(now_ns());
  introspection_->snapshot.write([&](shm::RankSnapshot& s) {
    s.published_ns = now;
    s.posted_total = static_cast<std::uint32_t>(posted_.list().size());
    s.unexpected_total = static_cast<std::uint32_t>(unexpected_->list().size());
    s.unexpected_bytes = unexpected_->used_bytes();
    s.backlog_total = static_cast<std::uint32_t>(backlog_count_);
    std::uint32_t n = 0;
    for (Request* r = posted_.list().front(); r != nullptr && n < shm::kListedEntries; r = r->next, ++n) {
      if (r->posted_ns == 0) r->posted_ns = static_cast<std::uint64_t>(now);  // posted at this time or before
      s.posted[n] = {r->peer, r->tag, r->context, 0, r->bytes, static_cast<std::int64_t>(r->posted_ns)};
    }
    s.posted_listed = n;
    n = 0;
    for (const match::UnexpectedMessage* m = unexpected_->list().front(); m != nullptr && n < shm::kListedEntries;
         m = m->next, ++n) {
      s.unexpected[n] = {static_cast<std::int32_t>(m->source), m->tag,   m->context,
                         static_cast<std::uint32_t>(m->kind),  m->bytes, static_cast<std::int64_t>(m->arrived_ns)};
    }
    s.unexpected_listed = n;
  });
}

template <transport::Transport T>
void BasicEngine<T>::progress() {
  transport_->flush_wakes();
  transport_->poll([this](std::uint32_t source, const Packet& p) { return on_packet(source, p); });
  if (backlog_count_ > 0) [[unlikely]]
    flush_backlog();
  copied_ = false;
  if (!reads_.empty()) [[unlikely]]
    advance_reads();
  if (!splits_.empty()) [[unlikely]]
    advance_splits();
  if constexpr (T::kCapabilities.async_get) {
    if (gets_in_flight_ > 0) [[unlikely]]
      finish_gets();
  }
  for (std::uint32_t i = 0; i < hook_count_; ++i) hooks_[i]();
}

// Reads that finish later (a network's remote reads): each finished one
// completes its receive and tells the sender (fin), or fails both.
template <transport::Transport T>
void BasicEngine<T>::finish_gets() {
  if constexpr (T::kCapabilities.async_get) {
    transport_->finished_gets([this](std::uint64_t cookie, bool ok) {
      --gets_in_flight_;
      Request* r = pool_.find(cookie);
      if (r == nullptr || r->stage != Stage::receiving) return;
      if (ok) {
        copied_ = true;
        finish_single_copy(r, r->peer_rank);
      } else {
        fail_copy(r, r->peer_rank);
      }
    });
  }
}

}  // namespace mpf::progress
