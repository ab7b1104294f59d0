// What every collective algorithm needs: the channel, the tree radix, and
// the blocked-call record mpfinspect shows while a rank waits in one.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/channel.hpp"
#include "core/runtime.hpp"
#include "mpi/comm.hpp"

namespace mpf::mpi::coll {

inline mpf::coll::Channel& channel() { return core::Runtime::instance().channel(); }

inline int radix() {
  return static_cast<int>(core::Runtime::instance().tunables().integer(common::Tunable::coll_radix));
}

inline progress::BlockedCall blocked(const Communicator& c, const char* call, int root = -1) {
  return {call, -1, -1, c.context, root < 0 ? -1 : static_cast<std::int32_t>(c.world[static_cast<std::size_t>(root)])};
}

// The call record while waiting for comm rank `peer`.
inline progress::BlockedCall waiting_for(progress::BlockedCall b, const Communicator& c, int peer) {
  b.peer = static_cast<std::int32_t>(c.world[static_cast<std::size_t>(peer)]);
  return b;
}

inline std::uint32_t world_of(const Communicator& c, int rank) { return c.world[static_cast<std::size_t>(rank)]; }

inline std::vector<std::uint32_t> worlds_of(const Communicator& c, const std::vector<int>& ranks) {
  std::vector<std::uint32_t> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(world_of(c, r));
  return out;
}

}  // namespace mpf::mpi::coll
