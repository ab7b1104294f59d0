// Short exchanges as lists of steps, with two drivers.
//
// Some collectives run very often with little data: a barrier, or an
// Allreduce or Alltoall of a few bytes, on up to coll_exchange_max ranks.
// Each is a fixed list of cell posts and takes. As a coroutine (task.hpp),
// each call pays for a frame, resumes and the task's driver. That costs
// about as much as the cache-line transfer that carries the data, so the
// blocking call drives the steps straight. The board's short collectives
// (a barrier, a Bcast of one entry, a reduction of one row: board.cpp) are
// steps too, for the same reason.
//
// Such an algorithm is written as a Steps type instead:
//
//   int count() const;               how many steps
//   std::int32_t peer(int i) const;  the world rank step i waits for
//   bool try_step(int i);            attempts step i without waiting:
//                                    true once it is done (then it is
//                                    not asked again)
//   void finish();                   after the last step
//   progress::Turn turn(int i) const;  optional: how step i waits, if
//                                    it may be a turn (coll/board.hpp)
//
// A blocking call drives the steps from the caller (run_steps). A
// nonblocking call, or an algorithm that needs it as a part, wraps the same
// steps in a task (steps_task). So one algorithm serves both.
#pragma once

#include <cstdint>

#include "coll/algorithms/context.hpp"

namespace mpf::coll {

// The blocking driver. Like run(): after the nonblocking collectives this
// rank started before, shown to mpfinspect as `call` on `c` while it waits.
template <class Steps>
void run_steps(Steps& steps, const Group& c, const char* call, int root) {
  finish_pending(call);
  core::Runtime& rt = core::Runtime::instance();
  const int count = steps.count();
  for (int i = 0; i < count; ++i) {
    if (steps.try_step(i)) continue;
    // Described only when a step has to wait: most calls never do.
    progress::BlockedCall blocked = collective_wait(c, root, call);
    blocked.crowd = c.plan.on_board();
    blocked.peer = steps.peer(i);
    if constexpr (requires { steps.turn(i); }) blocked.turn = steps.turn(i);
    rt.engine().wait_until([&steps, i] { return steps.try_step(i); }, blocked);
  }
  steps.finish();
  rt.transport().flush_wakes();  // the last posts may have deferred theirs
}

// The task driver: the steps are built in the task's frame from `c` and
// `args` when the task first runs.
template <class Steps, class... Args>
Task steps_task(const Group& c, Args... args) {
  Steps steps(c, args...);
  const int count = steps.count();
  for (int i = 0; i < count; ++i) {
    co_await until(steps.peer(i), [&steps, i] { return steps.try_step(i); });
  }
  steps.finish();
}

}  // namespace mpf::coll
