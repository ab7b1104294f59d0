#include "core/runtime.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/debug.hpp"
#include "core/context_ids.hpp"
#include "core/job_regions.hpp"
#include "wireup/launchers.hpp"

extern char** environ;

namespace mpf::core {
namespace {

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

int parse_fd(const char* text) {
  char* end = nullptr;
  const long fd = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || fd < 0 || fd > 1'000'000) {
    throw RuntimeError(std::string(kEnvSegmentFd) + "='" + text +
                       "' is not a file descriptor; it is set by mpfrun and must not be changed");
  }
  return static_cast<int>(fd);
}

}  // namespace

Runtime* Runtime::instance_ = nullptr;

Runtime& Runtime::create() {
  static Runtime runtime;
  instance_ = &runtime;
  return runtime;
}

void Runtime::join(Api api) {
  static constexpr const char* kNames[kApiCount] = {"MPI", "OpenSHMEM", "MPF"};
  ApiState& state = api_state_[static_cast<std::size_t>(api)];
  if (state != ApiState::never) {
    throw RuntimeError(std::string(kNames[static_cast<std::size_t>(api)]) +
                       (state == ApiState::joined ? " is already initialised" : " was finalized and cannot start again"));
  }
  if (!initialized_) init();
  if (api != Api::mpi && spans_nodes()) {
    throw RuntimeError(std::string(kNames[static_cast<std::size_t>(api)]) + " does not reach across nodes yet, and " +
                       "this job's ranks are on " + std::to_string(routes_->nodes()) +
                       " nodes: run it on one node (MPI programs run across nodes)");
  }
  state = ApiState::joined;
}

void Runtime::leave(Api api, const char* function) {
  api_state_[static_cast<std::size_t>(api)] = ApiState::left;
  for (const ApiState s : api_state_) {
    if (s == ApiState::joined) return;
  }
  finalize(function);
}

void Runtime::init() {
  if (initialized_) throw RuntimeError("the runtime is already initialised");
  const std::uint64_t start = now_ns();
  try {
    wireup::refuse_other_launchers();
    job_ = pmix_.init();
    virtual_nodes_ = wireup::virtual_nodes(job_);
    if (virtual_nodes_) wireup::apply_nodes(job_, *virtual_nodes_);
  } catch (const wireup::WireupError& e) {
    throw RuntimeError(e.what());
  }
  // mpfrun made the node's segment; a singleton makes its own; under any
  // other PMIx launcher the node's first rank makes it for the node.
  const char* fd_text = std::getenv(kEnvSegmentFd);
  const bool by_mpfrun = fd_text != nullptr && !job_.singleton;
  by_mpfrun_ = by_mpfrun || job_.singleton;
  if (by_mpfrun) {
    try {
      attach_segment(shm::Segment::attach_fd(parse_fd(fd_text)));
    } catch (const shm::SegmentError& e) {
      throw RuntimeError(e.what());
    }
  } else if (job_.singleton) {
    create_own_segment();
  } else {
    resolve_own_tunables();
    publish_machine();
  }
  const bool across_nodes = job_.local_size != job_.size;
  if (across_nodes) open_network();
  if (!by_mpfrun || across_nodes) {
    try {
      pmix_.commit();
      pmix_.fence(true);
    } catch (const wireup::WireupError& e) {
      throw RuntimeError(e.what());
    }
  }
  if (!by_mpfrun && !job_.singleton) share_node_segment();
  if (across_nodes) {
    routes_.emplace(nodes_of_ranks(), job_.rank);
    connect_network();
  } else {
    routes_.emplace(wireup::RouteTable::one_node(job_.size, job_.rank));
  }
  start_messaging();
  reset_contexts();
  if (!by_mpfrun_) {
    register_node_part();
    // Another launcher says only that the job ended (Slurm's cancels the
    // step when a rank leaves without finalizing): the rank says why.
    std::atexit([] {
      const Runtime& rt = Runtime::instance();
      if (rt.initialized_ && !rt.finalized_) {
        std::fprintf(stderr, "mpf: rank %u (on %s) is exiting without calling MPI_Finalize (or the finalize of the "
                     "API it used); the job will fail\n", rt.job_.rank, rt.job_.hostname.c_str());
      }
    });
  }
  initialized_ = true;
  if (control_ != nullptr) {
    control_->counters.init_ns.store(now_ns() - start, std::memory_order_relaxed);
    // Release: mpfrun and mpfinspect that see `initialized` also see the pid.
    control_->state.store(static_cast<std::uint32_t>(shm::RankState::initialized),
                          std::memory_order_release);
  }
}

void Runtime::attach_segment(shm::Segment segment) {
  segment_.emplace(std::move(segment));
  const shm::SegmentHeader& header = segment_->header();
  if (header.nranks != job_.local_size) {
    throw RuntimeError("the shared segment is for " + std::to_string(header.nranks) +
                       " ranks but PMIx says this node has " + std::to_string(job_.local_size) + " of the job's ranks");
  }
  try {
    tunables_ = common::Tunables::from_json(nlohmann::json::parse(segment_->tunables_json()));
    coll_rules_ = coll::rules_from(*tunables_);
  } catch (const std::exception& e) {
    throw RuntimeError(std::string("cannot read the job's tunables from the shared segment: ") + e.what());
  }
  control_ = &segment_->rank(job_.local_rank);
  control_->pid = static_cast<std::int32_t>(::getpid());
  pmix_.count_into(&control_->counters);
}

// A program started without mpfrun is a one-rank job; it still needs a
// segment, for the messages it sends to itself.
void Runtime::create_own_segment() {
  resolve_own_tunables();
  try {
    const auto ncpus = std::max(1u, std::thread::hardware_concurrency());
    segment_.emplace(create_job_segment(1, ncpus, "singleton-" + std::to_string(::getpid()), *tunables_));
  } catch (const shm::SegmentError& e) {
    throw RuntimeError(e.what());
  }
  control_ = &segment_->rank(0);
  control_->pid = static_cast<std::int32_t>(::getpid());
}

void Runtime::start_messaging() {
  transport_.init(*segment_, *routes_, tunables_->text(common::Tunable::rndv_mode) == "copy");
  routed_.init(transport_, network_, *routes_);
  engine_.init(routed_, *tunables_);
  channel_.init(transport_);
  cells_.init(transport_);
  // The world's collectives go flat through the board when it has more
  // ranks than exchange pairwise (coll_exchange_max; 0: the CPUs), unless
  // coll_board turns it off.
  // (Not for a world across nodes: the board is one node's.)
  board_.init(transport_, !spans_nodes() && coll::board_wanted(*tunables_, transport_.size(), transport_.ncpus()));
  coll_facts_ = coll::job_facts(*tunables_, transport_.local_size(), transport_.ncpus(), cells_.capacity(), board_.in_use(),
                                board_.stage_capacity());
  if (common::DebugTopics::from(*tunables_).wireup) {
    const shm::SegmentHeader& h = segment_->header();
    common::debug_report(job_.rank,
                         "%s job %s of %u ranks (%u on this node, local rank %u) on %s; segment %llu bytes, "
                         "%u CPUs%s; %u ring slots, %u eager buffers of %u bytes",
                         job_.singleton ? "singleton" : "PMIx", job_.nspace.c_str(), job_.size, job_.local_size,
                         job_.local_rank, job_.hostname.c_str(), static_cast<unsigned long long>(h.segment_bytes),
                         h.ncpus, h.oversubscribed ? " (oversubscribed)" : "", transport_.layout().ring_slots(),
                         transport_.layout().eager_cells(), transport_.layout().eager_cell_bytes());
  }
}

void Runtime::finalize(const char* function) {
  if (!initialized_ || finalized_) return;
  const std::uint64_t start = now_ns();
  // Sends still on their way (a freed request's, a buffered one's: MPI 3.1
  // §8.7) complete, and replies this rank owes its peers go out, before it
  // stops progressing.
  engine_.wait_until([this] { return engine_.quiescent() && network_.drained(); },
                     progress::BlockedCall::finalize(progress::WaitApi::runtime, function));
  // Finalize is collective: no rank leaves before every rank has arrived, so
  // a peer never sees this rank vanish while it may still talk to it.
  // mpfinspect sees ranks that wait here for the others.
  engine_.announce_blocked(progress::BlockedCall::finalize(progress::WaitApi::runtime, function));
  try {
    if (by_mpfrun_) {
      pmix_.fence(false);
    } else {
      finalize_fence_checked();
    }
    engine_.clear_announced();
  } catch (const wireup::PeerLostError& e) {
    await_job_end(e.what());
  } catch (const wireup::WireupError& e) {
    throw RuntimeError(e.what());
  }
  finalized_ = true;
  unregister_node_part();
  network_.close();
  if (control_ != nullptr) {
    control_->counters.finalize_ns.store(now_ns() - start, std::memory_order_relaxed);
    control_->state.store(static_cast<std::uint32_t>(shm::RankState::finalized),
                          std::memory_order_release);
  }
  if (!by_mpfrun_) write_report_record();
  pmix_.finalize();
}

void Runtime::await_job_end(const std::string& why) {
  // The launcher saw the peer die and is stopping every rank; reporting this
  // rank as failing too would only hide the cause. Wait to be stopped.
  if (by_mpfrun_) {
    std::this_thread::sleep_for(std::chrono::seconds(60));
    std::fprintf(stderr, "rank %u: %s, and the job was not stopped; exiting\n", job_.rank, why.c_str());
    std::_Exit(1);
  }
  // Another launcher may not stop the job (Slurm's srun, when a rank
  // exited 0 without finalizing), or stop it without saying why: unless it
  // has stopped this rank within a second (a peer crashed: it says so
  // itself), say why, and if it still has not after ten, ask it to end the
  // job. Asking sooner would hide the peer's own exit status behind ours
  // on a loaded machine.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  std::fprintf(stderr, "mpf: rank %u: %s\n", job_.rank, why.c_str());
  std::this_thread::sleep_for(std::chrono::seconds(9));
  abort(1, why);
}

void Runtime::abort(int code, const std::string& message) {
  if (control_ != nullptr) {
    control_->abort_code.store(code, std::memory_order_relaxed);
    control_->state.store(static_cast<std::uint32_t>(shm::RankState::aborted),
                          std::memory_order_release);
  }
  pmix_.abort(code, message);
  std::_Exit(code);
}

}  // namespace mpf::core
