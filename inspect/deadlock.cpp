#include "inspect/deadlock.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/number_ranges.hpp"
#include "core/context_space.hpp"
#include "inspect/collective_names.hpp"

namespace mpf::inspect {
namespace {

// A communicator as the inspector knows it: its context and epoch
// (shm::WaitRecord, shm::CommRecord).
struct CommKey {
  std::uint32_t context = 0;
  std::uint32_t epoch = 0;
  auto operator<=>(const CommKey&) const = default;
};

// One rank's record of a communicator.
struct MemberRecord {
  std::uint32_t started = 0;
  std::uint32_t completed = 0;
  std::map<std::uint32_t, std::pair<shm::CollKind, bool>> recent;  // seq -> kind, nonblocking
};

struct Communicator {
  std::uint32_t size = 0;               // as its members publish it; 0: unknown
  std::map<int, MemberRecord> members;  // world rank -> its record
};

// What a wait needs, as the analysis reads it: a request wait is analysed
// as the wait for its oldest incomplete request.
enum class Need { everyone, send, receive, collective, conversation, shmem };

// What a rank is doing, for the analysis.
struct Node {
  enum class Kind { running, finished, blocked } kind = Kind::running;
  int self = -1;         // its world rank
  std::string function;  // display text: "MPI_Recv"
  std::string call;      // "MPI_Recv(source 1, tag 7)"
  bool finalizing = false;
  Need need = Need::everyone;
  int peer = -1;  // -1: any
  int tag = -1;
  CommKey comm;
  std::uint32_t seq = 0;  // collectives: the call's number on `comm`
  shm::CollKind op = shm::CollKind::none;
  int root = -1;
  std::vector<int> waits_for;  // ranks whose action would release it
  // An MPF conversation wait: the conversation's id and what it waits for
  // ("message", "room", "readers").
  int conversation = -1;
  std::string conversation_wait;
  // A SHMEM wait for a lock (peer: its holder, -1 when not known).
  bool shmem_lock = false;
};

// The contexts of the job's RMA windows' communicators (their fences are
// collectives there), for the analysis in progress.
std::set<std::uint32_t>& window_contexts() {
  static std::set<std::uint32_t> contexts;
  return contexts;
}

std::string comm_label(std::uint32_t context) {
  if (context == core::kMpiWorldContext) return "MPI_COMM_WORLD";
  if (context == core::kMpiSelfContext) return "MPI_COMM_SELF";
  if (context == core::kShmemWorldContext) return "SHMEM_TEAM_WORLD";
  if (context == core::kShmemSharedContext) return "SHMEM_TEAM_SHARED";
  if (window_contexts().contains(context)) return "the RMA window on context " + std::to_string(context);
  return "the communicator with context " + std::to_string(context);
}

// The groups of every rank of the job: MPI_COMM_WORLD, SHMEM_TEAM_WORLD
// and (on one node) SHMEM_TEAM_SHARED.
bool whole_job(std::uint32_t context) {
  return context == core::kMpiWorldContext || context == core::kShmemWorldContext ||
         context == core::kShmemSharedContext;
}

std::string rank_range(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + common::number_ranges(ranks);
}

// "the communicator with context 5 (ranks 0-2)": named with its members
// where they are not the whole world.
std::string comm_with_members(const CommKey& key, const Communicator* c) {
  std::string label = comm_label(key.context);
  if (!whole_job(key.context) && c != nullptr && !c->members.empty()) {
    std::vector<int> ranks;
    for (const auto& [r, record] : c->members) ranks.push_back(r);
    label += " (" + rank_range(ranks);
    if (c->size > ranks.size()) {
      label += " and " + std::to_string(c->size - ranks.size()) + " more that do not show it";
    }
    label += ")";
  }
  return label;
}

std::string operation_label(shm::CollKind kind, bool nonblocking) {
  const CollectiveName* n = find_collective(kind);
  if (n == nullptr) return "collective operation " + std::to_string(static_cast<int>(kind));
  return nonblocking ? n->nonblocking : n->blocking;
}

shm::CollKind operation_of(const nlohmann::json& v) {
  const CollectiveName* n = v.is_string() ? find_collective(v.get<std::string>()) : nullptr;
  return n != nullptr ? n->kind : shm::CollKind::none;
}

// "MPI_Bcast(root 0) on MPI_COMM_WORLD": what every rank in the same
// collective call shows alike.
std::string describe_collective(const Node& n) {
  return n.function + (n.root >= 0 ? "(root " + std::to_string(n.root) + ")" : "") + " on " +
         comm_label(n.comm.context);
}

std::string describe_p2p(const Node& n) {
  std::string text = n.function + "(" + (n.need == Need::receive ? "source " : "destination ") +
                     (n.peer < 0 ? "any" : std::to_string(n.peer));
  return text + ", tag " + (n.tag < 0 ? std::string("any") : std::to_string(n.tag)) + ")";
}

std::string number_text(const nlohmann::json& v) {
  if (v.is_number_float()) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v.get<double>());
    return text;
  }
  return v.dump();
}

// "the word at offset 64 of the heap"
std::string word_text(const nlohmann::json& w) {
  const std::uint64_t words = w.value("words", 1u);
  return std::string(words > 1 ? std::to_string(words) + " words from" : "the word at") + " offset " +
         std::to_string(w.value("offset", 0ull)) + " of the " + w.value("area", std::string("heap"));
}

// A SHMEM wait (wait_until and its kin, signal_wait_until, set_lock): the
// word and its comparison, or the lock and its holder, who is then the
// rank it waits for.
void read_shmem_wait(const nlohmann::json& b, Node& node) {
  node.need = Need::shmem;
  node.call = node.function;
  if (!b.contains("shmem")) return;
  const nlohmann::json& w = b["shmem"];
  if (w.value("what", "") == "lock") {
    node.shmem_lock = true;
    node.peer = w.value("held_by", -1);
    node.call += "(the lock at offset " + std::to_string(w.value("offset", 0ull)) + " of the " +
                 w.value("area", std::string("heap")) +
                 (node.peer >= 0 ? ", held by rank " + std::to_string(node.peer) : std::string(", held by nobody")) +
                 ")";
    return;
  }
  node.call += "(" + word_text(w) + " " + w.value("comparison", std::string("?")) + " " +
               number_text(w.value("value", nlohmann::json(nullptr)));
  if (!w["current"].is_null() && w.value("words", 1u) == 1) node.call += "; it holds " + number_text(w["current"]);
  node.call += ")";
}

// Reads a rank's blocked_in into `node`.
void read_wait(const nlohmann::json& b, Node& node) {
  node.kind = Node::Kind::blocked;
  node.function = b.at("function");
  node.peer = b.at("peer");
  node.tag = b.at("tag");
  node.comm = {b.at("context").get<std::uint32_t>(), b.value("epoch", 0u)};
  node.root = b.value("root", -1);
  std::string kind = b.value("kind", "none");
  if (kind == "conversation") {
    node.need = Need::conversation;
    node.conversation = node.tag;
    node.conversation_wait = b.value("waits_for", "message");
    node.call = node.function + "(conversation \"" + b.value("conversation", std::string("?")) + "\" as " +
                b.value("role", std::string("connection")) + ")";
    return;
  }
  if (kind == "shmem_wait") {
    read_shmem_wait(b, node);
    return;
  }
  if (kind == "request") kind = b.value("request_of", "none");
  if (kind == "send" || kind == "rma_sync") {
    node.need = Need::send;
  } else if (kind == "receive") {
    node.need = Need::receive;
  } else if (kind == "collective" && b.contains("collective")) {
    node.need = Need::collective;
    node.seq = b["collective"].at("seq");
    node.op = operation_of(b["collective"].at("operation"));
  } else {
    node.need = Need::everyone;
    node.finalizing = kind == "finalize";
  }
  if (node.need == Need::collective) {
    node.call = describe_collective(node);
  } else if (node.need == Need::everyone || (node.peer < 0 && node.need == Need::send)) {
    node.call = node.function;
  } else {
    node.call = describe_p2p(node);
  }
  // A send to any rank (MPI_Buffer_detach) waits for every receiver.
  if (node.need == Need::send && node.peer < 0) node.need = Need::everyone;
}

// An RMA synchronization: whom it waits for, and what for. A lock request
// waits for the lock's holders at the target (read from the window's
// shared part), not for the target, which need not act at all.
void read_rma_wait(const nlohmann::json& b, const nlohmann::json& windows, Node& node) {
  const std::string what = b.value("rma_wait", "");
  const std::string peer = node.peer < 0 ? std::string("every member") : "rank " + std::to_string(node.peer);
  if (what == "post") {
    node.call = node.function + "(for " + peer + "'s MPI_Win_post)";
  } else if (what == "complete") {
    node.call = node.function + "(for " + peer + "'s MPI_Win_complete)";
  } else if (what == "applied") {
    node.call = node.function + "(for " + peer + " to apply this rank's RMA operations)";
  } else if (what == "lock") {
    const int target = node.peer;
    node.call = node.function + "(for the lock at " + peer;
    for (const auto& w : windows) {
      if (w.at("context").get<std::uint32_t>() != node.comm.context) continue;
      for (const auto& m : w.at("members")) {
        if (m.at("rank").get<int>() != target) continue;
        std::vector<int> holders;
        for (const auto& h : m.at("lock").at("holders")) holders.push_back(h.at("rank").get<int>());
        // Nobody holds it: those queued before this rank are let in first.
        if (holders.empty()) {
          for (const auto& q : m.at("lock").at("queued")) {
            if (q.at("rank").get<int>() == node.self) break;
            holders.push_back(q.at("rank").get<int>());
          }
        }
        if (!holders.empty()) {
          node.peer = holders.front();
          node.call += ", held by " + rank_range(holders);
        }
      }
    }
    node.call += ")";
  }
}

// Ranks blocked in collectives, grouped by call: same communicator, call
// number, operation (forms that match count as one) and root; groups in
// the order of their lowest rank.
struct Group {
  std::vector<int> ranks;
  const Node* first = nullptr;
};

bool same_call(const Node& a, const Node& b) {
  return a.comm == b.comm && a.seq == b.seq && shm::same_collective(a.op, b.op) && a.root == b.root;
}

std::vector<Group> collective_groups(const std::vector<Node>& nodes, const std::vector<int>& blocked) {
  std::vector<Group> groups;
  for (int r : blocked) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.need != Need::collective) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return same_call(*g.first, node); });
    if (it == groups.end()) {
      groups.push_back({{r}, &node});
    } else {
      it->ranks.push_back(r);
    }
  }
  return groups;
}

// The members of `key` as far as the job shows them: the ranks whose
// tables hold it and the ranks blocked in a collective on it.
std::vector<int> members_of(const CommKey& key, const std::map<CommKey, Communicator>& comms,
                            const std::vector<Node>& nodes) {
  std::set<int> members;
  if (auto it = comms.find(key); it != comms.end()) {
    for (const auto& [r, record] : it->second.members) members.insert(r);
  }
  for (std::size_t r = 0; r < nodes.size(); ++r) {
    if (nodes[r].kind == Node::Kind::blocked && nodes[r].need == Need::collective && nodes[r].comm == key) {
      members.insert(static_cast<int>(r));
    }
  }
  if (whole_job(key.context) && key.epoch == 0) {
    for (std::size_t r = 0; r < nodes.size(); ++r) members.insert(static_cast<int>(r));
  }
  return {members.begin(), members.end()};
}

// Where the members of a collective group's communicator that are not in
// its call stand with that call: not yet entered, or entered (and maybe
// completed) as another operation.
struct Standing {
  std::vector<int> not_entered;
  // (completed, kind, nonblocking) -> ranks
  std::map<std::tuple<bool, shm::CollKind, bool>, std::vector<int>> entered;
};

Standing standing_of(const Group& g, const std::map<CommKey, Communicator>& comms, const std::vector<Node>& nodes) {
  Standing s;
  const Node& call = *g.first;
  const auto comm = comms.find(call.comm);
  for (int m : members_of(call.comm, comms, nodes)) {
    if (std::find(g.ranks.begin(), g.ranks.end(), m) != g.ranks.end()) continue;
    const Node& other = nodes[static_cast<std::size_t>(m)];
    // In another call of the same number there: the groups say so.
    if (other.kind == Node::Kind::blocked && other.need == Need::collective && other.comm == call.comm &&
        other.seq == call.seq) {
      continue;
    }
    const MemberRecord* record = nullptr;
    if (comm != comms.end()) {
      if (auto it = comm->second.members.find(m); it != comm->second.members.end()) record = &it->second;
    }
    if (record == nullptr || record->started < call.seq) {
      s.not_entered.push_back(m);
      continue;
    }
    const auto kind = record->recent.find(call.seq);
    if (kind == record->recent.end()) continue;  // too long ago to tell
    s.entered[{record->completed >= call.seq, kind->second.first, kind->second.second}].push_back(m);
  }
  return s;
}

const nlohmann::json* find_conversation(const nlohmann::json& conversations, int id) {
  for (const auto& c : conversations) {
    if (c.at("id").get<int>() == id) return &c;
  }
  return nullptr;
}

std::vector<int> ranks_of(const nlohmann::json& list, int except) {
  std::vector<int> ranks;
  for (const auto& r : list) {
    if (r.get<int>() != except) ranks.push_back(r.get<int>());
  }
  return ranks;
}

// Whose action would end a conversation wait: a receiver's senders; a
// sender's receivers (they make room, or read its message).
std::vector<int> conversation_partners(const nlohmann::json& conversations, const Node& node) {
  const nlohmann::json* c = find_conversation(conversations, node.conversation);
  if (c == nullptr) return {};
  if (node.conversation_wait == "message") return ranks_of(c->at("senders"), node.self);
  std::vector<int> receivers = ranks_of(c->at("fcfs_receivers"), node.self);
  for (int r : ranks_of(c->at("broadcast_receivers"), node.self)) receivers.push_back(r);
  std::sort(receivers.begin(), receivers.end());
  receivers.erase(std::unique(receivers.begin(), receivers.end()), receivers.end());
  return receivers;
}

// "ranks 1,2 are all blocked: rank 1 in mpf_receive(...); rank 2 in ...".
std::string all_blocked(const std::vector<int>& ranks, const std::vector<Node>& nodes) {
  std::string text = ranks.size() == 1 ? ", which is blocked too: " : ", which are all blocked: ";
  std::size_t shown = 0;
  for (int r : ranks) {
    if (shown++ == 4) {
      text += "; and " + std::to_string(ranks.size() - 4) + " more";
      break;
    }
    text += (shown == 1 ? "" : "; ") + std::string("rank ") + std::to_string(r) + " in " +
            nodes[static_cast<std::size_t>(r)].call;
  }
  return text;
}

// Why a conversation wait cannot end, every unfinished rank being blocked.
std::string explain_conversation_wait(const nlohmann::json& conversations, const Node& node,
                                      const std::vector<Node>& nodes) {
  const std::string who = "rank " + std::to_string(node.self) + " waits in " + node.call;
  const nlohmann::json* c = find_conversation(conversations, node.conversation);
  if (c == nullptr) return who + ", on a conversation that no longer exists";
  const std::string name = "\"" + c->at("name").get<std::string>() + "\"";
  if (node.conversation_wait == "message") {
    if (node.waits_for.empty()) {
      return who + ", but nobody has " + name + " open to send and no message for it is queued: nothing can arrive";
    }
    return who + " for a message from " + rank_range(node.waits_for) + all_blocked(node.waits_for, nodes);
  }
  std::string line = who;
  if (node.conversation_wait == "room") {
    line += " for room: the queue of " + name + " is full (" + std::to_string(c->at("queued_messages").get<long>()) +
            " messages, " + std::to_string(c->at("queue_used_bytes").get<long>()) + " of its " +
            std::to_string(c->at("queue_bytes").get<long>()) + " bytes, mpf_queue_bytes)";
  } else {
    line += " for its receivers to read a message too large for the queue of " + name;
  }
  if (node.waits_for.empty()) return line + ", and " + name + " has no receiver other than itself";
  return line + "; its receivers are " + rank_range(node.waits_for) + all_blocked(node.waits_for, nodes);
}

}  // namespace

nlohmann::json analyse_deadlock(const nlohmann::json& job) {
  const auto& ranks = job.at("ranks");
  const int n = static_cast<int>(ranks.size());
  std::vector<Node> nodes(static_cast<std::size_t>(n));
  std::map<CommKey, Communicator> comms;
  std::vector<int> running, finished;
  bool in_flight = false;  // packets not yet taken: someone will still make progress
  window_contexts().clear();
  for (const auto& w : job.value("windows", nlohmann::json::array())) {
    window_contexts().insert(w.at("context").get<std::uint32_t>());
  }

  for (int r = 0; r < n; ++r) {
    const auto& rank = ranks[static_cast<std::size_t>(r)];
    Node& node = nodes[static_cast<std::size_t>(r)];
    for (const auto& c : rank.value("communicators", nlohmann::json::array())) {
      Communicator& comm = comms[{c.at("context").get<std::uint32_t>(), c.at("epoch").get<std::uint32_t>()}];
      comm.size = std::max(comm.size, c.at("size").get<std::uint32_t>());
      MemberRecord& record = comm.members[r];
      record.started = c.at("started");
      record.completed = c.at("completed");
      for (const auto& k : c.at("recent")) {
        record.recent[k.at("seq").get<std::uint32_t>()] = {operation_of(k.at("operation")),
                                                           k.at("nonblocking").get<bool>()};
      }
    }
    const std::string state = rank.at("state");
    if (rank.contains("packets_in_flight_to") && !rank["packets_in_flight_to"].empty()) in_flight = true;
    if (state == "finalized" || state == "aborted") {
      node.kind = Node::Kind::finished;
      finished.push_back(r);
      continue;
    }
    if (state != "initialized" || rank.at("blocked_in").is_null()) {
      running.push_back(r);
      continue;
    }
    node.self = r;
    read_wait(rank["blocked_in"], node);
    if (rank["blocked_in"].value("kind", "") == "rma_sync") {
      read_rma_wait(rank["blocked_in"], job.value("windows", nlohmann::json::array()), node);
    }
  }

  // Whom each blocked rank waits for. A rank in a collective waits for the
  // members of its communicator that are not in the same call: until they
  // arrive, it cannot finish.
  std::vector<int> blocked;
  for (int r = 0; r < n; ++r) {
    if (nodes[static_cast<std::size_t>(r)].kind == Node::Kind::blocked) blocked.push_back(r);
  }
  const nlohmann::json conversations = job.value("conversations", nlohmann::json::array());
  for (int r : blocked) {
    Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.need == Need::conversation) {
      node.waits_for = conversation_partners(conversations, node);
    } else if (node.need == Need::shmem && !(node.shmem_lock && node.peer >= 0)) {
      // Any PE may write the word (or release the lock).
      for (int other = 0; other < n; ++other) {
        if (other != r) node.waits_for.push_back(other);
      }
    } else if (node.need == Need::collective) {
      for (int m : members_of(node.comm, comms, nodes)) {
        const Node& o = nodes[static_cast<std::size_t>(m)];
        if (m != r && (o.kind != Node::Kind::blocked || o.need != Need::collective || !same_call(o, node))) {
          node.waits_for.push_back(m);
        }
      }
    } else if (node.need == Need::everyone || node.peer < 0) {
      for (int other = 0; other < n; ++other) {
        if (other != r) node.waits_for.push_back(other);
      }
    } else {
      node.waits_for.push_back(node.peer);
    }
  }

  nlohmann::json waits = nlohmann::json::object();
  for (int r : blocked) waits[std::to_string(r)] = nodes[static_cast<std::size_t>(r)].waits_for;
  const std::vector<Group> groups = collective_groups(nodes, blocked);
  nlohmann::json collectives = nlohmann::json::array();
  for (const Group& g : groups) {
    const Node& call = *g.first;
    const auto comm = comms.find(call.comm);
    const Standing s = standing_of(g, comms, nodes);
    nlohmann::json entered = nlohmann::json::array();
    for (const auto& [what, members] : s.entered) {
      for (int m : members) {
        entered.push_back({{"rank", m},
                           {"operation", collective_name(std::get<1>(what))},
                           {"nonblocking", std::get<2>(what)},
                           {"completed", std::get<0>(what)}});
      }
    }
    collectives.push_back(
        {{"context", call.comm.context},
         {"epoch", call.comm.epoch},
         {"communicator", comm_with_members(call.comm, comm == comms.end() ? nullptr : &comm->second)},
         {"members", members_of(call.comm, comms, nodes)},
         {"seq", call.seq},
         {"operation", collective_name(call.op)},
         {"function", call.function},
         {"root", call.root},
         {"ranks", g.ranks},
         {"waits_for", call.waits_for},
         {"not_entered", s.not_entered},
         {"entered_otherwise", entered}});
  }
  auto verdict = [&](bool deadlocked, const std::vector<std::string>& lines) {
    return nlohmann::json{
        {"deadlocked", deadlocked}, {"explanation", lines}, {"waits_for", waits}, {"collectives", collectives}};
  };
  std::vector<std::string> lines;

  // Not deadlocked: someone is still running user code, or packets are on
  // their way (a blocked rank takes them as it waits).
  if (blocked.empty()) {
    lines.push_back("no rank is blocked in a communication call");
    return verdict(false, lines);
  }
  if (!running.empty() || in_flight) {
    std::string line;
    if (!running.empty()) {
      line = rank_range(running) + (running.size() == 1 ? " is" : " are") + " computing";
      // The blocked ranks that wait for one of them, and on what.
      for (const Group& g : groups) {
        std::vector<int> awaited;
        for (int w : g.first->waits_for) {
          if (nodes[static_cast<std::size_t>(w)].kind == Node::Kind::running) awaited.push_back(w);
        }
        if (awaited.empty()) continue;
        const std::string whom = awaited == running ? (running.size() == 1 ? "it" : "them") : rank_range(awaited);
        line += "; " + rank_range(g.ranks) + (g.ranks.size() == 1 ? " waits" : " wait") + " for " + whom + " in " +
                g.first->call;
      }
      int shown = 0;
      for (int r : blocked) {
        const Node& node = nodes[static_cast<std::size_t>(r)];
        if (node.need == Need::collective) continue;
        for (int w : node.waits_for) {
          if (nodes[static_cast<std::size_t>(w)].kind != Node::Kind::running) continue;
          if (shown++ < 4) {
            line += "; rank " + std::to_string(r) + " waits for " +
                    (node.peer < 0 ? std::string("any of them") : "rank " + std::to_string(w)) + " in " + node.call;
          }
          break;
        }
      }
      if (shown > 4) line += "; and " + std::to_string(shown - 4) + " more";
    } else {
      line = "packets are still on their way between ranks";
    }
    lines.push_back(line);
    return verdict(false, lines);
  }

  // Every unfinished rank is blocked. Ranks in collectives: every member
  // of a communicator must make the same collective calls in the same
  // order; name who is where.
  std::vector<int> elsewhere;
  for (int r : blocked) {
    if (nodes[static_cast<std::size_t>(r)].need != Need::collective) elsewhere.push_back(r);
  }
  if (!groups.empty()) {
    std::string line;
    for (const Group& g : groups) {
      line += (line.empty() ? "" : " while ") + rank_range(g.ranks) + (g.ranks.size() == 1 ? " is" : " are") + " in " +
              g.first->call;
      // Two calls that read alike differ in their number.
      const bool alike = std::count_if(groups.begin(), groups.end(),
                                       [&](const Group& o) { return o.first->call == g.first->call; }) > 1;
      if (alike) line += " (collective #" + std::to_string(g.first->seq) + " there)";
    }
    for (int r : elsewhere) {
      line += " while rank " + std::to_string(r) + " waits in " + nodes[static_cast<std::size_t>(r)].call;
    }
    lines.push_back(line);
  }
  // Each collective call that cannot end: the members that have not come
  // to it, and those that took that call as another operation.
  for (const Group& g : groups) {
    const Node& call = *g.first;
    const auto comm = comms.find(call.comm);
    const std::string where = comm_label(call.comm.context);
    const Standing s = standing_of(g, comms, nodes);
    for (const auto& [what, members] : s.entered) {
      const auto& [completed, kind, nonblocking] = what;
      const std::string number = "collective #" + std::to_string(call.seq) + " on " + where;
      const bool same = shm::same_collective(kind, call.op);
      std::string line = rank_range(members) + (completed ? " completed " : " started ") + number + " as " +
                         operation_label(kind, nonblocking);
      if (!completed) line += " and " + std::string(members.size() == 1 ? "has" : "have") + " not completed it";
      line += same ? ", which " + rank_range(g.ranks) + " still " + (g.ranks.size() == 1 ? "waits" : "wait") +
                         " in as " + call.function
                   : ", which " + rank_range(g.ranks) + " entered as " + call.function;
      lines.push_back(line);
    }
    if (!s.not_entered.empty()) {
      lines.push_back(rank_range(g.ranks) + (g.ranks.size() == 1 ? " waits" : " wait") + " in " + call.function +
                      ", collective #" + std::to_string(call.seq) + " on " +
                      comm_with_members(call.comm, comm == comms.end() ? nullptr : &comm->second) + ", for " +
                      rank_range(s.not_entered) + ", which " + (s.not_entered.size() == 1 ? "has" : "have") +
                      " not entered it");
    }
  }
  // Explain each point-to-point wait that cannot end.
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    // A message from the awaited peer sits unexpected with another tag.
    if (node.peer >= 0 && node.need == Need::receive && node.tag >= 0) {
      const auto& unexpected = ranks[static_cast<std::size_t>(r)]["queues"]["unexpected"];
      for (const auto& m : unexpected) {
        if (m.at("source").get<int>() == node.peer && m.at("tag").get<int>() != node.tag) {
          lines.push_back("rank " + std::to_string(r) + " waits for tag " + std::to_string(node.tag) + " from rank " +
                          std::to_string(node.peer) + ", but rank " + std::to_string(node.peer) +
                          "'s message has tag " + std::to_string(m.at("tag").get<int>()) + " and sits unexpected");
          break;
        }
      }
    }
    if (node.need == Need::everyone || node.need == Need::shmem || node.peer < 0) continue;
    const Node& peer = nodes[static_cast<std::size_t>(node.peer)];
    if (peer.kind == Node::Kind::blocked && peer.finalizing) {
      lines.push_back("rank " + std::to_string(r) + " waits in " + node.call + " but rank " +
                      std::to_string(node.peer) + " is in " + peer.function + ": that message was never " +
                      (node.need == Need::receive ? "sent" : "received"));
    }
    if (peer.kind == Node::Kind::finished) {
      lines.push_back("rank " + std::to_string(r) + " waits in " + node.call + " but rank " +
                      std::to_string(node.peer) + " has finished");
    }
  }
  // Cycles through specific peers, each reported once.
  std::set<std::set<int>> cycles;
  for (int start : elsewhere) {
    std::vector<int> path{start};
    int at = start;
    while (path.size() <= blocked.size()) {
      const Node& node = nodes[static_cast<std::size_t>(at)];
      if (node.kind != Node::Kind::blocked || node.need == Need::collective || node.need == Need::everyone ||
          node.peer < 0) {
        break;
      }
      const int next = node.peer;
      if (next == start) {
        if (cycles.insert(std::set<int>(path.begin(), path.end())).second) {
          std::string line;
          for (std::size_t i = 0; i < path.size(); ++i) {
            line += (i == 0 ? "" : " while ") + std::string("rank ") + std::to_string(path[i]) + " waits in " +
                    nodes[static_cast<std::size_t>(path[i])].call;
          }
          lines.push_back(line);
        }
        break;
      }
      path.push_back(next);
      at = next;
    }
  }
  // SHMEM: a word nobody can write, a lock whose holder cannot go on.
  bool all_watching = true;
  for (int r : blocked) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    all_watching = all_watching && node.need == Need::shmem && !node.shmem_lock;
  }
  if (all_watching && blocked.size() > 1) {
    lines.push_back("every unfinished rank waits in SHMEM for a word of its own to change: none of them can write "
                    "the others'");
  }
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.need != Need::shmem) continue;
    const std::string who = "rank " + std::to_string(r) + " waits in " + node.call;
    if (!node.shmem_lock) {
      if (!all_watching) {
        lines.push_back(who + ", and every other unfinished rank is blocked too: none of them can write it");
      }
      continue;
    }
    if (node.peer < 0) continue;
    const Node& holder = nodes[static_cast<std::size_t>(node.peer)];
    if (holder.kind == Node::Kind::finished) {
      lines.push_back(who + ", but rank " + std::to_string(node.peer) + " has finished without releasing it");
    } else if (holder.kind == Node::Kind::blocked && holder.peer != r) {
      lines.push_back(who + ": rank " + std::to_string(node.peer) + " holds it and waits in " + holder.call);
    }
  }
  // MPF conversations: whom each wait depends on, and what they do.
  bool all_receiving = true;
  for (int r : blocked) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    all_receiving = all_receiving && node.need == Need::conversation && node.conversation_wait == "message";
  }
  if (all_receiving && blocked.size() > 1) {
    lines.push_back("every unfinished rank waits in mpf_receive: none of them can send");
  }
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.need == Need::conversation) lines.push_back(explain_conversation_wait(conversations, node, nodes));
  }
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.need == Need::receive && node.peer < 0) {
      lines.push_back("rank " + std::to_string(r) + " waits in " + node.call +
                      " for a message from any rank, while every other unfinished rank is blocked too");
    }
  }
  if (lines.empty()) {
    std::string line = "every unfinished rank is blocked: ";
    for (std::size_t i = 0; i < blocked.size(); ++i) {
      line += (i == 0 ? "" : "; ") + std::string("rank ") + std::to_string(blocked[i]) + " in " +
              nodes[static_cast<std::size_t>(blocked[i])].call;
    }
    lines.push_back(line);
  }
  return verdict(true, lines);
}

}  // namespace mpf::inspect
