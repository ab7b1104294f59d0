#include "net/fabric.hpp"

#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "net/fabric_library.hpp"

namespace mpf::net {
namespace {

constexpr std::uint32_t kFabricVersion = FI_VERSION(1, 17);

// The providers this machine offers for reliable-datagram endpoints, for
// the error when the one asked for is missing.
std::string providers_here() {
  const FabricLibrary& lib = fabric_library();
  fi_info* hints = lib.dupinfo(nullptr);
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_TAGGED;
  fi_info* list = nullptr;
  std::set<std::string> names;
  if (lib.getinfo(kFabricVersion, nullptr, nullptr, 0, hints, &list) == 0) {
    for (fi_info* i = list; i != nullptr; i = i->next) names.insert(i->fabric_attr->prov_name);
    lib.freeinfo(list);
  }
  lib.freeinfo(hints);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

std::string fabric_error(const char* call, long code) {
  return std::string(call) + " failed: " + fabric_library().strerror(static_cast<int>(code < 0 ? -code : code)) + " (" +
         std::to_string(code) + ")";
}

Fabric::Fabric(const std::string& providers) {
  const FabricLibrary& lib = fabric_library();
  // The first provider of the list this machine has; with remote reads if
  // it has them, else messages alone.
  int found = -FI_ENODATA;
  std::vector<std::string> names;
  for (std::size_t start = 0;;) {
    const std::size_t comma = providers.find(',', start);
    names.push_back(providers.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& provider : names) {
    for (const bool rma : {true, false}) {
      fi_info* hints = lib.dupinfo(nullptr);
      if (hints == nullptr) throw NetError("fi_allocinfo failed: out of memory");
      hints->ep_attr->type = FI_EP_RDM;
      hints->caps = FI_TAGGED | (rma ? FI_RMA | FI_READ | FI_REMOTE_READ : 0);
      hints->tx_attr->msg_order = FI_ORDER_SAS;  // the engine's packets arrive in order per pair
      hints->rx_attr->msg_order = FI_ORDER_SAS;
      hints->domain_attr->threading = FI_THREAD_DOMAIN;  // one thread calls libfabric
      // Registration modes this transport handles: keys and addresses
      // either way; not FI_MR_LOCAL (the reader's buffers are the program's).
      hints->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
      hints->mode = FI_CONTEXT;
      hints->fabric_attr->prov_name = ::strdup(provider.c_str());
      found = lib.getinfo(kFabricVersion, nullptr, nullptr, 0, hints, &info_);
      lib.freeinfo(hints);
      if (found == 0 && info_ != nullptr) {
        remote_read_ = rma;
        break;
      }
    }
    if (info_ != nullptr) break;
  }
  if (found != 0 || info_ == nullptr) {
    throw NetError("net_provider '" + providers +
                   "': " + (names.size() > 1 ? "none of these providers offers" : "it offers no") +
                   " reliable-datagram endpoint with tagged messages in order (" + fabric_error("fi_getinfo", found) +
                   "); this machine has: " + providers_here());
  }
  provider_ = info_->fabric_attr->prov_name;
  inject_bytes_ = info_->tx_attr->inject_size;
  provider_keys_ = (info_->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
  virtual_addresses_ = (info_->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
  max_message_bytes_ = info_->ep_attr->max_msg_size;
  auto check = [this](const char* call, int code) {
    if (code != 0) {
      close();
      throw NetError("provider " + provider_ + ": " + fabric_error(call, code));
    }
  };
  check("fi_fabric", lib.fabric(info_->fabric_attr, &fabric_, nullptr));
  check("fi_domain", fi_domain(fabric_, info_, &domain_, nullptr));
  fi_av_attr av_attr{};
  av_attr.type = FI_AV_TABLE;
  check("fi_av_open", fi_av_open(domain_, &av_attr, &av_, nullptr));
  fi_cq_attr cq_attr{};
  cq_attr.format = FI_CQ_FORMAT_TAGGED;
  cq_attr.wait_obj = FI_WAIT_FD;
  cq_attr.size = 4096;
  check("fi_cq_open", fi_cq_open(domain_, &cq_attr, &cq_, nullptr));
  check("fi_endpoint", fi_endpoint(domain_, info_, &ep_, nullptr));
  check("fi_ep_bind(av)", fi_ep_bind(ep_, &av_->fid, 0));
  check("fi_ep_bind(cq)", fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV));
  check("fi_enable", fi_enable(ep_));
  check("fi_control(FI_GETWAIT)", fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_));
}

Fabric::~Fabric() { close(); }

void Fabric::close() {
  if (ep_ != nullptr) fi_close(&ep_->fid);
  if (cq_ != nullptr) fi_close(&cq_->fid);
  if (av_ != nullptr) fi_close(&av_->fid);
  if (domain_ != nullptr) fi_close(&domain_->fid);
  if (fabric_ != nullptr) fi_close(&fabric_->fid);
  if (info_ != nullptr) fabric_library().freeinfo(info_);
  ep_ = nullptr;
  cq_ = nullptr;
  av_ = nullptr;
  domain_ = nullptr;
  fabric_ = nullptr;
  info_ = nullptr;
}

std::vector<std::byte> Fabric::address() const {
  std::vector<std::byte> name(256);
  std::size_t length = name.size();
  const int got = fi_getname(&ep_->fid, name.data(), &length);
  if (got != 0) throw NetError("provider " + provider_ + ": " + fabric_error("fi_getname", got));
  name.resize(length);
  return name;
}

std::vector<fi_addr_t> Fabric::insert(std::span<const std::vector<std::byte>> addresses) {
  std::vector<fi_addr_t> out(addresses.size(), FI_ADDR_NOTAVAIL);
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    const int n = fi_av_insert(av_, addresses[i].data(), 1, &out[i], 0, nullptr);
    if (n != 1) throw NetError("provider " + provider_ + ": " + fabric_error("fi_av_insert", n == 0 ? -FI_EINVAL : n));
  }
  return out;
}

}  // namespace mpf::net
