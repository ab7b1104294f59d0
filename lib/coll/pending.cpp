#include "coll/pending.hpp"

#include <deque>
#include <vector>

#include "core/runtime.hpp"

namespace mpf::coll {
namespace {

// In the order they were started. A rank runs its collectives one at a
// time: each shares the rank's one collective slot, and two of them
// holding slots at once on several ranks could each wait for the other.
std::deque<std::shared_ptr<PendingCollective>> g_pending;
// Operations that use no slot (the context agreement of MPI_Comm_idup),
// each advanced whenever it can move, whatever else is pending.
std::vector<std::shared_ptr<PendingCollective>> g_independent;

}  // namespace

void advance_pending() {
  while (!g_pending.empty()) {
    g_pending.front()->advance();
    if (!g_pending.front()->done) break;
    g_pending.pop_front();
  }
  // By index: an independent task may start another one.
  for (std::size_t i = 0; i < g_independent.size(); ++i) g_independent[i]->advance();
  std::erase_if(g_independent, [](const std::shared_ptr<PendingCollective>& p) { return p->done; });
  // Before the caller returns to the application: wakes the tasks deferred.
  core::Runtime::instance().transport().flush_wakes();
}

bool pending_idle() { return g_pending.empty(); }

void start_pending(const std::shared_ptr<PendingCollective>& pending, bool independent) {
  if (independent) {
    g_independent.push_back(pending);
  } else {
    g_pending.push_back(pending);
  }
  core::Runtime::instance().engine().add_progress_hook(advance_pending);
  advance_pending();
}

progress::BlockedCall pending_wait(const PendingCollective& oldest, const char* call) {
  const progress::BlockedCall of = progress::BlockedCall::collective(oldest.group->api, oldest.call, -1, call);
  progress::BlockedCall wait = progress::BlockedCall::request(of, call);
  wait.peer = oldest.task.waiting_for();
  return wait;
}

void finish_pending(const char* call) {
  if (pending_idle()) return;
  core::Runtime::instance().engine().wait_until(
      [] {
        advance_pending();
        return pending_idle();
      },
      pending_wait(*g_pending.front(), call));
}

}  // namespace mpf::coll
