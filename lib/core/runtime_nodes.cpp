// The runtime's set-up beyond one mpfrun on one node (SPEC §2 Wire-up,
// Network): tunables and the node's segment when no mpfrun made them, the
// network endpoint of a job that spans nodes, and what no mpfrun records
// for such a job: the node's part in the run directory (for mpfinspect)
// and each rank's entry of mpfrun --report through srun.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include "core/job_regions.hpp"
#include "core/runtime.hpp"
#include "match/queues.hpp"
#include "shm/counters.hpp"

extern char** environ;

namespace mpf::core {
namespace {

// PMIx keys each rank publishes.
constexpr const char* kKeySegment = "mpf.segment";  // the node's first rank: "<pid> <fd>" of the node's segment
constexpr const char* kKeyNode = "mpf.node";        // the name of the rank's node
constexpr const char* kKeyMachine = "mpf.machine";  // the machine it runs on (its kernel's boot id)
constexpr const char* kKeyAddress = "mpf.net";      // the rank's network endpoint address
constexpr const char* kKeyFinalize = "mpf.final";   // the rank reached the finalize fence

std::vector<std::byte> bytes_of(const std::string& text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

std::string text_of(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

[[noreturn]] void network_failed(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  Runtime::instance().abort(1, message);
}

}  // namespace

void Runtime::resolve_own_tunables() {
  try {
    tunables_ = common::Tunables::resolve(environ, {});
    coll_rules_ = coll::rules_from(*tunables_);
  } catch (const common::TunableError& e) {
    throw RuntimeError(e.what());
  }
  // What mpfrun would have printed for a job it started, once per node
  // (MPI_T's early resolve prints nothing).
  if (job_.local_rank == 0) {
    for (const std::string& warning : tunables_->warnings()) {
      std::fprintf(stderr, "mpf: warning: %s\n", warning.c_str());
    }
  }
}

void Runtime::publish_machine() {
  // The kernel's boot id names the machine, whatever name its UTS namespace
  // gives it (Open MPI's launchers and test clusters give each node its own).
  std::string machine;
  if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char id[64] = {};
    if (std::fgets(id, sizeof id, f) != nullptr) machine = id;
    std::fclose(f);
  }
  if (machine.empty()) {
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    machine = name;
  }
  try {
    pmix_.put(kKeyMachine, bytes_of(machine));
  } catch (const wireup::WireupError& e) {
    throw RuntimeError(e.what());
  }
}

// The CPUs this node's ranks may count on: the machine's, shared among the
// job's ranks on the machine in proportion (all of them on a real cluster,
// where a node is a machine; a part on a test cluster of virtual nodes), so
// that ranks that outnumber the machine's CPUs wait by blocking.
std::uint32_t Runtime::node_cpu_share() {
  const auto cpus = std::max(1u, std::thread::hardware_concurrency());
  const std::string mine = text_of(pmix_.get(job_.rank, kKeyMachine));
  std::uint32_t on_machine = 0;
  for (std::uint32_t r = 0; r < job_.size; ++r) {
    try {
      if (text_of(pmix_.get(r, kKeyMachine)) == mine) ++on_machine;
    } catch (const wireup::WireupError&) {
      // A rank that has ended since the fence: the segment's users notice.
    }
  }
  if (on_machine <= job_.local_size) return cpus;
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::uint64_t{cpus} * job_.local_size / on_machine));
}

void Runtime::share_node_segment() {
  const std::uint32_t first = job_.local_peers.front();
  try {
    if (job_.local_rank == 0) {
      // An anonymous memfd: the kernel frees it when the last rank of the
      // node that maps it ends, however the job ends.
      attach_segment(
          create_job_segment(job_.local_size, node_cpu_share(), job_.nspace + "@" + job_.hostname, *tunables_));
      pmix_.put(kKeySegment, bytes_of(std::to_string(::getpid()) + " " + std::to_string(segment_->fd())));
    }
    pmix_.commit();
    pmix_.fence(true);
  } catch (const shm::SegmentError& e) {
    throw RuntimeError(e.what());
  } catch (const wireup::WireupError& e) {
    throw RuntimeError(e.what());
  }
  if (job_.local_rank == 0) return;
  std::string where;
  try {
    where = text_of(pmix_.get(first, kKeySegment));
  } catch (const wireup::WireupError& e) {
    throw RuntimeError("rank " + std::to_string(first) + ", the first on this node, did not publish the node's " +
                       "shared segment (it has probably ended): " + e.what());
  }
  long pid = 0, fd = -1;
  if (std::sscanf(where.c_str(), "%ld %ld", &pid, &fd) != 2) {
    throw RuntimeError("rank " + std::to_string(first) + " published the node's segment as '" + where +
                       "', which is not '<pid> <fd>'");
  }
  try {
    attach_segment(shm::Segment::attach_of_process(static_cast<pid_t>(pid), static_cast<int>(fd)));
  } catch (const shm::SegmentError& e) {
    throw RuntimeError("cannot attach to the node's shared segment, made by rank " + std::to_string(first) + " (pid " +
                       std::to_string(pid) + "): " + e.what());
  }
}

void Runtime::open_network() {
  const std::string& provider = tunables_->text(common::Tunable::net_provider);
  try {
    // A packet and the most data behind it (an eager buffer's, eager_limit
    // rounded up to a cache line).
    const auto eager = static_cast<std::size_t>(tunables_->integer(common::Tunable::eager_limit));
    network_.open(provider, sizeof(net::WireMessage) + (eager + 63) / 64 * 64);
    pmix_.put(kKeyAddress, network_.address());
    if (!virtual_nodes_) pmix_.put(kKeyNode, bytes_of(job_.hostname));
  } catch (const net::NetError& e) {
    throw RuntimeError(std::string("this job's ranks are on several nodes and need the network: ") + e.what());
  } catch (const wireup::WireupError& e) {
    throw RuntimeError(e.what());
  }
}

std::vector<std::uint32_t> Runtime::nodes_of_ranks() {
  if (virtual_nodes_) return *virtual_nodes_;
  // Every rank's node name, numbered in order of first appearance. A rank
  // whose name is missing has died since the fence (Slurm's fence succeeds
  // all the same).
  std::map<std::string, std::uint32_t> numbers;
  std::vector<std::uint32_t> node_of(job_.size);
  for (std::uint32_t r = 0; r < job_.size; ++r) {
    std::string name;
    try {
      name = text_of(pmix_.get(r, kKeyNode));
    } catch (const wireup::WireupError& e) {
      throw RuntimeError("rank " + std::to_string(r) +
                         " did not publish its node (it has probably ended): " + e.what());
    }
    const auto [it, added] = numbers.emplace(name, static_cast<std::uint32_t>(numbers.size()));
    if (added) node_names_.push_back(name);
    node_of[r] = it->second;
  }
  // PMIx's local peers and the names must agree on who shares this node.
  std::vector<std::uint32_t> same;
  for (std::uint32_t r = 0; r < job_.size; ++r) {
    if (node_of[r] == node_of[job_.rank]) same.push_back(r);
  }
  if (same != job_.local_peers) {
    throw RuntimeError("the launcher's list of this node's ranks does not match the ranks whose node is named '" +
                       job_.hostname + "' (" + std::to_string(same.size()) + " of them)");
  }
  return node_of;
}

void Runtime::connect_network() {
  std::vector<std::uint32_t> peers;
  std::vector<std::vector<std::byte>> addresses;
  for (std::uint32_t r = 0; r < job_.size; ++r) {
    if ((*routes_)[r].via != wireup::Via::network) continue;
    peers.push_back(r);
    try {
      addresses.push_back(pmix_.get(r, kKeyAddress));
    } catch (const wireup::WireupError& e) {
      throw RuntimeError("rank " + std::to_string(r) + " did not publish its network address (it has probably " +
                         "ended): " + e.what());
    }
  }
  // Messages to other nodes carry as much data as the node's eager buffers.
  const shm::TransportLayout node_layout(segment_->region(shm::TransportLayout::kName, shm::TransportLayout::kVersion),
                                         job_.local_size);
  const net::Options options{
      .provider = tunables_->text(common::Tunable::net_provider),
      .window = static_cast<std::uint32_t>(tunables_->integer(common::Tunable::ring_slots)),
      .eager_bytes = node_layout.eager_cell_bytes(),
      .credit_share = match::UnexpectedQueue::sender_share(
          static_cast<std::size_t>(tunables_->integer(common::Tunable::unexpected_pool)), job_.size),
  };
  try {
    network_.connect(options, job_.rank, job_.size, *control_, network_failed, peers, addresses);
  } catch (const net::NetError& e) {
    throw RuntimeError(e.what());
  }
}

void Runtime::register_node_part() {
  if (job_.local_rank != 0) return;
  job::JobEntry e;
  const char* slurm_job = std::getenv("SLURM_JOB_ID");
  const char* slurm_step = std::getenv("SLURM_STEP_ID");
  if (slurm_job != nullptr && slurm_step != nullptr) {
    // The id Slurm's own commands show (squeue --steps, sacct).
    e.jobid = std::string(slurm_job) + "." + slurm_step;
    e.launcher = "srun";
  } else {
    e.jobid = job_.nspace;
    e.launcher = "pmix";
  }
  e.launcher_pid = ::getpid();
  e.launcher_start_ticks = job::process_start_ticks(e.launcher_pid).value_or(0);
  e.segment_fd = segment_->fd();
  e.host = job_.hostname;
  // The program's command line, as mpfrun's entry gives mpfrun's.
  std::ifstream cmdline("/proc/self/cmdline");
  const std::string words{std::istreambuf_iterator<char>(cmdline), std::istreambuf_iterator<char>()};
  for (std::size_t start = 0; start < words.size();) {
    const std::size_t end = words.find('\0', start);
    e.command.push_back(words.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  e.start_unix_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  e.nodes.push_back({job_.hostname, segment_->fd(), job_.local_peers});
  e.job_nodes = node_names_.empty() ? std::vector<std::string>{job_.hostname} : node_names_;
  e.job_ranks = job_.size;
  if (const char* tag = std::getenv(kEnvLaunchTag)) e.launch_tag = tag;
  try {
    const job::RunRegistry registry(common::resolved_run_dir(*tunables_));
    registry.clean_dead_parts_of(job_.hostname);
    registry.publish(e);
    node_part_ = std::move(e);
  } catch (const std::exception& error) {
    // The job runs all the same; only mpfinspect will not find this node.
    std::fprintf(stderr, "mpf: warning: mpfinspect will not see node %s of this job: %s\n", job_.hostname.c_str(),
                 error.what());
  }
}

void Runtime::unregister_node_part() {
  if (!node_part_) return;
  job::RunRegistry(common::resolved_run_dir(*tunables_)).remove(*node_part_);
  node_part_.reset();
}

void Runtime::write_report_record() const {
  const char* dir = std::getenv(kEnvReportDir);
  if (dir == nullptr || control_ == nullptr) return;
  // The rank's running time: from its start (clock ticks since boot) to now.
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  const double started = static_cast<double>(job::process_start_ticks(::getpid()).value_or(0)) /
                         static_cast<double>(::sysconf(_SC_CLK_TCK));
  nlohmann::json counters = nlohmann::json::object();
  for (const shm::CounterField& f : shm::kCounterFields) {
    counters[std::string(f.name)] = (control_->counters.*f.member).load(std::memory_order_relaxed);
  }
  nlohmann::json record = {
      {"rank", job_.rank},
      {"pid", ::getpid()},
      {"node", job_.hostname},
      {"state", shm::to_string(static_cast<shm::RankState>(control_->state.load(std::memory_order_relaxed)))},
      {"wall_seconds",
       std::max(0.0, static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - started)},
      {"counters", counters},
      {"cpus", segment_->header().ncpus}};
  if (const char* step = std::getenv("SLURM_STEP_ID"); step != nullptr && std::getenv("SLURM_JOB_ID") != nullptr) {
    record["jobid"] = std::string(std::getenv("SLURM_JOB_ID")) + "." + step;
  }
  if (job_.local_rank == 0) {
    record["segment_bytes"] = segment_->bytes();
    record["segment_resident_bytes"] = segment_->resident_bytes();
  }
  const std::string path = std::string(dir) + "/rank." + std::to_string(job_.rank) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  const std::string text = record.dump() + "\n";
  if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    // The job's result stands; only mpfrun's report will lack this rank.
    std::fprintf(stderr, "mpf: warning: rank %u cannot write its record for mpfrun --report to %s\n", job_.rank,
                 path.c_str());
  }
  if (f != nullptr) std::fclose(f);
}

void Runtime::finalize_fence_checked() {
  pmix_.put(kKeyFinalize, bytes_of("1"));
  pmix_.commit();
  try {
    pmix_.fence(true);
  } catch (const wireup::PeerLostError&) {
    throw;
  } catch (const wireup::WireupError& e) {
    // Slurm's fence fails so when a rank ended without reaching it.
    throw wireup::PeerLostError(std::string(e.what()) +
                                ": a rank has probably ended without calling MPI_Finalize (or died)");
  }
  std::vector<std::uint32_t> missing;
  for (std::uint32_t r = 0; r < job_.size; ++r) {
    try {
      pmix_.get(r, kKeyFinalize);
    } catch (const wireup::WireupError&) {
      missing.push_back(r);
    }
  }
  if (missing.empty()) return;
  std::string ranks;
  for (const std::uint32_t r : missing) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  const std::string message = "rank" + std::string(missing.size() == 1 ? " " : "s ") + ranks +
                              " ended without calling MPI_Finalize (or the finalize of the API it used), so the " +
                              "job failed";
  // Ended cleanly (exit 0) or not, the launcher may not stop the job.
  await_job_end(message);
}

}  // namespace mpf::core
