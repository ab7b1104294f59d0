// The OpenPMIx server mpfrun embeds (server API of libpmix 4.2). It registers
// the job's namespace and every rank, hands each child its PMIx environment,
// and serves the ranks' Put/Commit/Fence/Get. Upcalls arrive on PMIx's own
// progress thread; the only one mpfrun acts on, abort, is passed to the
// launcher's event loop through a callback that must be thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mpf::launcher {

class PmixServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PmixServer {
 public:
  // Called on PMIx's thread when a rank calls PMIx_Abort (MPI_Abort).
  using AbortHandler = std::function<void(std::uint32_t rank, int code, const std::string& message)>;

  // Starts the server with its files in `tmpdir` (which the caller creates
  // and removes). Only one server may exist per process.
  PmixServer(const std::string& tmpdir, const std::string& hostname, AbortHandler on_abort);
  ~PmixServer();
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the job: nranks ranks, all on this node.
  void register_job(const std::string& nspace, std::uint32_t nranks);
  // Registers one rank and returns the environment its process must get:
  // `base` plus PMIx's variables. Call before forking the rank.
  std::vector<std::string> register_rank(std::uint32_t rank, const std::vector<std::string>& base);

  // After ranks died without PMIx_Finalize, libpmix 4.2's server teardown
  // (deregister + PMIx_server_finalize) crashes intermittently in its
  // lost-connection bookkeeping. mpfrun is about to exit then, so it leaves
  // the server to the process's end instead; the caller removes the server's
  // directory itself.
  void skip_finalize() { skip_finalize_ = true; }

 private:
  std::string nspace_;
  std::string hostname_;
  bool job_registered_ = false;
  bool skip_finalize_ = false;
};

}  // namespace mpf::launcher
