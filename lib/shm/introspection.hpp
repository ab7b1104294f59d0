// What a rank tells the world about itself while it runs (SPEC §2
// Introspection): the call it is blocked in and its matching queues, in a
// seqlock that mpfinspect reads from another process without stopping the
// rank. The counters live next to it in RankControl; ring occupancy is read
// from the rings themselves.
//
// The rank publishes the blocked call once a wait has lasted a little while
// (not on the fast path of a wait that completes at once) and its queues
// when it goes to sleep, so a hung job always shows both.
#pragma once

#include <cstdint>

#include "common/seqlock.hpp"

namespace mpf::shm {

inline constexpr std::uint32_t kListedEntries = 16;

// One posted receive or unexpected message.
struct QueueEntry {
  std::int32_t source;   // world rank, -1 for any
  std::int32_t tag;      // -1 for any
  std::uint32_t context;
  std::uint32_t protocol;  // PacketKind of an unexpected message; 0 for a posted receive
  std::uint64_t bytes;     // message size, or receive capacity
  std::int64_t since_ns;   // CLOCK_MONOTONIC (system-wide) when it was posted or arrived
};

struct RankSnapshot {
  // The blocked-in call; function[0] == 0 when running user code.
  char function[32];
  std::int32_t peer;  // world rank, -1 for any
  std::int32_t tag;
  std::uint32_t context;
  std::int32_t root;  // a collective's root (world rank), -1 when it has none
  std::int64_t blocked_since_ns;
  // Queues, as of published_ns.
  std::int64_t published_ns;
  std::uint32_t posted_total;
  std::uint32_t unexpected_total;
  std::uint64_t unexpected_bytes;  // pool bytes in use
  std::uint32_t backlog_total;     // sends and replies waiting for ring space
  std::uint32_t posted_listed;     // entries filled below (at most kListedEntries)
  std::uint32_t unexpected_listed;
  std::uint32_t reserved2;
  QueueEntry posted[kListedEntries];
  QueueEntry unexpected[kListedEntries];
};

struct alignas(64) Introspection {
  common::Seqlock<RankSnapshot> snapshot;
};

}  // namespace mpf::shm
