// Context ids of groups (MPI communicators, SHMEM teams;
// context_space.hpp): which this rank uses, and how
// the members of a new group agree on one (context_ids.cpp).
//
// The members offer the ids they have free, a bitwise AND over them leaves
// those free everywhere, and all take the lowest (MPICH's free-mask
// method, without a global lock). A round offers a window of 256 ids, so
// that an offer fits in one ring packet; a round that finds none free
// everywhere tries the next window. Members of disjoint new communicators
// (MPI_Comm_split) may share an id: no rank ever holds two communicators
// with the same one.
//
// The agreement runs over point-to-point messages of its own (a binomial
// tree up and down), not over the collective slots, so it never waits for
// collectives this rank started before it: MPI lets a nonblocking
// MPI_Comm_idup be overtaken by a MPI_Comm_create_group on other ranks,
// and two idups on overlapping communicators start in any order. Several
// agreements may then be in flight at a rank; the one whose parent has the
// lowest (context, count) offers this rank's free ids and the others offer
// none and try again, so two never take the same id, and the lowest in the
// whole job always gets through.
//
// An id comes back into use after MPI_Comm_free, but the collectives of the
// communicator that had it may have left their last steps in the members'
// slots, cells and board entries, keyed (context, collective count). So a
// new communicator's collective count starts past the count of every
// communicator any of its members has freed (a MAX, agreed with the id),
// and no key is ever used twice.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/group.hpp"
#include "coll/task.hpp"
#include "core/context_space.hpp"

namespace mpf::core {

// What a new communicator's members agree on.
struct NewContext {
  std::uint32_t context = 0;
  std::uint32_t first_seq = 0;  // its collectives' count starts after this
  bool agreed = false;          // false: no id is free at every member
};

// Agrees among `members` (world ranks; this rank is members[me]) on a
// context id and a first collective count (*made). `parent_context` and
// `parent_seq` name the agreement: the parent's context (or a key every
// member derives alike) and its count of collectives, the same at every
// member; `blocking`: the rank waits in it (not MPI_Comm_idup). The caller
// claims the id (claim_context) as soon as the task ends, before anything
// else runs.
mpf::coll::Task agree_context_task(std::vector<std::uint32_t> members, std::size_t me, std::uint32_t parent_context,
                                   std::uint32_t parent_seq, bool blocking, NewContext* made);

// The blocking agreement over `parent` (keyed by its next collective):
// among `members` (world ranks; this rank is members[me]: the parent's,
// or both groups of an intercommunicator), shown to mpfinspect as `call`
// on the parent. The caller claims the id it returns.
NewContext agree_context(coll::Group& parent, std::vector<std::uint32_t> members, std::size_t me, const char* call);

// This rank holds a communicator with `context`.
void claim_context(std::uint32_t context);
// It no longer does; its collectives had counted up to `last_seq`.
void release_context(std::uint32_t context, std::uint32_t last_seq);
// The runtime's start: every id free but the reserved ones
// (context_space.hpp), no count to start past.
void reset_contexts();

}  // namespace mpf::core
