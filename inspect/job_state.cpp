#include "inspect/job_state.hpp"

#include <sched.h>
#include <time.h>

#include <chrono>
#include <string>

#include "shm/counters.hpp"
#include "shm/packet.hpp"
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
  switch (static_cast<shm::PacketKind>(kind)) {
    case shm::PacketKind::short_msg: return "short";
    case shm::PacketKind::eager: return "eager";
    case shm::PacketKind::rts: return "rendezvous";
    default: return "receive";
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

nlohmann::json rank_json(const shm::Segment& segment, std::uint32_t r, std::int64_t now, const std::string& rndv_mode) {
  const shm::RankControl& control = segment.rank(r);
  const auto state = static_cast<shm::RankState>(control.state.load(std::memory_order_acquire));
  nlohmann::json rank = {{"rank", r}, {"pid", control.pid}, {"state", shm::to_string(state)}};
  // How this rank's peers reach it: one node, so shared memory; and how
  // large messages move, from the tunables and what the kernel allowed.
  rank["transport"] = "shared memory";
  if (control.cma_refused_errno.load(std::memory_order_relaxed) != 0) {
    rank["large_messages"] = "two copies through eager buffers (the kernel refused Cross Memory Attach)";
  } else if (rndv_mode == "copy") {
    rank["large_messages"] = "two copies through eager buffers (rndv_mode=copy)";
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
  s.function[sizeof s.function - 1] = '\0';
  if (s.function[0] != '\0' && state == shm::RankState::initialized) {
    rank["blocked_in"] = {{"function", s.function},
                          {"peer", s.peer},
                          {"tag", s.tag},
                          {"context", s.context},
                          {"root", s.root},
                          {"seconds", static_cast<double>(now - s.blocked_since_ns) * 1e-9}};
  } else {
    rank["blocked_in"] = nullptr;
  }
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
    pieces.push_back({{"id", m.id}, {"name", m.name}, {"owner_rank", m.owner_rank}, {"owner_pid", m.owner_pid},
                      {"bytes", m.bytes}});
  }
  return pieces;
}

}  // namespace

nlohmann::json read_job(const job::JobEntry& entry) {
  if (!job::RunRegistry::alive(entry)) {
    throw InspectError("job " + entry.jobid + " is not running (its mpfrun, pid " + std::to_string(entry.launcher_pid) +
                       ", is gone); `mpfrun --cleanup` removes its leftovers");
  }
  shm::Segment segment = [&] {
    try {
      return shm::Segment::open_of_process(entry.launcher_pid, entry.segment_fd);
    } catch (const shm::SegmentError& e) {
      throw InspectError("cannot open job " + entry.jobid + "'s shared segment: " + e.what());
    }
  }();
  nlohmann::json tunables;
  std::string rndv_mode = "get";
  try {
    tunables = nlohmann::json::parse(segment.tunables_json());
    for (const auto& t : tunables) {
      if (t.at("name") == "rndv_mode") rndv_mode = t.at("value").get<std::string>();
    }
  } catch (const nlohmann::json::exception&) {
    tunables = nullptr;
  }
  const std::int64_t now = monotonic_ns();
  nlohmann::json ranks = nlohmann::json::array();
  for (std::uint32_t r = 0; r < segment.header().nranks; ++r) ranks.push_back(rank_json(segment, r, now, rndv_mode));
  return {{"job",
           {{"jobid", entry.jobid},
            {"mpfrun_pid", entry.launcher_pid},
            {"host", entry.host},
            {"command", entry.command},
            {"ranks", segment.header().nranks},
            {"cpus", segment.header().ncpus},
            {"oversubscribed", segment.header().oversubscribed != 0},
            {"segment_bytes", segment.bytes()},
            {"segment_resident_bytes", segment.resident_bytes()},
            {"segment_regions", regions_json(segment)},
            {"node_memory", node_memory_json(segment)}}},
          {"tunables", tunables},
          {"ranks", ranks}};
}

nlohmann::json list_jobs(const job::RunRegistry& registry) {
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  nlohmann::json jobs = nlohmann::json::array();
  for (const job::JobEntry& e : registry.list()) {
    jobs.push_back({{"jobid", e.jobid},
                    {"mpfrun_pid", e.launcher_pid},
                    {"ranks", e.ranks.size()},
                    {"running_seconds", static_cast<double>(now_ms - e.start_unix_ms) * 1e-3},
                    {"alive", job::RunRegistry::alive(e)},
                    {"command", e.command}});
  }
  return jobs;
}

}  // namespace mpf::inspect
