// The libfabric objects of one rank's network endpoint (SPEC §2 Network):
// a reliable-datagram endpoint (FI_EP_RDM) of the provider the net_provider
// tunable names, its address vector (peers by world rank), and one
// completion queue for what it sends and receives, whose wait descriptor a
// rank with nothing to do sleeps on (through net/sleep_watch.hpp). Owns
// them, closed in reverse order. Everything else of the network transport
// is in net/transport.hpp.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpf::net {

class NetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "fi_tsend failed: Connection refused (-111)": a libfabric call and its error.
std::string fabric_error(const char* call, long code);

class Fabric {
 public:
  // Opens an endpoint of `providers`, the first of a comma-separated list
  // this machine has ("tcp;ofi_rxm": tcp under the rxm utility provider;
  // "net,tcp;ofi_rxm": libfabric's net provider, else that), with tagged
  // messages in send order per pair. Throws NetError naming the providers and what failed, with
  // the providers this machine has when it has none of those named.
  explicit Fabric(const std::string& providers);
  ~Fabric();
  Fabric(const Fabric&) = delete;
  Fabric& operator=(const Fabric&) = delete;

  // The endpoint's address, for the other ranks to insert.
  std::vector<std::byte> address() const;
  // Inserts peers' addresses; returns their libfabric addresses, in order.
  std::vector<fi_addr_t> insert(std::span<const std::vector<std::byte>> addresses);

  fid_ep* endpoint() const { return ep_; }
  fid_domain* domain() const { return domain_; }
  // The provider reads memory a peer registered (FI_RMA with FI_READ) and
  // needs no registration of the reader's own buffer: rendezvous by remote
  // read. Otherwise large messages move by messages.
  bool remote_read() const { return remote_read_; }
  // Registration rules: keys chosen by the provider (FI_MR_PROV_KEY), and
  // remote addresses as virtual addresses (FI_MR_VIRT_ADDR) or offsets.
  bool provider_keys() const { return provider_keys_; }
  bool virtual_addresses() const { return virtual_addresses_; }
  std::uint64_t max_message_bytes() const { return max_message_bytes_; }
  fid_cq* queue() const { return cq_; }
  fid_fabric* fabric() const { return fabric_; }
  // The descriptor that becomes readable when the queue has completions
  // (after fi_trywait said it may be waited on).
  int wait_fd() const { return wait_fd_; }
  // The provider's name as libfabric reports it.
  const std::string& provider() const { return provider_; }
  // Bytes a send of at most this size is copied at once (fi_tinject).
  std::size_t inject_bytes() const { return inject_bytes_; }

 private:
  void close();

  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_av* av_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_ep* ep_ = nullptr;
  int wait_fd_ = -1;
  std::string provider_;
  std::size_t inject_bytes_ = 0;
  bool remote_read_ = false;
  bool provider_keys_ = false;
  bool virtual_addresses_ = false;
  std::uint64_t max_message_bytes_ = 0;
};

}  // namespace mpf::net
