// Communicators: the table behind MPI_Comm handles, how a communicator's
// ranks map onto world ranks, and its matching context. MPI_COMM_WORLD and
// MPI_COMM_SELF are its first two entries; MPI_Comm_dup, _split, _create and
// friends (comm.cpp) add more. The point-to-point path asks only the inline
// functions below: a table lookup and a vector index.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coll/channel.hpp"
#include "coll/plan.hpp"
#include "core/context_ids.hpp"
#include "mpi/attributes.hpp"
#include "mpi/topology.hpp"
#include "progress/wait_record.hpp"

namespace mpf::mpi {

struct Communicator {
  // Cache line 0: what every call on it reads or counts (a collective's
  // data path touches no other line of it but its plan's).
  std::vector<std::uint32_t> world;  // comm rank -> world rank
  int rank = 0;
  std::uint32_t context = 0;         // matching context and collective key
  std::uint32_t coll_seq = 0;        // collectives run on this communicator
  // With `context`, names the communicator in introspection: its first
  // collective count (agreed by its members), so a reused context id is
  // told apart from the communicator that had it before.
  std::uint32_t epoch = 0;
  // The innermost collective call in progress (CollectiveScope; a closing
  // scope restores the outer): its number, operation and start, and
  // whether it is still open (not ended, nor passed to its request).
  // Mutable, as collectives take the communicator const.
  mutable std::uint32_t current_seq = 0;
  mutable progress::CollKind current_kind = progress::CollKind::none;
  mutable bool current_nonblocking = false;
  mutable bool current_open = false;
  // An intercommunicator (MPI 3.1 §6.6): `world` and `rank` are the local
  // group, and point-to-point and collectives address the remote group.
  // Both groups share `context`. `low_group`: this side's group comes first
  // in the order both sides agree on (context agreements, MPI_Intercomm_merge).
  bool inter = false;
  // This rank's collective calls on it as introspection shows them; its
  // counters come first, in this line.
  mutable progress::CollectiveTrack calls;
  // Cache line 1 and on.
  // The algorithm each collective call on it takes, built with it
  // (coll/plan.hpp): a collective reads it once per call.
  mpf::coll::Plan plan;
  std::vector<std::int32_t> rank_of; // world rank -> comm rank, -1 if not a member
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  AttributeSet attributes;
  Topology topology;                 // MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create...
  std::uint32_t exchange_seq = 0;    // point-to-point collectives run on it (block_exchange.hpp: their tags)
  MPI_Info info = 0;                 // hints (MPI_Comm_set_info), MPI_INFO_NULL when none
  bool freed = false;                // MPI_Comm_free'd, kept for the requests still using it
  bool low_group = false;
  std::vector<std::uint32_t> remote;         // remote rank -> world rank
  std::vector<std::int32_t> remote_rank_of;  // world rank -> remote rank, -1 if not in the remote group

  // The collective call in progress, as waits and requests name it.
  progress::Collective current() const {
    return {context, epoch, current_seq, current_kind, current_nonblocking, &calls};
  }

  int size() const { return static_cast<int>(world.size()); }
  // The ranks point-to-point names: the remote group of an intercommunicator.
  int peer_count() const { return static_cast<int>(inter ? remote.size() : world.size()); }
  const std::vector<std::uint32_t>& peers() const { return inter ? remote : world; }
  // Both groups of an intercommunicator in their agreed order (the local
  // group alone for an intracommunicator), and this rank's place in it.
  std::vector<std::uint32_t> members() const;
  std::size_t member_index() const {
    const auto me = static_cast<std::size_t>(rank);
    return inter && !low_group ? remote.size() + me : me;
  }
  std::uint32_t members_count() const {
    return static_cast<std::uint32_t>(inter ? world.size() + remote.size() : world.size());
  }
  // The key of the next collective on this communicator (every member runs
  // the same collectives in the same order, so they agree on it).
  coll::Key next_collective(std::uint32_t kind, int root) {
    return {context, ++coll_seq, kind, static_cast<std::int32_t>(root)};
  }
};

// One collective call of the program on `c`, counted in this rank's
// introspection (its CommRecord of `c`) and named by the waits of the
// call's algorithms (collective_wait()). Open it where the call starts,
// before the first wait: a blocking call ends with the scope, a
// nonblocking one when its request's operation completes (launch() takes
// it over). Scopes nest: an MPI call made of another (MPI_Cart_create's
// MPI_Comm_split) counts as both, the inner one inside the outer.
class CollectiveScope {
 public:
  CollectiveScope(const Communicator& c, progress::CollKind kind, bool nonblocking)
      : comm_(c),
        outer_seq_(c.current_seq),
        outer_kind_(c.current_kind),
        outer_nonblocking_(c.current_nonblocking),
        outer_open_(c.current_open) {
    c.current_seq = progress::CollectiveLog::started(c.calls, kind, nonblocking);
    c.current_kind = kind;
    c.current_nonblocking = nonblocking;
    c.current_open = true;
  }
  ~CollectiveScope() {
    if (comm_.current_open) progress::CollectiveLog::completed(comm_.calls);
    comm_.current_seq = outer_seq_;
    comm_.current_kind = outer_kind_;
    comm_.current_nonblocking = outer_nonblocking_;
    comm_.current_open = outer_open_;
  }
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;

 private:
  const Communicator& comm_;
  std::uint32_t outer_seq_;
  progress::CollKind outer_kind_;
  bool outer_nonblocking_;
  bool outer_open_;
};
// Shows a new communicator in this rank's introspection, before its first
// collective: the inspector learns its members from the ranks that show it.
void show_communicator(const Communicator& c);
// Counts a collective call on `c` as completed (the request a nonblocking
// call handed its end to).
inline void end_collective(const Communicator& c) { progress::CollectiveLog::completed(c.calls); }
// The wait of a collective's algorithm on `c` (root a rank of `c`, -1 for
// none), shown as `call`: the call open on `c` (CollectiveScope).
inline progress::BlockedCall collective_wait(const Communicator& c, int root, const char* call) {
  const std::int32_t world = root < 0 || static_cast<std::size_t>(root) >= c.world.size()
                                 ? -1
                                 : static_cast<std::int32_t>(c.world[static_cast<std::size_t>(root)]);
  return progress::BlockedCall::collective(progress::WaitApi::mpi, c.current(), world, call);
}
// The wait of a point-to-point operation with world rank `world`.
inline progress::BlockedCall p2p_wait(bool is_send, std::int32_t world, std::int32_t tag, std::uint32_t context,
                                      const char* call) {
  return is_send ? progress::BlockedCall::send(progress::WaitApi::mpi, world, tag, context, call)
                 : progress::BlockedCall::receive(progress::WaitApi::mpi, world, tag, context, call);
}

// The table: index = handle; handles are never reused. A communicator the
// program frees stays (marked freed) while requests use it: MPI lets
// pending operations complete on it (MPI-3.1 §6.4.3). Then its entry goes
// null and its context id may serve another (release_freed_comm).
// Constant-initialised (empty), so the data path reads it without a guard.
extern std::vector<std::shared_ptr<Communicator>> g_comms;
inline std::vector<std::shared_ptr<Communicator>>& comm_table() { return g_comms; }

// The communicator behind a handle, freed or not (for operations in flight).
inline Communicator* any_comm(MPI_Comm comm) {
  auto& table = comm_table();
  return comm > 0 && static_cast<std::size_t>(comm) < table.size() ? table[static_cast<std::size_t>(comm)].get()
                                                                    : nullptr;
}
// The communicator behind a handle the program may pass to a call.
inline Communicator* find_comm(MPI_Comm comm) {
  Communicator* c = any_comm(comm);
  return c != nullptr && !c->freed ? c : nullptr;
}
inline bool comm_is_valid(MPI_Comm comm) { return find_comm(comm) != nullptr; }
// Called when a request on `comm` is released: a freed communicator goes
// when no request uses it any more.
void release_freed_comm(MPI_Comm comm);
// Shared ownership of a valid communicator (kept by operations in flight).
inline std::shared_ptr<Communicator> share_comm(MPI_Comm comm) { return comm_table()[static_cast<std::size_t>(comm)]; }
// For valid handles only.
inline Communicator& comm_of(MPI_Comm comm) { return *comm_table()[static_cast<std::size_t>(comm)]; }

std::string describe_bad_comm(MPI_Comm comm);

inline int comm_size(MPI_Comm comm) { return comm_of(comm).size(); }
inline int comm_rank(MPI_Comm comm) { return comm_of(comm).rank; }

// The engine's matching context of each communicator: point-to-point on one
// communicator never matches another's.
inline std::uint32_t comm_context(MPI_Comm comm) { return comm_of(comm).context; }

// A rank of `comm` (or MPI_ANY_SOURCE) as a world rank, and back.
// On an intercommunicator these are ranks of the remote group.
inline std::int32_t to_world(MPI_Comm comm, int rank) {
  if (rank == MPI_ANY_SOURCE) return -1;
  return static_cast<std::int32_t>(comm_of(comm).peers()[static_cast<std::size_t>(rank)]);
}
inline int from_world(MPI_Comm comm, std::int32_t world) {
  const Communicator* c = any_comm(comm);
  const std::vector<std::int32_t>* ranks = c == nullptr ? nullptr : c->inter ? &c->remote_rank_of : &c->rank_of;
  if (ranks == nullptr || world < 0 || static_cast<std::size_t>(world) >= ranks->size()) return world;
  return (*ranks)[static_cast<std::size_t>(world)];
}

// The context of a communicator whose id is not agreed yet (MPI_Comm_idup).
inline constexpr std::uint32_t kNoContext = 0xffffffffu;

// Creates MPI_COMM_WORLD and MPI_COMM_SELF (MPI_Init).
void init_communicators(std::uint32_t world_rank, std::uint32_t world_size);
// Adds a communicator over `world` ranks (this rank among them) with an
// agreed context id and the agreed count its collectives start after;
// returns its handle.
MPI_Comm add_communicator(std::vector<std::uint32_t> world, std::uint32_t context, std::uint32_t first_seq = 0);
// Agrees on the context of a communicator made from `parent` (blocking),
// among all its members (both groups of an intercommunicator). The
// agreement is not a collective on the parent's slots: it does not wait
// for the nonblocking collectives this rank started before.
core::NewContext agree_context(Communicator& parent, const char* call);
// The error when no context id is free at every member.
int out_of_contexts(const char* call, MPI_Comm comm);
// Makes communicator `comm` an intercommunicator whose remote group is
// `remote` (world ranks, disjoint from its own group).
void make_inter(Communicator& comm, std::vector<std::uint32_t> remote, bool low_group);

}  // namespace mpf::mpi
