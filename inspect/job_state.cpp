#include "inspect/job_state.hpp"

#include <algorithm>

#include <sched.h>
#include <time.h>

#include <chrono>
#include <string>

#include "inspect/collective_names.hpp"
#include "inspect/conversations.hpp"
#include "inspect/shmem.hpp"
#include "inspect/windows.hpp"
#include "progress/packet.hpp"
#include "shm/counters.hpp"
#include "shm/node_memory.hpp"
#include "shm/segment.hpp"
#include "shm/transport_layout.hpp"

namespace mpf::inspect {
namespace {

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

const char* protocol_name(std::uint32_t kind) {
  switch (static_cast<progress::PacketKind>(kind)) {
    case progress::PacketKind::short_msg:
      return "short";
    case progress::PacketKind::eager:
      return "eager";
    case progress::PacketKind::rts:
      return "rendezvous";
    default:
      return "receive";
  }
}

// A consistent copy of a rank's snapshot. The writer is never stopped, so a
// read can collide with a write; a few retries always find a quiet moment.
bool read_snapshot(const shm::Introspection& block, shm::RankSnapshot& out) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (block.snapshot.try_read(out)) return true;
    ::sched_yield();
  }
  return false;
}

nlohmann::json entry_json(const shm::QueueEntry& e, std::int64_t now) {
  return {{"source", e.source},
          {"tag", e.tag},
          {"context", e.context},
          {"bytes", e.bytes},
          {"protocol", protocol_name(e.protocol)},
          {"age_seconds", e.since_ns > 0 ? static_cast<double>(now - e.since_ns) * 1e-9 : 0.0}};
}

// The names the JSON gives the typed fields of a wait record; a value this
// build does not know (a newer writer) shows as its number.
std::string api_name(shm::WaitApi a) {
  switch (a) {
    case shm::WaitApi::mpi:
      return "mpi";
    case shm::WaitApi::shmem:
      return "shmem";
    case shm::WaitApi::mpf:
      return "mpf";
    case shm::WaitApi::runtime:
      return "runtime";
    case shm::WaitApi::none:
      return "none";
  }
  return std::to_string(static_cast<int>(a));
}

std::string kind_name(shm::WaitKind k) {
  switch (k) {
    case shm::WaitKind::none:
      return "none";
    case shm::WaitKind::send:
      return "send";
    case shm::WaitKind::receive:
      return "receive";
    case shm::WaitKind::request:
      return "request";
    case shm::WaitKind::collective:
      return "collective";
    case shm::WaitKind::rma_sync:
      return "rma_sync";
    case shm::WaitKind::shmem_wait:
      return "shmem_wait";
    case shm::WaitKind::conversation:
      return "conversation";
    case shm::WaitKind::finalize:
      return "finalize";
  }
  return std::to_string(static_cast<int>(k));
}

std::string rma_wait_name(std::int32_t what) {
  switch (static_cast<shm::RmaWait>(what)) {
    case shm::RmaWait::post:
      return "post";
    case shm::RmaWait::complete:
      return "complete";
    case shm::RmaWait::lock:
      return "lock";
    case shm::RmaWait::applied:
      return "applied";
  }
  return std::to_string(what);
}

nlohmann::json wait_json(const shm::WaitRecord& w, std::int64_t now) {
  shm::WaitRecord copy = w;
  copy.function[sizeof copy.function - 1] = '\0';
  nlohmann::json b = {{"function", copy.function},
                      {"api", api_name(w.api)},
                      {"kind", kind_name(w.kind)},
                      {"peer", w.peer},
                      {"tag", w.tag},
                      {"context", w.context},
                      {"epoch", w.epoch},
                      {"root", w.root},
                      {"seconds", static_cast<double>(now - w.since_ns) * 1e-9}};
  if (w.kind == shm::WaitKind::request) b["request_of"] = kind_name(w.of);
  if (w.kind == shm::WaitKind::rma_sync) b["rma_wait"] = rma_wait_name(w.tag);
  if (w.kind == shm::WaitKind::collective || (w.kind == shm::WaitKind::request && w.of == shm::WaitKind::collective)) {
    b["collective"] = {{"operation", collective_name(w.coll)}, {"seq", w.seq}};
  }
  return b;
}

// The rank's table of communicators (shm::CommRecord), free entries left out.
nlohmann::json communicators_json(const shm::Introspection& block) {
  nlohmann::json out = nlohmann::json::array();
  for (const shm::CommRecord& c : block.comms) {
    // Acquire: pairs with the release that completes a claimed entry.
    const std::uint32_t size = c.size.load(std::memory_order_acquire);
    if (size == 0) continue;
    const std::uint32_t started = c.started.load(std::memory_order_relaxed);
    const std::uint32_t kinds = c.kinds.load(std::memory_order_relaxed);
    nlohmann::json recent = nlohmann::json::array();
    for (std::uint32_t seq = started > shm::kKindsKept ? started - shm::kKindsKept + 1 : 1; seq <= started; ++seq) {
      const auto byte = static_cast<std::uint8_t>(kinds >> (8 * (seq % shm::kKindsKept)));
      const auto kind = static_cast<shm::CollKind>(byte & ~shm::kNonblockingKind);
      if (kind == shm::CollKind::none) continue;  // from before the entry was claimed
      recent.push_back(
          {{"seq", seq}, {"operation", collective_name(kind)}, {"nonblocking", (byte & shm::kNonblockingKind) != 0}});
    }
    out.push_back({{"context", c.context.load(std::memory_order_relaxed)},
                   {"epoch", c.epoch.load(std::memory_order_relaxed)},
                   {"size", size},
                   {"rank", c.rank.load(std::memory_order_relaxed)},
                   {"started", started},
                   {"completed", c.completed.load(std::memory_order_relaxed)},
                   {"recent", recent}});
  }
  return out;
}

nlohmann::json rank_json(const shm::Segment& segment, std::uint32_t r, std::int64_t now, const std::string& rndv_mode) {
  const shm::RankControl& control = segment.rank(r);
  const auto state = static_cast<shm::RankState>(control.state.load(std::memory_order_acquire));
  nlohmann::json rank = {{"rank", r}, {"pid", control.pid}, {"state", shm::to_string(state)}};
  // How this rank's peers reach it: one node, so shared memory; and how
  // large messages move, from the tunables and what the kernel allowed.
  rank["transport"] = "shared memory";
  if (control.cma_refused_errno.load(std::memory_order_relaxed) != 0) {
    rank["large_messages"] =
        "two copies through eager buffers, and RMA on process memory through the target's engine (the kernel "
        "refused Cross Memory Attach)";
  } else if (rndv_mode == "copy") {
    rank["large_messages"] =
        "two copies through eager buffers, and RMA on process memory through the target's engine (rndv_mode=copy)";
  } else {
    rank["large_messages"] = "one copy with Cross Memory Attach (rndv_mode=" + rndv_mode + ")";
  }
  nlohmann::json counters = nlohmann::json::object();
  for (const shm::CounterField& f : shm::kCounterFields) {
    counters[std::string(f.name)] = (control.counters.*f.member).load(std::memory_order_relaxed);
  }
  rank["counters"] = counters;

  shm::RankSnapshot s{};
  if (!read_snapshot(segment.introspection(r), s)) {
    rank["blocked_in"] = nullptr;
    rank["snapshot"] = "unreadable (the rank was writing it every time we looked)";
    return rank;
  }
  rank["blocked_in"] = s.wait.kind != shm::WaitKind::none && state == shm::RankState::initialized
                           ? wait_json(s.wait, now)
                           : nlohmann::json(nullptr);
  rank["communicators"] = communicators_json(segment.introspection(r));
  nlohmann::json posted = nlohmann::json::array();
  for (std::uint32_t i = 0; i < std::min(s.posted_listed, shm::kListedEntries); ++i) {
    posted.push_back(entry_json(s.posted[i], now));
  }
  nlohmann::json unexpected = nlohmann::json::array();
  for (std::uint32_t i = 0; i < std::min(s.unexpected_listed, shm::kListedEntries); ++i) {
    unexpected.push_back(entry_json(s.unexpected[i], now));
  }
  rank["queues"] = {{"as_of_seconds_ago", s.published_ns > 0 ? static_cast<double>(now - s.published_ns) * 1e-9 : 0.0},
                    {"posted_total", s.posted_total},
                    {"posted", posted},
                    {"unexpected_total", s.unexpected_total},
                    {"unexpected_bytes", s.unexpected_bytes},
                    {"unexpected", unexpected},
                    {"sends_waiting_for_ring_space", s.backlog_total}};
  // Packets this rank has sent that their receivers have not taken yet.
  nlohmann::json rings = nlohmann::json::object();
  const shm::TransportLayout transport(segment.region(shm::TransportLayout::kName, shm::TransportLayout::kVersion),
                                       segment.header().nranks);
  for (std::uint32_t peer = 0; peer < segment.header().nranks; ++peer) {
    // A ring whose pages were never allocated carried nothing; looking at
    // it would allocate them.
    const void* ring = transport.ring(r, peer);
    if (!segment.touched(ring, transport.ring_bytes())) continue;
    const std::uint32_t n = shm::PacketRing::occupancy(ring, transport.ring_slots());
    if (n != 0) rings[std::to_string(peer)] = n;
  }
  rank["packets_in_flight_to"] = rings;
  return rank;
}

// The segment's regions, and how much of each is in memory.
nlohmann::json regions_json(const shm::Segment& segment) {
  nlohmann::json regions = nlohmann::json::array();
  for (const shm::RegionEntry& e : segment.regions()) {
    regions.push_back({{"name", e.name}, {"version", e.version}, {"bytes", e.bytes}});
  }
  return regions;
}

// Shared memory the ranks created while the job runs (windows, heaps).
nlohmann::json node_memory_json(const shm::Segment& segment) {
  nlohmann::json pieces = nlohmann::json::array();
  for (const shm::NodeMemoryListing& m : shm::NodeMemory::list(segment)) {
    pieces.push_back(
        {{"id", m.id}, {"name", m.name}, {"owner_rank", m.owner_rank}, {"owner_pid", m.owner_pid}, {"bytes", m.bytes}});
  }
  return pieces;
}

}  // namespace

namespace {

// One node's part of a job, read from its segment: its ranks (numbered as
// the job numbers them), windows, conversations and memory, and what the
// node is. A job is assembled from its nodes' parts, read here or, for a
// Slurm job's other nodes, by mpfinspect there (cluster_job.hpp).
nlohmann::json read_node(const shm::Segment& segment, const std::string& name, std::vector<std::uint32_t> world,
                         bool several, std::int64_t now) {
  const std::uint32_t local_ranks = segment.header().nranks;
  if (world.empty()) {
    for (std::uint32_t r = 0; r < local_ranks; ++r) world.push_back(r);
  }
  if (world.size() != local_ranks) {
    throw InspectError("node " + name + "'s segment holds " + std::to_string(local_ranks) +
                       " ranks, but its entry lists " + std::to_string(world.size()));
  }
  std::string rndv_mode = "get";
  nlohmann::json tunables;
  try {
    tunables = nlohmann::json::parse(segment.tunables_json());
    for (const auto& t : tunables) {
      if (t.at("name") == "rndv_mode") rndv_mode = t.at("value").get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
    tunables = nullptr;
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (std::uint32_t r = 0; r < local_ranks; ++r) ranks.push_back(rank_json(segment, r, now, rndv_mode));
  // A wait on a conversation names it (its id is the record's tag) and the
  // rank's role there (the record's context).
  nlohmann::json conversations = conversations_json(segment, now);
  for (auto& rank : ranks) {
    nlohmann::json& b = rank["blocked_in"];
    if (b.is_null() || b.value("kind", "") != "conversation") continue;
    b["role"] = conversation_role(b.at("context").get<std::uint32_t>());
    b["waits_for"] = conversation_wait(b.at("context").get<std::uint32_t>());
    for (const auto& c : conversations) {
      if (c.at("id") == b.at("tag")) b["conversation"] = c.at("name");
    }
  }
  // A SHMEM wait names its word and comparison, or its lock and holder.
  nlohmann::json shmem = add_shmem_state(segment, ranks);
  // The node's ranks as the job numbers them.
  for (std::uint32_t r = 0; r < local_ranks; ++r) {
    nlohmann::json& rank = ranks[r];
    rank["rank"] = world[r];
    if (several) {
      rank["node"] = name;
      rank["transport"] = "shared memory within node " + name + ", the network to the other nodes";
      nlohmann::json in_flight = nlohmann::json::object();
      for (const auto& [peer, n] : rank["packets_in_flight_to"].items()) {
        in_flight[std::to_string(world[std::stoul(peer)])] = n;
      }
      rank["packets_in_flight_to"] = in_flight;
    }
  }
  nlohmann::json memory = node_memory_json(segment);
  for (auto& m : memory) m["owner_rank"] = world.at(m["owner_rank"].get<std::uint32_t>());
  return {{"name", name},
          {"world", world},
          {"cpus", segment.header().ncpus},
          {"oversubscribed", segment.header().oversubscribed != 0},
          {"segment_bytes", segment.bytes()},
          {"segment_resident_bytes", segment.resident_bytes()},
          {"segment_regions", regions_json(segment)},
          {"tunables", tunables},
          {"shmem", shmem},
          {"ranks", ranks},
          {"windows", windows_json(segment, now)},
          {"conversations", conversations},
          {"node_memory", memory}};
}

}  // namespace

nlohmann::json assemble_job(nlohmann::json job, const std::vector<nlohmann::json>& nodes) {
  const bool several = nodes.size() > 1;
  nlohmann::json ranks = nlohmann::json::array(), windows = nlohmann::json::array(),
                 conversations = nlohmann::json::array(), node_memory = nlohmann::json::array(),
                 node_list = nlohmann::json::array();
  std::uint64_t segment_bytes = 0, resident_bytes = 0;
  bool oversubscribed = false;
  for (const nlohmann::json& node : nodes) {
    for (const auto& r : node.at("ranks")) ranks.push_back(r);
    for (const auto& w : node.at("windows")) windows.push_back(w);
    for (const auto& c : node.at("conversations")) conversations.push_back(c);
    for (const auto& m : node.at("node_memory")) node_memory.push_back(m);
    oversubscribed = oversubscribed || node.at("oversubscribed").get<bool>();
    segment_bytes += node.at("segment_bytes").get<std::uint64_t>();
    resident_bytes += node.at("segment_resident_bytes").get<std::uint64_t>();
    node_list.push_back({{"name", node.at("name")},
                         {"ranks", node.at("world")},
                         {"cpus", node.at("cpus")},
                         {"oversubscribed", node.at("oversubscribed")},
                         {"segment_bytes", node.at("segment_bytes")},
                         {"segment_resident_bytes", node.at("segment_resident_bytes")}});
  }
  std::sort(ranks.begin(), ranks.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a["rank"] < b["rank"]; });
  const nlohmann::json& first = nodes.front();
  job["ranks"] = ranks.size();
  job["cpus"] = first.at("cpus");
  job["oversubscribed"] = oversubscribed;
  job["segment_bytes"] = segment_bytes;
  job["segment_resident_bytes"] = resident_bytes;
  job["segment_regions"] = first.at("segment_regions");
  job["node_memory"] = node_memory;
  if (several) job["nodes"] = node_list;
  return {{"job", job},
          {"tunables", first.at("tunables")},
          {"ranks", ranks},
          {"windows", windows},
          {"conversations", conversations},
          {"shmem", first.at("shmem")}};
}

nlohmann::json read_node_of_process(pid_t pid, const job::NodeEntry& node, bool several) {
  // Every node is read or the inspection fails naming it: never a job
  // shown without some of its ranks.
  try {
    const shm::Segment segment = shm::Segment::open_of_process(pid, node.segment_fd);
    return read_node(segment, node.name, node.ranks, several, monotonic_ns());
  } catch (const shm::SegmentError& e) {
    throw InspectError("cannot open the shared segment of node " + node.name + ": " + e.what());
  }
}

nlohmann::json read_job(const job::JobEntry& entry) {
  if (!job::RunRegistry::alive(entry)) {
    throw InspectError("job " + entry.jobid + " is not running (its mpfrun, pid " + std::to_string(entry.launcher_pid) +
                       ", is gone); `mpfrun --cleanup` removes its leftovers");
  }
  std::vector<job::NodeEntry> parts = entry.nodes;
  if (parts.empty()) parts.push_back({entry.host, entry.segment_fd, {}});
  std::vector<nlohmann::json> nodes;
  try {
    for (const job::NodeEntry& part : parts) {
      nodes.push_back(read_node_of_process(entry.launcher_pid, part, parts.size() > 1));
    }
  } catch (const InspectError& e) {
    throw InspectError("job " + entry.jobid + ": " + e.what());
  }
  return assemble_job({{"jobid", entry.jobid},
                       {"launcher", "mpfrun"},
                       {"mpfrun_pid", entry.launcher_pid},
                       {"host", entry.host},
                       {"command", entry.command}},
                      nodes);
}

nlohmann::json list_jobs(const job::RunRegistry& registry) {
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  nlohmann::json jobs = nlohmann::json::array();
  for (const job::JobEntry& e : registry.list()) {
    const bool alive = job::RunRegistry::alive(e);
    if (e.is_node_part()) {
      // The nodes of one job that registered here (all of them on a test
      // cluster's virtual nodes) make one line.
      const auto same =
          std::find_if(jobs.begin(), jobs.end(), [&](const nlohmann::json& j) { return j["jobid"] == e.jobid; });
      if (same != jobs.end()) {
        (*same)["nodes_here"].push_back(e.host);
        (*same)["alive"] = (*same)["alive"].get<bool>() && alive;
        continue;
      }
    }
    nlohmann::json job = {{"jobid", e.jobid},
                          {"launcher", e.launcher},
                          {"ranks", e.is_node_part() ? e.job_ranks : e.ranks.size()},
                          {"running_seconds", static_cast<double>(now_ms - e.start_unix_ms) * 1e-3},
                          {"alive", alive},
                          {"command", e.command}};
    if (e.is_node_part()) {
      job["nodes"] = e.job_nodes;
      job["nodes_here"] = {e.host};
    } else {
      job["mpfrun_pid"] = e.launcher_pid;
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace mpf::inspect
