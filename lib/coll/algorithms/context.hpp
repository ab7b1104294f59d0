// What every collective algorithm needs: the channel, the cells and the
// board, the waits they co_await, and how a blocking call drives its task.
// Which algorithm a call takes is its group's plan's choice
// (Group::plan, coll/plan.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "coll/channel.hpp"
#include "coll/combine.hpp"
#include "coll/group.hpp"
#include "coll/pending.hpp"
#include "coll/task.hpp"
#include "core/runtime.hpp"

namespace mpf::coll {

// An algorithm the plan cannot choose for `operation` (rules.cpp refuses
// such rules): a bug in this library.
[[noreturn]] inline void unplanned(Operation operation, Algorithm algorithm) {
  throw std::logic_error("the collective plan chose " + std::string(name(algorithm)) + " for " +
                         std::string(name(operation)));
}

inline Channel& channel() { return core::Runtime::instance().channel(); }

inline Cells& cells() { return core::Runtime::instance().cells(); }

inline Board& board() { return core::Runtime::instance().board(); }

// co_await slot_free(): this rank's slot may be written (its last step taken).
inline auto slot_free() {
  return until(-1, [] { return channel().drained(); });
}

// co_await post(to, ...): step `step` of `key`, `bytes` at `data`, is in a
// cell for world rank `to`. co_await take(from, ..., out, bytes): the
// message from world rank `from` is copied to `out`.
inline auto post(std::uint32_t to, Key key, std::uint32_t step, const void* data, std::uint32_t bytes) {
  return until(static_cast<std::int32_t>(to),
                          [=] { return cells().try_post(to, key, step, data, bytes); });
}
inline auto take(std::uint32_t from, Key key, std::uint32_t step, void* out, std::uint32_t bytes) {
  return until(static_cast<std::int32_t>(from),
                          [=] { return cells().try_take_into(from, key, step, out, bytes); });
}

// Copies `bytes` at address `remote` of world rank `peer` (this rank's own
// memory when it is this rank) to `local`, with Cross Memory Attach. A
// kernel that refuses CMA ends the job with a message naming the tunable
// that avoids it (`what` names the collective's algorithm).
void read_peer(std::uint32_t peer, void* local, std::uint64_t remote, std::size_t bytes, const char* what);
// Copies `bytes` at `local` to address `remote` of world rank `peer`, the
// same way.
void write_peer(std::uint32_t peer, std::uint64_t remote, const void* local, std::size_t bytes, const char* what);

inline std::vector<std::uint32_t> worlds_of(const Group& c, const std::vector<int>& ranks) {
  std::vector<std::uint32_t> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(c.world_of(r));
  return out;
}

// A blocking collective: drives `task` to its end, shown to mpfinspect as
// `call` on `c` (with its root, if any) while it waits, after the
// nonblocking collectives this rank started before it (pending.hpp).
inline void run(Task task, const Group& c, const char* call, int root) {
  finish_pending(call);
  progress::BlockedCall blocked = collective_wait(c, root, call);
  blocked.crowd = c.plan.on_board();
  core::Runtime& rt = core::Runtime::instance();
  task.run(rt.engine(), blocked);
  rt.transport().flush_wakes();  // the task's last posts may have deferred theirs
}

}  // namespace mpf::coll
