#include "launcher/pmix_server.hpp"

#include <pmix.h>
#include <pmix_server.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <mutex>

namespace mpf::launcher {
namespace {

// The server module's upcalls are plain C functions; they reach the one
// server of this process through this pointer.
PmixServer::AbortHandler* g_abort_handler = nullptr;

pmix_status_t on_connected(const pmix_proc_t*, void*, pmix_op_cbfunc_t, void*) {
  // libpmix 4.2 passes no callback here; the status answers the call.
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t on_finalized(const pmix_proc_t*, void*, pmix_op_cbfunc_t, void*) {
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  if (g_abort_handler != nullptr) (*g_abort_handler)(proc->rank, status, msg != nullptr ? msg : "");
  // Release the aborting rank only after the launcher has heard it, so the
  // abort is known before the rank's exit is seen.
  if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

void release_fence_data(void* data) { std::free(data); }

// All ranks are on this node, so a fence has no other daemons to hear from:
// the node's contribution is the whole job's. (libpmix usually completes
// local-only fences without calling this at all.)
pmix_status_t on_fence(const pmix_proc_t[], size_t, const pmix_info_t info[], size_t ninfo, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  pmix_status_t status = PMIX_SUCCESS;
  if (ninfo > 0 && PMIX_CHECK_KEY(&info[ninfo - 1], PMIX_LOCAL_COLLECTIVE_STATUS)) {
    status = info[ninfo - 1].value.data.status;
  }
  cbfunc(status, data, ndata, cbdata, release_fence_data, data);
  return PMIX_SUCCESS;
}

pmix_server_module_t g_module = [] {
  pmix_server_module_t m;
  std::memset(&m, 0, sizeof m);
  m.client_connected = on_connected;
  m.client_finalized = on_finalized;
  m.abort = on_abort;
  m.fence_nb = on_fence;
  return m;
}();

void check(const char* call, pmix_status_t status) {
  // Blocking registrations answer PMIX_OPERATION_SUCCEEDED rather than SUCCESS.
  if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED) {
    throw PmixServerError(std::string(call) + " failed: " + PMIx_Error_string(status));
  }
}

// An array of pmix_info_t that frees itself.
class InfoList {
 public:
  explicit InfoList(std::size_t capacity) : capacity_(capacity) { PMIX_INFO_CREATE(info_, capacity); }
  ~InfoList() { PMIX_INFO_FREE(info_, capacity_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;
  void add(const char* key, const void* value, pmix_data_type_t type) {
    PMIX_INFO_LOAD(&info_[size_++], key, value, type);
  }
  pmix_info_t* data() { return info_; }
  std::size_t size() const { return size_; }

 private:
  pmix_info_t* info_ = nullptr;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

std::string generated(pmix_status_t (*generate)(const char*, char**), const std::string& input,
                      const char* what) {
  char* out = nullptr;
  check(what, generate(input.c_str(), &out));
  std::string result(out);
  std::free(out);
  return result;
}

}  // namespace

PmixServer::PmixServer(const std::string& tmpdir, const std::string& hostname, AbortHandler on_abort)
    : hostname_(hostname) {
  if (g_abort_handler != nullptr) throw PmixServerError("only one PMIx server per process");
  g_abort_handler = new AbortHandler(std::move(on_abort));
  InfoList info(3);
  info.add(PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  info.add(PMIX_SYSTEM_TMPDIR, tmpdir.c_str(), PMIX_STRING);
  info.add(PMIX_HOSTNAME, hostname.c_str(), PMIX_STRING);
  const pmix_status_t status = PMIx_server_init(&g_module, info.data(), info.size());
  if (status != PMIX_SUCCESS) {
    delete g_abort_handler;
    g_abort_handler = nullptr;
    throw PmixServerError(std::string("PMIx_server_init failed: ") + PMIx_Error_string(status));
  }
}

PmixServer::~PmixServer() {
  if (skip_finalize_) return;
  if (job_registered_) {
    // Deregistration runs on PMIx's thread; finalizing before it has finished
    // crashes libpmix 4.2, so wait for its completion callback.
    struct Done {
      std::mutex mutex;
      std::condition_variable cv;
      bool done = false;
    } done;
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace_.c_str());
    PMIx_server_deregister_nspace(
        ns,
        [](pmix_status_t, void* cbdata) {
          auto* d = static_cast<Done*>(cbdata);
          std::lock_guard lock(d->mutex);
          d->done = true;
          d->cv.notify_one();
        },
        &done);
    std::unique_lock lock(done.mutex);
    done.cv.wait(lock, [&] { return done.done; });
  }
  PMIx_server_finalize();
  delete g_abort_handler;
  g_abort_handler = nullptr;
}

void PmixServer::register_job(const std::string& nspace, std::uint32_t nranks) {
  nspace_ = nspace;
  std::string ranks;
  for (std::uint32_t r = 0; r < nranks; ++r) ranks += (r ? "," : "") + std::to_string(r);
  // The node map and the per-node rank map are the minimum from which libpmix
  // derives local size, local peers, local rank, node rank and node id.
  const std::string node_map = generated(PMIx_generate_regex, hostname_, "PMIx_generate_regex");
  const std::string proc_map = generated(PMIx_generate_ppn, ranks, "PMIx_generate_ppn");
  const std::uint32_t one = 1;
  InfoList info(9);
  info.add(PMIX_NODE_MAP, node_map.c_str(), PMIX_REGEX);
  info.add(PMIX_PROC_MAP, proc_map.c_str(), PMIX_REGEX);
  info.add(PMIX_JOB_SIZE, &nranks, PMIX_UINT32);
  info.add(PMIX_UNIV_SIZE, &nranks, PMIX_UINT32);
  info.add(PMIX_MAX_PROCS, &nranks, PMIX_UINT32);
  info.add(PMIX_LOCAL_SIZE, &nranks, PMIX_UINT32);
  info.add(PMIX_LOCAL_PEERS, ranks.c_str(), PMIX_STRING);
  info.add(PMIX_NUM_NODES, &one, PMIX_UINT32);
  info.add(PMIX_HOSTNAME, hostname_.c_str(), PMIX_STRING);
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, nspace.c_str());
  check("PMIx_server_register_nspace",
        PMIx_server_register_nspace(ns, static_cast<int>(nranks), info.data(), info.size(), nullptr, nullptr));
  job_registered_ = true;
}

std::vector<std::string> PmixServer::register_rank(std::uint32_t rank, const std::vector<std::string>& base) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace_.c_str(), rank);
  check("PMIx_server_register_client",
        PMIx_server_register_client(&proc, ::getuid(), ::getgid(), nullptr, nullptr, nullptr));

  // setup_fork appends to a malloc'd, NULL-terminated environment array.
  char** env = static_cast<char**>(std::calloc(base.size() + 1, sizeof(char*)));
  for (std::size_t i = 0; i < base.size(); ++i) env[i] = ::strdup(base[i].c_str());
  const pmix_status_t status = PMIx_server_setup_fork(&proc, &env);
  std::vector<std::string> result;
  for (char** e = env; *e != nullptr; ++e) {
    result.emplace_back(*e);
    std::free(*e);
  }
  std::free(env);
  check("PMIx_server_setup_fork", status);
  return result;
}

}  // namespace mpf::launcher
