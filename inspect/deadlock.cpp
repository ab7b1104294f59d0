#include "inspect/deadlock.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/number_ranges.hpp"

namespace mpf::inspect {
namespace {

// What a rank is doing, for the analysis.
struct Node {
  enum class Kind { running, finished, blocked } kind = Kind::running;
  std::string call;           // "MPI_Recv(source 1, tag 7)"
  std::string function;
  int peer = -1;              // -1: any
  int tag = -1;
  bool collective = false;
  int context = 0;
  int root = -1;              // collectives with a root
  std::vector<int> waits_for;  // ranks whose action would release it
};

bool is_collective(const std::string& f) {
  static const std::set<std::string> names{
      "MPI_Barrier",   "MPI_Bcast",     "MPI_Reduce",        "MPI_Allreduce", "MPI_Reduce_scatter",
      "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",  "MPI_Gather",    "MPI_Gatherv",
      "MPI_Scatter",   "MPI_Scatterv",  "MPI_Allgather",     "MPI_Allgatherv", "MPI_Alltoall",
      "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Comm_dup",      "MPI_Comm_split", "MPI_Comm_create",
      "MPI_Comm_create_group"};
  return names.contains(f);
}

std::string comm_label(int context) {
  if (context == 0) return "MPI_COMM_WORLD";
  if (context == 1) return "MPI_COMM_SELF";
  return "the communicator with context " + std::to_string(context);
}

// "MPI_Bcast(root 0) on MPI_COMM_WORLD": what every rank in the same
// collective call shows alike.
std::string describe_collective(const Node& n) {
  return n.function + (n.root >= 0 ? "(root " + std::to_string(n.root) + ")" : "") + " on " + comm_label(n.context);
}

bool is_receive(const std::string& f) {
  return f == "MPI_Recv" || f == "MPI_Probe" || f == "MPI_Mprobe" || f == "MPI_Sendrecv" || f == "MPI_Wait" ||
         f == "MPI_Waitall" || f == "MPI_Waitany" || f == "MPI_Waitsome";
}

std::string describe_call(const std::string& function, int peer, int tag) {
  if (function == "MPI_Finalize") return function;
  const bool recv = is_receive(function);
  std::string text = function + "(" + (recv ? "source " : "destination ") + (peer < 0 ? "any" : std::to_string(peer));
  text += ", tag " + (tag < 0 ? std::string("any") : std::to_string(tag)) + ")";
  return text;
}

// The ranks of `blocked` in collectives, grouped by call (same call,
// communicator and root), groups in the order of their lowest rank.
std::vector<std::pair<std::string, std::vector<int>>> collective_groups(const std::vector<Node>& nodes,
                                                                        const std::vector<int>& blocked) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int r : blocked) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (!node.collective) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == node.call; });
    if (it == groups.end()) {
      groups.emplace_back(node.call, std::vector<int>{r});
    } else {
      it->second.push_back(r);
    }
  }
  return groups;
}

std::string rank_range(const std::vector<int>& ranks) {
  return (ranks.size() == 1 ? "rank " : "ranks ") + common::number_ranges(ranks);
}

}  // namespace

nlohmann::json analyse_deadlock(const nlohmann::json& job) {
  const auto& ranks = job.at("ranks");
  const int n = static_cast<int>(ranks.size());
  std::vector<Node> nodes(static_cast<std::size_t>(n));
  std::vector<int> running, finished;
  bool in_flight = false;  // packets not yet taken: someone will still make progress

  for (int r = 0; r < n; ++r) {
    const auto& rank = ranks[static_cast<std::size_t>(r)];
    Node& node = nodes[static_cast<std::size_t>(r)];
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
    const auto& b = rank["blocked_in"];
    node.kind = Node::Kind::blocked;
    node.function = b.at("function");
    node.peer = b.at("peer");
    node.tag = b.at("tag");
    node.context = b.at("context");
    node.root = b.value("root", -1);
    node.collective = is_collective(node.function);
    node.call = node.collective ? describe_collective(node) : describe_call(node.function, node.peer, node.tag);
    if (node.collective) {
      // Filled below, once every rank's call is known.
    } else if (node.function == "MPI_Finalize" || node.peer < 0) {
      for (int other = 0; other < n; ++other) {
        if (other != r) node.waits_for.push_back(other);
      }
    } else {
      node.waits_for.push_back(node.peer);
    }
  }

  // A rank in a collective waits for the ranks that are not in the same
  // collective call (same call, communicator and root): until they arrive,
  // it cannot finish.
  for (int r = 0; r < n; ++r) {
    Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.kind != Node::Kind::blocked || !node.collective) continue;
    for (int other = 0; other < n; ++other) {
      const Node& o = nodes[static_cast<std::size_t>(other)];
      if (other != r && (o.kind != Node::Kind::blocked || o.call != node.call)) node.waits_for.push_back(other);
    }
  }

  nlohmann::json waits = nlohmann::json::object();
  for (int r = 0; r < n; ++r) {
    if (nodes[static_cast<std::size_t>(r)].kind == Node::Kind::blocked) {
      waits[std::to_string(r)] = nodes[static_cast<std::size_t>(r)].waits_for;
    }
  }
  std::vector<std::string> lines;

  // Not deadlocked: someone is still running user code, or packets are on
  // their way (a blocked rank takes them as it waits).
  std::vector<int> blocked;
  for (int r = 0; r < n; ++r) {
    if (nodes[static_cast<std::size_t>(r)].kind == Node::Kind::blocked) blocked.push_back(r);
  }
  if (blocked.empty()) {
    lines.push_back("no rank is blocked in a communication call");
    return {{"deadlocked", false}, {"explanation", lines}, {"waits_for", waits}};
  }
  if (!running.empty() || in_flight) {
    std::string line;
    if (!running.empty()) {
      line = rank_range(running) + (running.size() == 1 ? " is" : " are") + " computing";
      // The blocked ranks that wait for one of them, and on what.
      int shown = 0;
      for (const auto& [call, members] : collective_groups(nodes, blocked)) {
        line += "; " + rank_range(members) + (members.size() == 1 ? " waits" : " wait") + " for " +
                (running.size() == 1 ? "it" : "them") + " in " + call;
      }
      for (int r : blocked) {
        const Node& node = nodes[static_cast<std::size_t>(r)];
        if (node.collective) continue;
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
    return {{"deadlocked", false}, {"explanation", lines}, {"waits_for", waits}};
  }

  // Every unfinished rank is blocked. Ranks in collectives: every rank of
  // a communicator must make the same collective call; name who is where.
  const auto in_collective = collective_groups(nodes, blocked);
  std::vector<int> elsewhere;
  for (int r : blocked) {
    if (!nodes[static_cast<std::size_t>(r)].collective) elsewhere.push_back(r);
  }
  if (!in_collective.empty()) {
    std::string line;
    for (const auto& [call, members] : in_collective) {
      line += (line.empty() ? "" : " while ") + rank_range(members) + (members.size() == 1 ? " is" : " are") +
              " in " + call;
    }
    for (int r : elsewhere) {
      line += " while rank " + std::to_string(r) + " waits in " + nodes[static_cast<std::size_t>(r)].call;
    }
    lines.push_back(line);
  }
  // Explain each point-to-point wait that cannot end.
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    // A message from the awaited peer sits unexpected with another tag.
    if (node.peer >= 0 && is_receive(node.function) && node.tag >= 0) {
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
    if (node.peer >= 0 && nodes[static_cast<std::size_t>(node.peer)].function == "MPI_Finalize") {
      lines.push_back("rank " + std::to_string(r) + " waits in " + node.call + " but rank " +
                      std::to_string(node.peer) + " is in MPI_Finalize: that message was never sent");
    }
    if (node.peer >= 0 && nodes[static_cast<std::size_t>(node.peer)].kind == Node::Kind::finished) {
      lines.push_back("rank " + std::to_string(r) + " waits in " + node.call + " but rank " + std::to_string(node.peer) +
                      " has finished");
    }
  }
  // Cycles through specific peers, each reported once.
  std::set<std::set<int>> cycles;
  for (int start : elsewhere) {
    std::vector<int> path{start};
    int at = start;
    while (path.size() <= blocked.size()) {
      const Node& node = nodes[static_cast<std::size_t>(at)];
      if (node.kind != Node::Kind::blocked || node.collective || node.peer < 0 || node.function == "MPI_Finalize") break;
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
  for (int r : elsewhere) {
    const Node& node = nodes[static_cast<std::size_t>(r)];
    if (node.peer < 0 && node.function != "MPI_Finalize") {
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
  return {{"deadlocked", true}, {"explanation", lines}, {"waits_for", waits}};
}

}  // namespace mpf::inspect
