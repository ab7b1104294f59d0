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

#include "coll/group.hpp"
#include "core/context_ids.hpp"
#include "mpi/attributes.hpp"
#include "mpi/topology.hpp"
#include "progress/wait_record.hpp"

namespace mpf::mpi {

// An MPI communicator: a collective group (coll/group.hpp: its members,
// context, plan and introspection, in its first cache lines) and what MPI
// adds to it.
struct Communicator : mpf::coll::Group {
  // An intercommunicator (MPI 3.1 §6.6): `world` and `rank` are the local
  // group, and point-to-point and collectives address the remote group.
  // Both groups share `context`. `low_group`: this side's group comes first
  // in the order both sides agree on (context agreements, MPI_Intercomm_merge).
  bool inter = false;
  std::vector<std::int32_t> rank_of; // world rank -> comm rank, -1 if not a member
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  AttributeSet attributes;
  Topology topology;                 // MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create...
  std::uint32_t exchange_seq = 0;    // point-to-point collectives run on it (block_exchange.hpp: their tags)
  MPI_Info info = 0;                 // hints (MPI_Comm_set_info), MPI_INFO_NULL when none
  bool freed = false;                // MPI_Comm_free'd, kept for the requests still using it
  bool low_group = false;
  std::vector<std::uint32_t> remote;         // remote rank -> world rank
  std::vector<std::int32_t> remote_rank_of;  // world rank -> remote rank, -1 if not in the remote group

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
};

// The collective call scopes and waits are the group's (coll/group.hpp).
using mpf::coll::collective_wait;
using mpf::coll::CollectiveScope;
using mpf::coll::end_collective;

// Shows a new communicator in this rank's introspection, before its first
// collective: the inspector learns its members from the ranks that show it.
void show_communicator(const Communicator& c);
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
