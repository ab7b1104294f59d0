// Process wire-up through PMIx (SPEC §2 "Wire-up"). Every rank is a PMIx
// client of the server its launcher embeds: rank, size, local peers and node
// come from PMIx, and endpoint addresses are exchanged with Put/Commit/Fence/
// Get. A process started without a launcher is a one-rank job (MPI singleton
// init) and never talks to PMIx at all.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "shm/ranks_layout.hpp"

namespace mpf::wireup {

class WireupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fence could not complete because another rank of the job died: the
// failure is that rank's, and its launcher is already ending the job.
class PeerLostError : public WireupError {
 public:
  using WireupError::WireupError;
};

// What PMIx tells a rank about its job and node.
struct JobInfo {
  std::string nspace;        // the job's PMIx namespace ("singleton" without launcher)
  std::uint32_t rank = 0;
  std::uint32_t size = 1;
  std::uint32_t local_rank = 0;
  std::uint32_t local_size = 1;
  std::vector<std::uint32_t> local_peers{0};  // ranks on this node, ascending
  std::uint32_t node_id = 0;
  std::string hostname;
  bool singleton = true;
};

// The process's PMIx client. One per process: PMIx allows one initialisation.
// Counts its traffic into the rank's counters once they are attached.
class PmixClient {
 public:
  // True when this process was started by a PMIx server (mpfrun, or another
  // PMIx launcher), i.e. its environment names a PMIx namespace.
  static bool launched_by_pmix_server();

  JobInfo init();
  void finalize();
  bool active() const { return active_; }

  // Publish a value under key for every rank of the job (after the next
  // commit and fence).
  void put(std::string_view key, std::span<const std::byte> value);
  void commit();
  // Blocks until every rank of the job has reached the fence; with
  // collect_data, values committed before it become readable with get().
  void fence(bool collect_data);
  std::vector<std::byte> get(std::uint32_t rank, std::string_view key);
  // Asks the launcher to end the whole job with `code`; returns when the
  // launcher has heard it (the caller then exits).
  void abort(int code, const std::string& message);

  void count_into(shm::RankCounters* counters) { counters_ = counters; }

 private:
  bool active_ = false;
  std::string nspace_;
  std::uint32_t rank_ = 0;
  shm::RankCounters* counters_ = nullptr;
};

}  // namespace mpf::wireup
