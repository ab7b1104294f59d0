#include "wireup/pmix_client.hpp"

#include <pmix.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace mpf::wireup {
namespace {

std::string describe(const char* call, pmix_status_t status) {
  return std::string(call) + " failed: " + PMIx_Error_string(status);
}

// A value returned by PMIx_Get, released on scope exit.
struct ValueDeleter {
  void operator()(pmix_value_t* v) const { PMIX_VALUE_RELEASE(v); }
};
using Value = std::unique_ptr<pmix_value_t, ValueDeleter>;

Value get_value(const pmix_proc_t& proc, const char* key) {
  pmix_value_t* raw = nullptr;
  const pmix_status_t status = PMIx_Get(&proc, key, nullptr, 0, &raw);
  if (status != PMIX_SUCCESS || raw == nullptr) {
    throw WireupError(describe((std::string("PMIx_Get(") + key + ")").c_str(), status));
  }
  return Value(raw);
}

// Job-level values come in whatever integer width the server registered them
// with; accept any of them.
std::uint64_t as_number(const pmix_value_t& v, const char* key) {
  switch (v.type) {
    case PMIX_UINT8: return v.data.uint8;
    case PMIX_UINT16: return v.data.uint16;
    case PMIX_UINT32: return v.data.uint32;
    case PMIX_UINT64: return v.data.uint64;
    case PMIX_INT: return static_cast<std::uint64_t>(v.data.integer);
    case PMIX_UINT: return v.data.uint;
    case PMIX_PROC_RANK: return v.data.rank;
    case PMIX_SIZE: return v.data.size;
    default:
      throw WireupError(std::string("PMIx value ") + key + " has unexpected type " +
                        PMIx_Data_type_string(v.type));
  }
}

std::uint64_t get_number(const pmix_proc_t& proc, const char* key) {
  return as_number(*get_value(proc, key), key);
}

std::string get_string(const pmix_proc_t& proc, const char* key) {
  Value v = get_value(proc, key);
  if (v->type != PMIX_STRING || v->data.string == nullptr) {
    throw WireupError(std::string("PMIx value ") + key + " is not a string");
  }
  return v->data.string;
}

std::vector<std::uint32_t> parse_rank_list(const std::string& text) {
  std::vector<std::uint32_t> ranks;
  const char* p = text.c_str();
  while (*p != '\0') {
    char* end = nullptr;
    ranks.push_back(static_cast<std::uint32_t>(std::strtoul(p, &end, 10)));
    if (end == p) throw WireupError("PMIx local peers list '" + text + "' is malformed");
    p = *end == ',' ? end + 1 : end;
  }
  return ranks;
}

std::string local_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

bool PmixClient::launched_by_pmix_server() {
  return std::getenv("PMIX_NAMESPACE") != nullptr && std::getenv("PMIX_RANK") != nullptr;
}

JobInfo PmixClient::init() {
  JobInfo info;
  if (!launched_by_pmix_server()) {
    info.nspace = "singleton";
    info.hostname = local_hostname();
    return info;
  }
  pmix_proc_t self;
  const pmix_status_t status = PMIx_Init(&self, nullptr, 0);
  if (status != PMIX_SUCCESS) {
    throw WireupError(describe("PMIx_Init", status) +
                      " (this process was started by a PMIx launcher that did not answer)");
  }
  active_ = true;
  nspace_ = self.nspace;
  rank_ = self.rank;

  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, self.nspace, PMIX_RANK_WILDCARD);
  info.singleton = false;
  info.nspace = self.nspace;
  info.rank = self.rank;
  info.size = static_cast<std::uint32_t>(get_number(job, PMIX_JOB_SIZE));
  info.local_size = static_cast<std::uint32_t>(get_number(job, PMIX_LOCAL_SIZE));
  info.local_peers = parse_rank_list(get_string(job, PMIX_LOCAL_PEERS));
  info.local_rank = static_cast<std::uint32_t>(get_number(self, PMIX_LOCAL_RANK));
  info.node_id = static_cast<std::uint32_t>(get_number(self, PMIX_NODEID));
  info.hostname = get_string(self, PMIX_HOSTNAME);
  return info;
}

void PmixClient::finalize() {
  if (!active_) return;
  active_ = false;
  PMIx_Finalize(nullptr, 0);
}

void PmixClient::put(std::string_view key, std::span<const std::byte> value) {
  if (!active_) return;  // a singleton has nobody to publish to
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  // PMIx_Put copies the value; it only reads through this pointer.
  v.data.bo.bytes = const_cast<char*>(reinterpret_cast<const char*>(value.data()));
  v.data.bo.size = value.size();
  const std::string k(key);
  const pmix_status_t status = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v);
  if (status != PMIX_SUCCESS) throw WireupError(describe(("PMIx_Put(" + k + ")").c_str(), status));
  if (counters_ != nullptr) shm::count(counters_->pmix_puts);
}

void PmixClient::commit() {
  if (!active_) return;
  const pmix_status_t status = PMIx_Commit();
  if (status != PMIX_SUCCESS) throw WireupError(describe("PMIx_Commit", status));
}

void PmixClient::fence(bool collect_data) {
  if (!active_) return;
  pmix_info_t info;
  bool collect = collect_data;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  const pmix_status_t status = PMIx_Fence(nullptr, 0, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (status == PMIX_ERR_PARTIAL_SUCCESS) {
    throw PeerLostError("PMIx_Fence: a rank of the job died before reaching the fence");
  }
  if (status != PMIX_SUCCESS) throw WireupError(describe("PMIx_Fence", status));
  if (counters_ != nullptr) shm::count(counters_->pmix_fences);
}

std::vector<std::byte> PmixClient::get(std::uint32_t rank, std::string_view key) {
  if (!active_) throw WireupError("wire-up get of '" + std::string(key) + "' in a singleton job");
  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, nspace_.c_str(), rank);
  const std::string k(key);
  Value v = get_value(peer, k.c_str());
  if (v->type != PMIX_BYTE_OBJECT) {
    throw WireupError("PMIx value " + k + " of rank " + std::to_string(rank) + " is not a byte object");
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(v->data.bo.bytes);
  if (counters_ != nullptr) shm::count(counters_->pmix_gets);
  return {bytes, bytes + v->data.bo.size};
}

void PmixClient::abort(int code, const std::string& message) {
  if (!active_) return;
  PMIx_Abort(code, message.c_str(), nullptr, 0);
}

}  // namespace mpf::wireup
