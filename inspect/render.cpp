#include "inspect/render.hpp"

#include <cstdio>
#include <sstream>
#include <vector>
#include <string>

#include "common/number_ranges.hpp"
#include "core/context_space.hpp"
#include "inspect/deadlock.hpp"

namespace mpf::inspect {
namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.0f s", s);
  return buf;
}

std::string mebibytes(const nlohmann::json& bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes.get<std::uint64_t>()) / (1 << 20));
  return buf;
}

std::string who(const nlohmann::json& v, const char* any) {
  const int n = v.get<int>();
  return n < 0 ? std::string(any) : std::to_string(n);
}

std::string words(const nlohmann::json& list, const char* between = " ") {
  std::string text;
  for (const auto& word : list) text += (text.empty() ? "" : between) + word.get<std::string>();
  return text;
}

std::string command_line(const nlohmann::json& command) { return words(command); }

// What an RMA synchronization waits for, in words.
std::string rma_wait_text(const nlohmann::json& b) {
  const std::string what = b["rma_wait"];
  const std::string peer = b["peer"].get<int>() < 0 ? std::string("every member") : "rank " + who(b["peer"], "any");
  if (what == "post") return "for " + peer + "'s MPI_Win_post";
  if (what == "complete") return "for " + peer + "'s MPI_Win_complete";
  if (what == "lock") return "for the lock at " + peer;
  if (what == "applied") return "for " + peer + " to apply RMA operations";
  return what + " from " + peer;
}

// A window's members that have anything to show: epochs, locks, a queue,
// operations waiting to be applied.
void render_window(std::ostringstream& out, const nlohmann::json& w, bool full) {
  out << "window on context " << w["context"] << " (" << w["flavor"].get<std::string>() << ", " << w["members"].size()
      << " ranks, made " << seconds(w["created_seconds_ago"]) << " ago)";
  for (const auto& m : w["members"]) {
    if (m.contains("name")) {
      out << " named " << m["name"].get<std::string>();
      break;
    }
  }
  out << "\n";
  int quiet = 0;
  for (const auto& m : w["members"]) {
    const auto& lock = m["lock"];
    const bool busy =
        !m["epochs"].empty() || !lock["holders"].empty() || !lock["queued"].empty() || !m["unapplied"].empty();
    if (!busy && !full) {
      ++quiet;
      continue;
    }
    out << "  rank " << m["rank"] << ": " << m["bytes"] << " bytes of " << m["memory"].get<std::string>();
    if (!m["epochs"].empty()) {
      out << "; epochs";
      for (const auto& e : m["epochs"]) out << " " << e.get<std::string>();
    }
    for (const auto& h : lock["holders"]) {
      out << "; locked " << h["type"].get<std::string>() << " by rank " << h["rank"] << " for "
          << seconds(h["seconds"]);
    }
    if (!lock["queued"].empty()) {
      out << "; queued:";
      for (const auto& q : lock["queued"]) {
        out << " rank " << q["rank"] << " (" << q["type"].get<std::string>() << ", " << seconds(q["seconds"]) << ")";
      }
    }
    for (const auto& u : m["unapplied"]) {
      out << "; " << u["operations"] << " operations of rank " << u["origin"] << " not yet applied";
    }
    out << "\n";
  }
  if (quiet > 0) out << "  " << quiet << (quiet == 1 ? " rank has" : " ranks have") << " no epoch open and no lock\n";
}

std::string ranks_text(const nlohmann::json& ranks) {
  std::string text;
  for (const auto& r : ranks) text += (text.empty() ? "" : ",") + std::to_string(r.get<int>());
  return text.empty() ? "none" : text;
}

// A conversation: who is connected, what is queued, who waits on it.
void render_conversation(std::ostringstream& out, const nlohmann::json& c) {
  out << "conversation \"" << c["name"].get<std::string>() << "\": senders " << ranks_text(c["senders"])
      << "; FCFS receivers " << ranks_text(c["fcfs_receivers"]) << "; BROADCAST receivers "
      << ranks_text(c["broadcast_receivers"]) << "; " << c["queued_messages"] << " messages (" << c["queued_bytes"]
      << " bytes) queued, " << c["queue_used_bytes"] << " of " << c["queue_bytes"] << " bytes of its queue used";
  if (!c["oldest_message_seconds"].is_null())
    out << ", the oldest sent " << seconds(c["oldest_message_seconds"]) << " ago";
  out << "; " << c["sent"] << " sent in all\n";
  const nlohmann::json waiting_receivers = [&] {
    nlohmann::json all = c["waiting_receivers"];
    for (const auto& r : c["waiting_broadcast_receivers"]) all.push_back(r);
    return all;
  }();
  if (!waiting_receivers.empty()) out << "  waiting for a message: ranks " << ranks_text(waiting_receivers) << "\n";
  if (!c["waiting_senders"].empty()) out << "  waiting for room: ranks " << ranks_text(c["waiting_senders"]) << "\n";
}

// The SHMEM team of a collective: the predefined ones by name.
std::string team_label(std::uint32_t context) {
  if (context == core::kShmemWorldContext) return "SHMEM_TEAM_WORLD";
  if (context == core::kShmemSharedContext) return "SHMEM_TEAM_SHARED";
  return "the team with context " + std::to_string(context);
}

// What a SHMEM wait waits for: "word at offset 64 of the heap (0x7f..) == 1,
// holds 0", or "lock at offset 0 of the static data, held by rank 2".
std::string shmem_wait_text(const nlohmann::json& w) {
  std::ostringstream t;
  const std::string where = "offset " + std::to_string(w.value("offset", 0ull)) + " of the " +
                            w.value("area", std::string("heap")) + " (" + w.value("address", std::string("?")) + ")";
  if (w.value("what", "") == "lock") {
    t << "lock at " << where << ", ";
    const int holder = w.value("held_by", -1);
    t << (holder >= 0 ? "held by rank " + std::to_string(holder) : std::string("held by nobody"));
    t << ", ticket " << w.value("ticket", 0ull);
    if (!w["serving"].is_null()) t << ", serving " << w["serving"];
    return t.str();
  }
  const std::uint64_t words = w.value("words", 1u);
  t << (words > 1 ? std::to_string(words) + " words from " : std::string("word at ")) << where << " "
    << w.value("comparison", std::string("?")) << " " << w["value"].dump();
  if (!w["current"].is_null()) t << (words > 1 ? ", the first holds " : ", holds ") << w["current"].dump();
  return t.str();
}

void render_rank(std::ostringstream& out, const nlohmann::json& r, bool full) {
  out << "rank " << r["rank"] << " (pid " << r["pid"];
  if (r.contains("node")) out << " on " << r["node"].get<std::string>();
  out << "): ";
  const std::string state = r["state"];
  if (state == "not_initialized") {
    out << "has not initialised (starting, or not an MPI, SHMEM or MPF program)\n";
  } else if (state == "finalized") {
    out << "finalized\n";
  } else if (state == "aborted") {
    out << "aborting\n";
  } else if (r["blocked_in"].is_null()) {
    out << "running user code\n";
  } else {
    const auto& b = r["blocked_in"];
    if (b.contains("role")) {
      out << "blocked in " << b["function"].get<std::string>() << "(conversation \""
          << b.value("conversation", std::string("?")) << "\" as " << b["role"].get<std::string>() << ") for "
          << seconds(b["seconds"]) << "\n";
    } else if (b.contains("shmem")) {
      out << "blocked in " << b["function"].get<std::string>() << "(" << shmem_wait_text(b["shmem"]) << ") for "
          << seconds(b["seconds"]) << "\n";
    } else if (b.contains("rma_wait")) {
      out << "blocked in " << b["function"].get<std::string>() << "(" << rma_wait_text(b) << ", context "
          << b["context"] << ") for " << seconds(b["seconds"]) << "\n";
    } else if (b.value("kind", "") == "finalize") {
      out << "blocked in " << b["function"].get<std::string>() << " (waiting for the other ranks to finalize) for "
          << seconds(b["seconds"]) << "\n";
    } else if (b.value("api", "") == "shmem" && b.contains("collective")) {
      out << "blocked in " << b["function"].get<std::string>() << "(" << team_label(b["context"].get<std::uint32_t>())
          << ", collective #" << b["collective"]["seq"] << ") for " << seconds(b["seconds"]) << "\n";
    } else {
      out << "blocked in " << b["function"].get<std::string>() << "(peer " << who(b["peer"], "any");
      if (b.value("root", -1) >= 0) out << ", root " << b["root"];
      out << ", tag " << who(b["tag"], "any") << ", context " << b["context"];
      if (b.contains("collective")) out << ", collective #" << b["collective"]["seq"];
      out << ") for " << seconds(b["seconds"]) << "\n";
    }
  }
  if (r.contains("shmem_locks_held") && !r["shmem_locks_held"].empty()) {
    out << "  holds SHMEM locks:";
    for (const auto& l : r["shmem_locks_held"]) {
      out << " offset " << l["offset"] << " of the " << l["area"].get<std::string>() << ";";
    }
    out << "\n";
  }
  if (full && r.contains("communicators")) {
    for (const auto& c : r["communicators"]) {
      out << "  communicator with context " << c["context"] << " (epoch " << c["epoch"] << "): rank " << c["rank"]
          << " of " << c["size"] << ", collectives started " << c["started"] << ", completed " << c["completed"];
      for (const auto& k : c["recent"]) {
        out << "; #" << k["seq"] << " " << k["operation"].get<std::string>()
            << (k["nonblocking"].get<bool>() ? " (nonblocking)" : "");
      }
      out << "\n";
    }
  }
  if (full && r.contains("transport")) {
    out << "  transport: " << r["transport"].get<std::string>()
        << "; large messages: " << r["large_messages"].get<std::string>() << "\n";
  } else if (r.contains("large_messages") &&
             r["large_messages"].get<std::string>().find("refused") != std::string::npos) {
    out << "  large messages: " << r["large_messages"].get<std::string>() << "\n";
  }
  if (r.contains("queues")) {
    const auto& q = r["queues"];
    if (q["posted_total"].get<int>() > 0 || full) {
      out << "  posted receives: " << q["posted_total"] << "\n";
      for (const auto& e : q["posted"]) {
        out << "    source " << who(e["source"], "any") << ", tag " << who(e["tag"], "any") << ", context "
            << e["context"] << ", up to " << e["bytes"] << " bytes, posted " << seconds(e["age_seconds"]) << " ago\n";
      }
    }
    if (q["unexpected_total"].get<int>() > 0 || full) {
      out << "  unexpected messages: " << q["unexpected_total"] << " (" << q["unexpected_bytes"]
          << " bytes of the pool)\n";
      for (const auto& e : q["unexpected"]) {
        out << "    source " << e["source"] << ", tag " << e["tag"] << ", context " << e["context"] << ", "
            << e["bytes"] << " bytes, " << e["protocol"].get<std::string>() << ", arrived " << seconds(e["age_seconds"])
            << " ago\n";
      }
    }
    if (q["sends_waiting_for_ring_space"].get<int>() > 0 || full) {
      out << "  sends waiting for ring space: " << q["sends_waiting_for_ring_space"] << "\n";
    }
  }
  if (r.contains("packets_in_flight_to") && !r["packets_in_flight_to"].empty()) {
    out << "  packets not yet taken by their receivers:";
    for (const auto& [peer, n] : r["packets_in_flight_to"].items()) out << " rank " << peer << ": " << n << ";";
    out << "\n";
  }
  out << "  counters:";
  bool any = false;
  for (const auto& [name, value] : r["counters"].items()) {
    if (value.get<std::uint64_t>() == 0 && !full) continue;
    out << " " << name << " " << value;
    any = true;
  }
  out << (any ? "" : " all zero") << "\n";
}

}  // namespace

std::string render_job_list(const nlohmann::json& jobs) {
  std::ostringstream out;
  if (jobs.empty()) return "no running jobs\n";
  for (const auto& j : jobs) {
    out << "job " << j["jobid"].get<std::string>() << ": " << j["ranks"] << " ranks, ";
    if (j.contains("nodes")) {
      // A job another launcher started: which of its nodes registered here.
      out << "started by " << j["launcher"].get<std::string>() << " on " << j["nodes"].size() << " node"
          << (j["nodes"].size() == 1 ? "" : "s") << " (here: " << words(j["nodes_here"], ", ") << "), ";
    }
    out << "running " << seconds(j["running_seconds"])
        << (j["alive"].get<bool>() ? "" : " (dead: mpfrun --cleanup removes it)") << ": " << command_line(j["command"])
        << "\n";
  }
  return out.str();
}

std::string render_job(const nlohmann::json& job, std::optional<std::uint32_t> rank) {
  std::ostringstream out;
  const auto& j = job["job"];
  out << "job " << j["jobid"].get<std::string>() << ": " << j["ranks"] << " ranks on ";
  if (j.contains("nodes")) {
    out << j["nodes"].size() << " nodes (";
    for (std::size_t n = 0; n < j["nodes"].size(); ++n) {
      const auto& node = j["nodes"][n];
      std::vector<std::uint32_t> members = node["ranks"].get<std::vector<std::uint32_t>>();
      out << (n == 0 ? "" : "; ") << node["name"].get<std::string>() << (members.size() == 1 ? ": rank " : ": ranks ") << common::number_ranges(members) << ", "
          << node["cpus"] << " CPUs" << (node["oversubscribed"].get<bool>() ? ", oversubscribed" : "");
    }
    out << ")";
  } else {
    out << j["host"].get<std::string>() << " (" << j["cpus"] << " CPUs"
        << (j["oversubscribed"].get<bool>() ? ", oversubscribed" : "") << ")";
  }
  if (j.contains("mpfrun_pid")) {
    out << ", mpfrun pid " << j["mpfrun_pid"];
  } else {
    out << ", started by " << j["launcher"].get<std::string>();
  }
  out << ": " << command_line(j["command"]) << "\n";
  if (j.contains("segment_resident_bytes")) {
    out << "shared memory: " << mebibytes(j["segment_resident_bytes"]) << " in use of the "
        << (j.contains("nodes") ? std::to_string(j["nodes"].size()) + " segments' " : std::string("segment's "))
        << mebibytes(j["segment_bytes"]);
    for (const auto& m : j["node_memory"]) {
      out << "; " << m["name"].get<std::string>() << " of rank " << m["owner_rank"] << ", " << mebibytes(m["bytes"]);
    }
    out << "\n";
  }
  for (const auto& r : job["ranks"]) {
    if (rank && r["rank"].get<std::uint32_t>() != *rank) continue;
    render_rank(out, r, rank.has_value());
  }
  if (job.contains("windows")) {
    for (const auto& w : job["windows"]) render_window(out, w, rank.has_value());
  }
  if (job.contains("conversations")) {
    for (const auto& c : job["conversations"]) render_conversation(out, c);
  }
  if (rank && job["tunables"].is_array()) {
    out << "tunables:\n";
    for (const auto& t : job["tunables"]) {
      out << "  " << t["name"].get<std::string>() << " = " << t["value"].dump() << " ("
          << t["origin"].get<std::string>() << ")\n";
    }
  }
  return out.str();
}

std::string render_deadlock(const nlohmann::json& analysis) {
  std::ostringstream out;
  const bool deadlocked = analysis["deadlocked"].get<bool>();
  out << (deadlocked ? "deadlocked" : "not deadlocked") << ":\n";
  for (const auto& line : analysis["explanation"]) out << "  " << line.get<std::string>() << "\n";
  return out.str();
}

std::string render_job_and_deadlock(const nlohmann::json& job, std::optional<std::uint32_t> rank) {
  return render_job(job, rank) + render_deadlock(analyse_deadlock(job));
}

}  // namespace mpf::inspect
