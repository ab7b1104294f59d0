#include "mpi/coll/pending.hpp"

#include <deque>

#include "core/runtime.hpp"
#include "mpi/coll/context.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi::coll {
namespace {

// In the order they were started. A rank runs its collectives one at a
// time: each shares the rank's one collective slot, and two of them
// holding slots at once on several ranks could each wait for the other.
std::deque<std::shared_ptr<PendingCollective>> g_pending;

}  // namespace

void advance_pending() {
  while (!g_pending.empty()) {
    g_pending.front()->advance();
    if (!g_pending.front()->done) break;
    g_pending.pop_front();
  }
  // Before the caller returns to the application: wakes the tasks deferred.
  core::Runtime::instance().transport().flush_wakes();
}

bool pending_idle() { return g_pending.empty(); }

void start_pending(const std::shared_ptr<PendingCollective>& pending) {
  g_pending.push_back(pending);
  core::Runtime::instance().engine().set_progress_hook(advance_pending);
  advance_pending();
}

int launch(const char* call, MPI_Comm comm, int root, mpf::coll::Task op, MPI_Request* request) {
  if (request == nullptr) {
    run(std::move(op), comm_of(comm), call, root);
    return MPI_SUCCESS;
  }
  auto pending = std::make_shared<PendingCollective>();
  pending->task = std::move(op);
  pending->comm = share_comm(comm);
  MPI_Request handle = MPI_REQUEST_NULL;
  MpiRequest& r = requests().add(&handle);
  r.call = call;
  r.comm = comm;
  r.active = true;
  r.coll = pending;
  start_pending(pending);
  *request = handle;
  return MPI_SUCCESS;
}

void finish_pending(const char* call, std::int32_t context) {
  if (pending_idle()) return;
  const progress::BlockedCall blocked{call, -1, -1, static_cast<std::uint32_t>(context)};
  core::Runtime::instance().engine().wait_until(
      [] {
        advance_pending();
        return pending_idle();
      },
      blocked);
}

}  // namespace mpf::mpi::coll
