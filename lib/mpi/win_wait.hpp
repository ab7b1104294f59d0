// How window calls wait and wake (SPEC §2 Waiting): through the progress
// engine, so a rank waiting in MPI_Win_wait or MPI_Win_lock still serves
// its own messages and the operations its engine applies for others, and
// sleeps until the rank it waits for wakes it.
#pragma once

#include <cstdint>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/win.hpp"

namespace mpf::mpi {

// Wakes member `rank` if it sleeps: after writing what it waits for.
inline void wake_member(const Window& w, int rank) {
  core::Runtime::instance().transport().wake(w.targets[static_cast<std::size_t>(rank)].world);
}

// Waits until `ready()`, shown as `call` waiting for `what` from member
// `rank` (-1: the window's group).
template <class Ready>
void wait_for(const Window& w, int rank, shm::RmaWait what, const char* call, Ready&& ready) {
  if (ready()) return;
  const std::int32_t world = rank < 0 ? -1 : static_cast<std::int32_t>(w.targets[static_cast<std::size_t>(rank)].world);
  progress::BlockedCall wait =
      progress::BlockedCall::rma_sync(progress::WaitApi::mpi, world, comm_of(w.comm).context, what, call);
  // With more ranks than CPUs, yield to the others at once: the rank waited
  // for needs a CPU to post, complete or unlock, and the partners of an
  // epoch tend to wait for each other in turn (a ring of PSCW epochs ran
  // 7x faster at 16 ranks on 2 CPUs than with most waiters asleep).
  wait.crowd = core::Runtime::instance().oversubscribed();
  core::Runtime::instance().engine().wait_until(ready, wait);
}

}  // namespace mpf::mpi
