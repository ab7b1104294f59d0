// What every collective algorithm needs: the channel, the tree radix, the
// waits they co_await, and how a blocking call drives its task.
#pragma once

#include <cstdint>
#include <vector>

#include "coll/channel.hpp"
#include "coll/task.hpp"
#include "core/runtime.hpp"
#include "mpi/coll/pending.hpp"
#include "mpi/comm.hpp"

namespace mpf::mpi::coll {

inline mpf::coll::Channel& channel() { return core::Runtime::instance().channel(); }

inline int radix() {
  return static_cast<int>(core::Runtime::instance().tunables().integer(common::Tunable::coll_radix));
}

// co_await slot_free(): this rank's slot may be written (its last step taken).
inline auto slot_free() {
  return mpf::coll::until(-1, [] { return channel().drained(); });
}

inline std::uint32_t world_of(const Communicator& c, int rank) { return c.world[static_cast<std::size_t>(rank)]; }

inline std::vector<std::uint32_t> worlds_of(const Communicator& c, const std::vector<int>& ranks) {
  std::vector<std::uint32_t> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(world_of(c, r));
  return out;
}

// A blocking collective: drives `task` to its end, shown to mpfinspect as
// `call` on `c` (with its root, if any) while it waits, after the
// nonblocking collectives this rank started before it (pending.hpp).
inline void run(mpf::coll::Task task, const Communicator& c, const char* call, int root) {
  finish_pending(call, static_cast<std::int32_t>(c.context));
  const progress::BlockedCall blocked{call, -1, -1, c.context,
                                      root < 0 ? -1 : static_cast<std::int32_t>(world_of(c, root))};
  task.run(core::Runtime::instance().engine(), blocked);
}

}  // namespace mpf::mpi::coll
