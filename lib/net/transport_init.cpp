// Opening, connecting and closing the network transport (see transport.hpp).
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "net/transport.hpp"

namespace mpf::net {
void Transport::open(const std::string& provider, std::size_t largest_message) {
  // ofi_rxm sends a message larger than its buffers (16 KiB) in a
  // rendezvous of its own, a round trip more for every eager message and
  // chunk: its buffers are made to hold ours, unless the user chose.
  const std::string rxm_buffer = std::to_string((largest_message + 255) / 256 * 256);
  ::setenv("FI_OFI_RXM_BUFFER_SIZE", rxm_buffer.c_str(), 0);
  fabric_ = std::make_unique<Fabric>(provider);
}

void Transport::connect(const Options& options, std::uint32_t me, std::uint32_t size, shm::RankControl& control,
                        FatalHandler fatal, std::span<const std::uint32_t> peers,
                        std::span<const std::vector<std::byte>> addresses) {
  fatal_ = fatal;
  me_ = me;
  window_ = std::max<std::uint32_t>(2, options.window);
  eager_bytes_ = options.eager_bytes;
  credit_share_ = std::max<std::uint64_t>(1, options.credit_share);
  stride_ = (sizeof(WireMessage) + eager_bytes_ + 63) / 64 * 64;
  peers_.assign(size, {});
  const std::vector<fi_addr_t> inserted = fabric_->insert(addresses);
  for (std::size_t i = 0; i < peers.size(); ++i) peers_[peers[i]].address = inserted[i];
  send_slots_ = 2 * window_ + kPacketReserve;
  send_memory_ = std::make_unique<std::byte[]>(send_slots_ * stride_);
  send_contexts_.assign(send_slots_, fi_context2{});
  free_slots_.clear();
  for (std::uint32_t i = send_slots_; i > 0; --i) free_slots_.push_back(i - 1);
  // Two windows of buffers: a peer that streams finds one posted while the
  // engine takes the last; beyond that the provider keeps what arrives.
  const std::uint32_t buffers = 2 * window_;
  receive_memory_ = std::make_unique<std::byte[]>(buffers * stride_);
  receive_contexts_.assign(buffers, fi_context2{});
  for (std::uint32_t i = 0; i < buffers; ++i) post_receive(i);
  watch_.start(fabric_->wait_fd(), control);
}

bool Transport::drained() {
  if (!active()) return true;
  read_completions();
  return unsent_.empty() && free_slots_.size() == send_slots_;
}

void Transport::close() {
  watch_.stop();
  for (const auto& [key, mr] : registered_) fi_close(&mr->fid);
  registered_.clear();
  fabric_.reset();
  peers_.clear();
  ready_.clear();
  owed_.clear();
  unsent_.clear();
}

void Transport::fail(const std::string& what) {
  const std::string message = "rank " + std::to_string(me_) + ": the network (" + fabric_->provider() + ") " + what;
  if (fatal_ != nullptr) fatal_(message);
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

}  // namespace mpf::net
