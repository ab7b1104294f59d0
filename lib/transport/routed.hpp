// The transport the library's engine runs over: the node's shared memory
// for ranks on this node, the network for ranks on other nodes, chosen per
// call by the peer's route with one inline branch (MPICH ch4's local-or-
// network choice). A job on one node never opens the network, and every
// call goes to shared memory after a load and a well-predicted branch.
//
// What the two halves lend keeps their names apart: an eager buffer of
// this rank's that the network lent carries net::Transport::kSendSlotMark
// in its id (a buffer of a peer's is that peer's route's); the capabilities are the
// shared-memory transport's and a network peer's reads finish later
// (async_get); a network peer's large messages are read remotely where the
// provider can (else streamed in chunks), never put and never split.
#pragma once

#include <cstdint>
#include <vector>

#include "net/transport.hpp"
#include "shm/transport.hpp"
#include "transport/interface.hpp"
#include "wireup/routes.hpp"

namespace mpf::transport {

class Routed {
 public:
  static constexpr Capabilities kCapabilities{
      .eager = true, .get = true, .put = true, .split_copy = true, .async_get = true};

  // `network` is used only for ranks the route table puts on other nodes
  // (open and connected by then, when there are any).
  void init(shm::Transport& node, net::Transport& network, const wireup::RouteTable& routes) {
    shm_ = &node;
    net_ = &network;
    remote_.assign(routes.size(), 0);
    for (std::uint32_t r = 0; r < routes.size(); ++r) remote_[r] = routes[r].via == wireup::Via::network ? 1 : 0;
    networked_ = !routes.all_on_this_node();
  }
  // A job on one node (networked_ false) decides on one flag of this
  // object, never loading the table.
  bool remote(std::uint32_t peer) const { return networked_ && remote_[peer] != 0; }
  bool networked() const { return networked_; }
  shm::Transport& node_transport() { return *shm_; }
  net::Transport& network() { return *net_; }

  std::uint32_t rank() const { return shm_->rank(); }
  std::uint32_t size() const { return shm_->size(); }
  std::uint32_t local_rank() const { return shm_->local_rank(); }
  std::uint32_t local_size() const { return shm_->local_size(); }
  const shm::RanksLayout& node() const { return shm_->node(); }
  std::uint32_t ncpus() const { return shm_->ncpus(); }
  bool oversubscribed() const { return shm_->oversubscribed(); }

  // --- msg
  progress::Packet* try_claim(std::uint32_t peer) {
    if (remote(peer)) [[unlikely]]
      return net_->try_claim(peer);
    return shm_->try_claim(peer);
  }
  void publish(std::uint32_t peer) {
    if (remote(peer)) [[unlikely]]
      return net_->publish(peer);
    shm_->publish(peer);
  }
  std::uint32_t eager_bytes() const { return shm_->eager_bytes(); }
  common::Status try_take_eager(std::uint32_t peer, std::uint64_t bytes, EagerRef& buffer) {
    if (remote(peer)) [[unlikely]]
      return net_->try_take_buffer(buffer);
    return shm_->try_take_eager(peer, bytes, buffer);
  }
  common::Status try_take_chunk(std::uint32_t peer, EagerRef& buffer) {
    if (remote(peer)) [[unlikely]]
      return net_->try_take_buffer(buffer);
    return shm_->try_take_chunk(peer, buffer);
  }
  std::byte* eager_data(std::uint32_t owner, EagerRef buffer) const {
    if (networked_ && network_buffer(owner, buffer)) [[unlikely]]
      return net_->eager_data(owner, buffer);
    return shm_->eager_data(owner, buffer);
  }
  void release_eager(std::uint32_t owner, EagerRef buffer) {
    if (networked_ && network_buffer(owner, buffer)) [[unlikely]]
      return net_->release_eager(owner, buffer);
    shm_->release_eager(owner, buffer);
  }
  void note_eager_sent(std::uint32_t bytes) { shm_->note_eager_sent(bytes); }
  void warm_next_eager() { shm_->warm_next_eager(); }
  std::uint64_t matched_by(std::uint32_t peer) const {
    if (remote(peer)) [[unlikely]]
      return net_->matched_by(peer);
    return shm_->matched_by(peer);
  }
  void count_matched(std::uint32_t sender, std::uint64_t units) {
    if (remote(sender)) [[unlikely]]
      return net_->count_matched(sender, units);
    shm_->count_matched(sender, units);
  }

  // --- rma: a network peer reads what it is exposed (remote read), later;
  // nothing is put to it
  RemoteMemory expose(std::uint32_t peer, const void* buffer, std::uint64_t bytes) {
    if (remote(peer)) [[unlikely]]
      return net_->expose(buffer, bytes);
    return shm_->expose(peer, buffer, bytes);
  }
  void unexpose(std::uint32_t peer, RemoteMemory memory) {
    if (remote(peer)) [[unlikely]]
      net_->unexpose(memory);
  }
  bool can_put(std::uint32_t peer) const { return !remote(peer); }
  RmaPath rma_path(std::uint32_t peer) const {
    if (remote(peer)) [[unlikely]]
      return net_->remote_read() ? RmaPath::direct : RmaPath::by_messages;
    return shm_->rma_path(peer);
  }
  bool reads_later(std::uint32_t peer) const { return remote(peer); }
  common::Status start_get(std::uint32_t peer, void* local, RemoteMemory memory, std::uint64_t bytes,
                           std::uint64_t cookie) {
    return net_->start_get(peer, local, memory, bytes, cookie);
  }
  template <class Done>
  void finished_gets(Done&& done) {
    net_->finished_gets(done);
  }
  bool rma_proven(std::uint32_t peer) const { return !remote(peer) && shm_->rma_proven(peer); }
  common::Status get(std::uint32_t peer, void* local, RemoteMemory remote_memory, std::uint64_t offset,
                     std::uint64_t bytes) {
    return shm_->get(peer, local, remote_memory, offset, bytes);
  }
  common::Status put(std::uint32_t peer, RemoteMemory remote_memory, std::uint64_t offset, const void* local,
                     std::uint64_t bytes) {
    if (remote(peer)) [[unlikely]]
      return common::Status::retry;  // never asked: can_put() says no
    return shm_->put(peer, remote_memory, offset, local, bytes);
  }
  std::int32_t try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                              std::uint64_t copied_bytes) {
    return shm_->try_take_split(peer, chunks, copied, copied_bytes);
  }
  void release_split(std::uint32_t peer, std::uint32_t split) { shm_->release_split(peer, split); }
  SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t split) const {
    return shm_->split_copy(sender, receiver, split);
  }

  // --- progress
  template <class OnPacket>
  std::size_t poll(OnPacket&& on_packet) {
    std::size_t n = shm_->poll(on_packet);
    if (networked_) [[unlikely]]
      n += net_->poll(on_packet);
    return n;
  }
  void retry_deferred() {
    shm_->retry_deferred();
    if (networked_) [[unlikely]]
      net_->retry_deferred();
  }
  const progress::Packet* peek(std::uint32_t peer) {
    if (remote(peer)) [[unlikely]]
      return net_->peek(peer);
    return shm_->peek(peer);
  }
  void consume(std::uint32_t peer) {
    if (remote(peer)) [[unlikely]]
      return net_->consume(peer);
    shm_->consume(peer);
  }
  // A network peer needs no wake: its endpoint's queue wakes it.
  void wake(std::uint32_t peer) { on_node<&shm::Transport::wake>(peer); }
  void wake_after_fence(std::uint32_t peer) { on_node<&shm::Transport::wake_after_fence>(peer); }
  void wake_for_room(std::uint32_t peer) { on_node<&shm::Transport::wake_for_room>(peer); }
  void wake_later(std::uint32_t peer) { on_node<&shm::Transport::wake_later>(peer); }
  void flush_wakes() { shm_->flush_wakes(); }
  void wake_deferred() { shm_->wake_deferred(); }
  bool room_wanted() const { return shm_->room_wanted(); }
  void clear_room_wanted() { shm_->clear_room_wanted(); }
  bool may_sleep() { return !networked_ || net_->may_sleep(); }

 private:
  // `wake` of the shared-memory transport, for a peer on this node only.
  template <void (shm::Transport::*wake)(std::uint32_t)>
  void on_node(std::uint32_t peer) {
    if (!remote(peer)) [[likely]]
      (shm_->*wake)(peer);
  }
  // A buffer the network lent: one of this rank's send slots, or a
  // receive buffer holding a network peer's data.
  bool network_buffer(std::uint32_t owner, EagerRef buffer) const {
    return owner == rank() ? (buffer.id & net::Transport::kSendSlotMark) != 0 : remote_[owner] != 0;
  }

  shm::Transport* shm_ = nullptr;
  net::Transport* net_ = nullptr;
  std::vector<std::uint8_t> remote_;  // by world rank: 1 on another node
  bool networked_ = false;
};

static_assert(Transport<Routed>);

}  // namespace mpf::transport
