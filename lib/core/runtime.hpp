// The process-wide runtime instance that MPI, OpenSHMEM and MPF all stand on:
// wire-up, the node's shared segment, the job's tunables, and the rank's
// control block. Initialised once per process by whichever API starts first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "coll/board.hpp"
#include "coll/default_rules.hpp"
#include "coll/rules.hpp"
#include "coll/cells.hpp"
#include "coll/channel.hpp"
#include "common/tunables.hpp"
#include "job/run_registry.hpp"
#include "net/transport.hpp"
#include "progress/engine.hpp"
#include "shm/segment.hpp"
#include "shm/transport.hpp"
#include "transport/routed.hpp"
#include "wireup/pmix_client.hpp"
#include "wireup/routes.hpp"

namespace mpf::core {

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Environment variables mpfrun sets for each rank, beside PMIx's own. They
// are the launcher's private protocol, so they do not use the MPF_ prefix of
// the tunables.
inline constexpr const char* kEnvSegmentFd = "MPFRUN_SEGMENT_FD";
inline constexpr const char* kEnvJobId = "MPFRUN_JOBID";
// Through srun: the mpfrun that started the job (its node parts carry it),
// and where each rank writes its entry of --report.
inline constexpr const char* kEnvLaunchTag = "MPFRUN_LAUNCH_TAG";
inline constexpr const char* kEnvReportDir = "MPFRUN_REPORT_DIR";

// The programming interfaces a process may use at once, each joining and
// leaving the runtime on its own (MPI_Init, shmem_init, mpf_init).
enum class Api : std::uint8_t { mpi, shmem, mpf };
inline constexpr std::size_t kApiCount = 3;

class Runtime {
 public:
  // Inline: every MPI, SHMEM and MPF call starts here, so after the first
  // call it costs one load instead of a call into this library.
  static Runtime& instance() {
    if (instance_ == nullptr) [[unlikely]] return create();
    return *instance_;
  }

  // `api` starts using the runtime: the first API to join initialises it
  // (init). Throws RuntimeError when `api` has joined before (also when
  // it has left since: an API starts once per process) or init fails.
  void join(Api api);
  // `api` stops using it, in its call `function` (for mpfinspect): the
  // last API to leave finalizes the runtime. The API must have joined.
  void leave(Api api, const char* function);
  bool joined(Api api) const { return api_state_[static_cast<std::size_t>(api)] == ApiState::joined; }
  bool left(Api api) const { return api_state_[static_cast<std::size_t>(api)] == ApiState::left; }

  // Wire-up, attach the segment, adopt the launcher's tunables. Throws
  // RuntimeError naming what failed. Not thread-safe: call once. An API
  // calls join() instead.
  void init();
  // Waits for every rank (a wire-up fence), marks the rank finalized; shown
  // as `function` while it waits. An API calls leave() instead.
  void finalize(const char* function = "MPI_Finalize");
  // Records the abort, tells the launcher to end the job with `code`, and
  // exits this process with `code`.
  [[noreturn]] void abort(int code, const std::string& message);

  bool initialized() const { return initialized_; }
  bool finalized() const { return finalized_; }
  const wireup::JobInfo& job() const { return job_; }
  const common::Tunables& tunables() const { return *tunables_; }
  wireup::PmixClient& wireup() { return pmix_; }
  // True when the job runs more ranks than CPUs: waits must block, not spin.
  bool oversubscribed() const { return transport_.oversubscribed(); }
  // This rank's block in the shared segment.
  shm::RankControl* control() const { return control_; }
  // Point-to-point messaging for every API.
  progress::Engine& engine() { return engine_; }
  // The node's shared-memory transport (ranks on this node).
  shm::Transport& transport() { return transport_; }
  // The network transport (ranks on other nodes; open only when the job
  // spans nodes).
  net::Transport& network() { return network_; }
  // How this rank reaches every rank of the job.
  const wireup::RouteTable& routes() const { return *routes_; }
  bool spans_nodes() const { return routes_->nodes() > 1; }
  // Collective data movement over the ranks' collective slots.
  coll::Channel& channel() { return channel_; }
  // Small collective messages over per-pair cells.
  coll::Cells& cells() { return cells_; }
  coll::Board& board() { return board_; }
  // What every group's collective plan is built from (coll/plan.hpp): the
  // job's facts, and the rules of the tuning file (coll_rules).
  const coll::JobFacts& coll_facts() const { return coll_facts_; }
  const std::vector<coll::Rule>& coll_rules() const { return coll_rules_; }
  const shm::Segment& segment() const { return *segment_; }

 private:
  Runtime() = default;
  static Runtime& create();
  static Runtime* instance_;  // the process's runtime, once create() made it
  void attach_segment(shm::Segment segment);
  void create_own_segment();
  // A job started by a PMIx launcher other than mpfrun: every rank says
  // which machine it runs on (virtual nodes of a test cluster share one);
  // after the fence the node's first rank creates the node's segment, for
  // its share of the machine's CPUs, and publishes where the others find
  // it; they attach after a second fence (runtime_nodes.cpp).
  void resolve_own_tunables();
  void publish_machine();
  void share_node_segment();
  std::uint32_t node_cpu_share();
  // A job across nodes: the endpoint is opened and its address published
  // before the fence, and connected to the other nodes' ranks after it.
  void open_network();
  std::vector<std::uint32_t> nodes_of_ranks();
  void connect_network();
  // The node's first rank registers the node's part of the job in the run
  // directory, so that mpfinspect finds it (job/run_registry.hpp); the
  // entry goes when the rank finalizes, or as dead if it is killed.
  void register_node_part();
  void unregister_node_part();
  // mpfrun --report through srun (MPFRUN_REPORT_DIR): what this rank's
  // entry of the report needs, written when it has finalized, since mpfrun
  // cannot read other nodes' segments.
  void write_report_record() const;
  void start_messaging();
  // Another rank died and the launcher is ending the job: wait for it.
  [[noreturn]] void await_job_end(const std::string& why);

  enum class ApiState : std::uint8_t { never, joined, left };
  ApiState api_state_[kApiCount] = {};
  bool initialized_ = false;
  bool finalized_ = false;
  wireup::PmixClient pmix_;
  wireup::JobInfo job_;
  std::optional<common::Tunables> tunables_;
  std::optional<shm::Segment> segment_;
  std::optional<wireup::RouteTable> routes_;
  shm::RankControl* control_ = nullptr;
  // The finalize fence of a job another launcher started: a launcher's
  // fence may succeed when a rank has ended without reaching it (Slurm's
  // does), so every rank also publishes that it reached it, and a missing
  // one ends the job with an error (runtime_nodes.cpp).
  void finalize_fence_checked();
  bool by_mpfrun_ = true;  // mpfrun (or nobody: a singleton) started this process
  std::optional<std::vector<std::uint32_t>> virtual_nodes_;  // mpfrun --virtual-nodes: node of each rank
  std::vector<std::string> node_names_;                       // another launcher's nodes, by number
  std::optional<job::JobEntry> node_part_;                    // what register_node_part() published
  shm::Transport transport_;
  net::Transport network_;
  transport::Routed routed_;
  progress::Engine engine_;
  coll::Channel channel_;
  coll::Cells cells_;
  coll::Board board_;
  coll::JobFacts coll_facts_;
  std::vector<coll::Rule> coll_rules_;
};

}  // namespace mpf::core
