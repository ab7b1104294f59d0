// Rendezvous by remote read over the network (see transport.hpp).
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <cstdio>

#include "net/transport.hpp"

namespace mpf::net {

transport::RemoteMemory Transport::expose(const void* buffer, std::uint64_t bytes) {
  if (bytes == 0 || !active() || !fabric_->remote_read()) return {0, 0};
  const std::uint64_t requested = next_key_++;
  fid_mr* mr = nullptr;
  const int registered = fi_mr_reg(fabric_->domain(), buffer, bytes, FI_REMOTE_READ, 0, requested, 0, &mr, nullptr);
  if (registered != 0) {
    // Not fatal: the receiver's read fails (a bad key), and the message
    // goes by messages instead (the engine's fallback for a refused read).
    return {0, 0};
  }
  const std::uint64_t key = fabric_->provider_keys() ? fi_mr_key(mr) : requested;
  registered_[key] = mr;
  return {fabric_->virtual_addresses() ? reinterpret_cast<std::uint64_t>(buffer) : 0, key};
}

void Transport::unexpose(transport::RemoteMemory memory) {
  const auto at = registered_.find(memory.key);
  if (at == registered_.end()) return;
  fi_close(&at->second->fid);
  registered_.erase(at);
}

common::Status Transport::start_get(std::uint32_t peer, void* local, transport::RemoteMemory remote,
                                    std::uint64_t bytes, std::uint64_t cookie) {
  if (remote.key == 0 || bytes > fabric_->max_message_bytes()) return common::Status::retry;
  if (free_reads_.empty()) {
    reads_.push_back(std::make_unique<Read>());
    free_reads_.push_back(reads_.back().get());
  }
  Read* read = free_reads_.back();
  free_reads_.pop_back();
  *read = Read{{}, cookie, peer, local, remote, bytes};
  // Behind reads the endpoint refused for now (it may be connecting to
  // the peer, which must progress for that): retried at every poll.
  if (!unposted_reads_.empty() || !try_post(read)) unposted_reads_.push_back(read);
  return common::Status::in_progress;
}

bool Transport::try_post(Read* read) {
  const ssize_t posted = fi_read(fabric_->endpoint(), read->local, read->bytes, nullptr, peers_[read->peer].address,
                                 read->remote.address, read->remote.key, &read->context);
  if (posted == 0) return true;
  if (posted == -FI_EAGAIN) return false;
  if (!read_failure_reported_) {
    std::fprintf(stderr, "rank %u: a remote read from rank %u failed (%s)\n", me_, read->peer,
                 fabric_error("fi_read", posted).c_str());
    read_failure_reported_ = true;
  }
  on_read_done(read, false);  // both ends' requests fail
  return true;
}

void Transport::post_reads() {
  while (!unposted_reads_.empty() && try_post(unposted_reads_.front())) unposted_reads_.pop_front();
}

Transport::Read* Transport::read_of(void* context) {
  for (const auto& r : reads_) {
    if (&r->context == context) return r.get();
  }
  return nullptr;
}

void Transport::on_read_done(Read* read, bool ok) {
  finished_reads_.emplace_back(read->cookie, ok);
  free_reads_.push_back(read);
}

}  // namespace mpf::net
