// The space of matching contexts, shared by every API on the runtime.
//
// A message matches a receive only within one context (32 bits). Ids
// below kContextIds are drawn from one allocator (context_ids.hpp) by
// every group that communicates: MPI communicators, and the SHMEM teams
// to come, so no two groups a rank belongs to ever share one (MPF
// conversations are queues in the segment, not messages, and need none).
// The runtime's own messages run in contexts derived from a group's id by
// setting one of the bits below, which no allocated id has, so they never
// match a program's messages nor one another's.
#pragma once

#include <cstdint>

namespace mpf::core {

// Ids a group can be given: below every derived bit.
inline constexpr std::uint32_t kContextIds = 4096;

// The ids of the groups every process has from the start, whichever API
// starts first: never handed out by the agreement, so that an API that
// starts late still finds its own.
inline constexpr std::uint32_t kMpiWorldContext = 0;     // MPI_COMM_WORLD
inline constexpr std::uint32_t kMpiSelfContext = 1;      // MPI_COMM_SELF
inline constexpr std::uint32_t kShmemWorldContext = 2;   // SHMEM_TEAM_WORLD
inline constexpr std::uint32_t kShmemSharedContext = 3;  // SHMEM_TEAM_SHARED
inline constexpr std::uint32_t kReservedContexts = 4;

// Operations a window member's engine applies for origins that cannot
// reach its memory, and its answers: the window's id | kRmaContextBit.
inline constexpr std::uint32_t kRmaContextBit = 0x04000000u;
// Collectives of a group across nodes, as point-to-point messages
// (coll/algorithms/messages.cpp): id | kCollMessagesContextBit.
inline constexpr std::uint32_t kCollMessagesContextBit = 0x02000000u;
// A group's leaders exchanging what its members need to build an
// intercommunicator (MPI_Intercomm_create): id | kLeaderContextBit.
inline constexpr std::uint32_t kLeaderContextBit = 0x08000000u;
// Keys every member of a new group derives alike for the agreement on its
// context, when the group has no parent to name it by (MPI_Intercomm_create).
inline constexpr std::uint32_t kCreateAgreementKey = 0x10000000u;
// Block exchanges among a group's members (neighbourhood and
// intercommunicator collectives): id | kExchangeContextBit.
inline constexpr std::uint32_t kExchangeContextBit = 0x20000000u;
// The agreement on a new group's context, over its parent's:
// parent ^ kAgreementContextBit.
inline constexpr std::uint32_t kAgreementContextBit = 0x40000000u;
// Keys of groups made without their parent's whole membership
// (MPI_Comm_create_group): kGroupKeyBit | a hash of the members and tag.
inline constexpr std::uint32_t kGroupKeyBit = 0x80000000u;

static_assert(kContextIds <= kCollMessagesContextBit, "group ids must stay below every derived bit");

}  // namespace mpf::core
