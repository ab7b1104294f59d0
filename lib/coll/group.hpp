// A group of ranks that runs collectives together, whatever the API: an
// MPI communicator is one (mpi::Communicator extends it), and so will a
// SHMEM team be. The collective algorithms (coll/algorithms.hpp) take a
// Group: its members as world ranks, this rank's place among them, the
// context its collective keys carry, its plan, and what introspection shows
// of the call in progress.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "coll/channel.hpp"
#include "coll/plan.hpp"
#include "progress/wait_record.hpp"

namespace mpf::coll {

// A group's members by node, for the collectives that run node by node
// (hierarchical.cpp). Nodes are numbered in the order of their first
// member.
struct NodeLayout {
  std::vector<std::uint32_t> node_of;  // group rank -> its node's number
  std::vector<int> first;              // node number -> its lowest member
  std::vector<int> mine;               // this rank's node's members, in rank order
};

struct Group {
  // Cache line 0: what every call on it reads or counts (a collective's
  // data path touches no other line of it but its plan's).
  std::vector<std::uint32_t> world;  // group rank -> world rank
  int rank = 0;
  std::uint32_t context = 0;   // the core's context id (core/context_ids.hpp): matching and collective keys
  std::uint32_t coll_seq = 0;  // collectives run on this group
  // With `context`, names the group in introspection: its first collective
  // count (agreed by its members), so a reused context id is told apart
  // from the group that had it before.
  std::uint32_t epoch = 0;
  // The innermost collective call in progress (CollectiveScope; a closing
  // scope restores the outer): its number, operation and start, and
  // whether it is still open (not ended, nor passed to its request).
  // Mutable, as collectives take the group const.
  mutable std::uint32_t current_seq = 0;
  mutable progress::CollKind current_kind = progress::CollKind::none;
  mutable bool current_nonblocking = false;
  mutable bool current_open = false;
  // The API whose calls its waits show (an MPI communicator, a SHMEM team).
  progress::WaitApi api = progress::WaitApi::mpi;
  // This rank's collective calls on it as introspection shows them; its
  // counters come first, in this line.
  mutable progress::CollectiveTrack calls;
  // Cache line 1 and on.
  // The algorithm each collective call on it takes, built with it
  // (coll/plan.hpp): a collective reads it once per call.
  Plan plan;
  // What messages call it ("MPI_COMM_WORLD"; MPI_Comm_set_name renames it).
  std::string name;
  // A group across nodes: its members by node, made by its first
  // collective that needs them (coll::node_layout()).
  mutable std::optional<NodeLayout> nodes;

  int size() const { return static_cast<int>(world.size()); }
  std::uint32_t world_of(int r) const { return world[static_cast<std::size_t>(r)]; }

  // The collective call in progress, as waits and requests name it.
  progress::Collective current() const {
    return {context, epoch, current_seq, current_kind, current_nonblocking, &calls};
  }
  // The key of the next collective on this group (every member runs the
  // same collectives in the same order, so they agree on it).
  Key next_collective(std::uint32_t kind, int root) {
    return {context, ++coll_seq, kind, static_cast<std::int32_t>(root)};
  }
};

// One collective call of the program on `g`, counted in this rank's
// introspection (its CommRecord of `g`) and named by the waits of the
// call's algorithms (collective_wait()). Open it where the call starts,
// before the first wait: a blocking call ends with the scope, a
// nonblocking one when its request's operation completes (the API's
// launch takes it over). Scopes nest: a call made of another (MPI_Cart_create's
// MPI_Comm_split) counts as both, the inner one inside the outer.
class CollectiveScope {
 public:
  CollectiveScope(const Group& g, progress::CollKind kind, bool nonblocking)
      : group_(g),
        outer_seq_(g.current_seq),
        outer_kind_(g.current_kind),
        outer_nonblocking_(g.current_nonblocking),
        outer_open_(g.current_open) {
    g.current_seq = progress::CollectiveLog::started(g.calls, kind, nonblocking);
    g.current_kind = kind;
    g.current_nonblocking = nonblocking;
    g.current_open = true;
  }
  ~CollectiveScope() {
    if (group_.current_open) progress::CollectiveLog::completed(group_.calls);
    group_.current_seq = outer_seq_;
    group_.current_kind = outer_kind_;
    group_.current_nonblocking = outer_nonblocking_;
    group_.current_open = outer_open_;
  }
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;

 private:
  const Group& group_;
  std::uint32_t outer_seq_;
  progress::CollKind outer_kind_;
  bool outer_nonblocking_;
  bool outer_open_;
};

// Counts a collective call on `g` as completed (the request a nonblocking
// call handed its end to).
inline void end_collective(const Group& g) { progress::CollectiveLog::completed(g.calls); }

// The wait of a collective's algorithm on `g` (root a rank of `g`, -1 for
// none), shown as `call`: the call open on `g` (CollectiveScope).
inline progress::BlockedCall collective_wait(const Group& g, int root, const char* call) {
  const std::int32_t world =
      root < 0 || static_cast<std::size_t>(root) >= g.world.size() ? -1 : static_cast<std::int32_t>(g.world_of(root));
  return progress::BlockedCall::collective(g.api, g.current(), world, call);
}

}  // namespace mpf::coll
