// Synchronization of one-sided communication (MPI-3.1 §11.5, seed 001 §2):
// fence, post/start/complete/wait/test, lock/unlock, lock_all/unlock_all,
// the flushes and MPI_Win_sync.
//
// Operations on memory reached directly or by Cross Memory Attach are
// complete when their call returns, so closing an epoch only orders memory
// and tells the other side: a fence is one barrier on the window's
// communicator, MPI_Win_complete one counter per target, MPI_Win_post one
// per origin, both in the window's shared part. Operations a target's
// engine applies for its origins are completed by counting (seed 001 §3):
// each origin counts what it asked of each target (`sent`), the target
// what it applied (`done`), and whoever must wait for them waits until the
// two agree. Locks are taken and returned by the origins alone, in the
// fair queue of rma/lock_queue.hpp. Every wait is the runtime's (spin,
// yield, sleep until woken), shown to mpfinspect as an RMA synchronization
// with the rank waited for.
#include <mpi.h>

#include <atomic>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/group.hpp"
#include "mpi/win.hpp"
#include "mpi/win_via_target.hpp"
#include "mpi/win_wait.hpp"

namespace mpf::mpi {
namespace {

using rma::LockType;

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int bad_assert(const char* call, const Window& w, int assert, int allowed, const char* names) {
  if ((assert & ~allowed) == 0) return MPI_SUCCESS;
  return win_error(call, w.handle, MPI_ERR_ASSERT,
                   "assertion " + std::to_string(assert) + " has bits that " + call + " does not take (it takes " +
                       names + ")");
}

// A call out of order within one kind of synchronization (an unlock
// without a lock, a wait without a post...).
int sync_error(const char* call, const Window& w, const std::string& detail) {
  return win_error(call, w.handle, MPI_ERR_RMA_SYNC, detail + " on " + win_label(w));
}

// A call that mixes kinds of synchronization at once on one window
// (a lock while an access epoch of fence or start is in use, a fence or a
// start while locks are held): their accesses would conflict.
int conflict_error(const char* call, const Window& w, const std::string& detail) {
  return win_error(call, w.handle, MPI_ERR_RMA_CONFLICT,
                   detail + " on " + win_label(w) + ": active and passive target synchronization do not mix");
}

// The passive-target epoch a lock would open conflicts with an access
// epoch of active target this rank has in use: its start, or a fence
// epoch in which it has issued operations. A fence epoch still unused is
// simply closed (programs open one with a fence they do not use).
int check_no_active_access(const char* call, Window& w) {
  if (w.access_epoch) return conflict_error(call, w, "an access epoch (MPI_Win_start) is open");
  if (w.fence_epoch && w.fence_operations > 0) {
    return conflict_error(call, w, "operations were issued in the fence epoch, which no fence has closed yet");
  }
  w.fence_epoch = false;
  return MPI_SUCCESS;
}

// What the rank shows of its epochs (mpfinspect).
void show_epochs(Window& w) {
  std::uint32_t bits = 0;
  if (w.fence_epoch) bits |= rma::kEpochFence;
  if (w.access_epoch) bits |= rma::kEpochAccess;
  if (w.exposure_epoch) bits |= rma::kEpochExposure;
  if (w.lock_all) bits |= rma::kEpochLockAll;
  if (w.locks_held > 0) bits |= rma::kEpochLocks;
  rma::MemberBlock& me = w.member(w.rank);
  me.epochs.store(bits, std::memory_order_relaxed);
  me.locks_held.store(static_cast<std::uint32_t>(w.locks_held), std::memory_order_relaxed);
}

// The ranks of a group argument in the window's communicator.
int group_ranks(const char* call, const Window& w, MPI_Group group, std::vector<int>* ranks) {
  const Group* g = find_group(group);
  if (g == nullptr) return win_error(call, w.handle, MPI_ERR_GROUP, "invalid group " + std::to_string(group));
  const Communicator& c = comm_of(w.comm);
  ranks->clear();
  for (const std::uint32_t world : *g) {
    const std::int32_t r = world < c.rank_of.size() ? c.rank_of[world] : -1;
    if (r < 0) {
      return win_error(call, w.handle, MPI_ERR_GROUP,
                       "world rank " + std::to_string(world) + " of the group is not a member of " + win_label(w));
    }
    ranks->push_back(r);
  }
  return MPI_SUCCESS;
}

// This rank's operations at `target` are complete there. Stores to node
// memory and CMA copies are complete when their call returns; what follows
// (a message, a lock's release, a counter) is ordered after them.
void complete_at(Window& w, int target, const char* call) {
  finish_operations(w, target, call);
  std::atomic_thread_fence(std::memory_order_release);
}

// The fence's barrier (rma::FenceCounters): every member counts itself in
// and waits once; the last to arrive releases the fence and wakes those
// asleep. Shown to mpfinspect as a collective on the window's
// communicator, and waited for as a crowd (every member waits for the
// last: with more ranks than CPUs they yield to each other, not sleep).
void fence_barrier(Window& w, const char* call) {
  const Communicator& c = comm_of(w.comm);
  const CollectiveScope scope(c, progress::CollKind::barrier, false);
  core::Runtime& rt = core::Runtime::instance();
  rma::FenceCounters& fence = w.layout.fence();
  const std::uint64_t k = ++w.fences;
  // Release: what this member stored is visible to whoever passes the
  // fence; acquire: so is what the members before it stored.
  if (fence.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == k * static_cast<std::uint64_t>(w.size)) {
    fence.released.store(k, std::memory_order_seq_cst);
    for (int r = 0; r < w.size; ++r) {
      if (r != w.rank) rt.transport().wake_later(w.targets[static_cast<std::size_t>(r)].world);
    }
    rt.transport().flush_wakes();
    return;
  }
  progress::BlockedCall wait = coll::collective_wait(c, -1, call);
  wait.crowd = rt.oversubscribed();
  rt.engine().wait_until([&] { return fence.released.load(std::memory_order_acquire) >= k; }, wait);
}

LockType lock_type_of(int lock_type) {
  return lock_type == MPI_LOCK_EXCLUSIVE ? LockType::exclusive
         : lock_type == MPI_LOCK_SHARED  ? LockType::shared
                                         : LockType::none;
}

// Takes `type` at `target`: returns once granted.
void take_lock(Window& w, int target, LockType type, const char* call) {
  const auto t = static_cast<std::uint32_t>(target);
  const auto me = static_cast<std::uint32_t>(w.rank);
  const rma::Ticket ticket = rma::request_lock(w.layout, t, me, type, now_ns());
  bool announced = false;
  if (!rma::granted(w.layout, ticket)) {
    rma::announce_waiting(w.layout, t, me);
    announced = true;
    wait_for(w, target, shm::RmaWait::lock, call, [&] { return rma::granted(w.layout, ticket); });
  }
  rma::mark_held(w.layout, t, me, announced);
}

void return_lock(Window& w, int target, LockType type) {
  const auto t = static_cast<std::uint32_t>(target);
  if (rma::release_lock(w.layout, t, static_cast<std::uint32_t>(w.rank), type)) {
    rma::for_each_granted_waiter(w.layout, t, [&](std::uint32_t origin) { wake_member(w, static_cast<int>(origin)); });
  }
}

int check_rank(const char* call, const Window& w, int rank) {
  if (rank >= 0 && rank < w.size) return MPI_SUCCESS;
  return win_error(call, w.handle, MPI_ERR_RANK,
                   "rank " + std::to_string(rank) + " is not in " + win_label(w) + " of " + std::to_string(w.size) +
                       " ranks");
}

// True when every origin of the exposure epoch has completed (and the
// operations its engine was asked to apply are applied); then the epoch
// is over. `block`: wait for it.
bool end_exposure(Window& w, const char* call, bool block) {
  const auto me = static_cast<std::uint32_t>(w.rank);
  for (const int o : w.exposure_group) {
    const std::uint32_t seen = w.completes_seen[static_cast<std::size_t>(o)];
    std::atomic<std::uint32_t>& completes = w.layout.completes(me, static_cast<std::uint32_t>(o));
    auto completed = [&] { return completes.load(std::memory_order_acquire) != seen; };
    if (block) {
      wait_for(w, o, shm::RmaWait::complete, call, completed);
    } else if (!completed()) {
      return false;
    }
  }
  for (const int o : w.exposure_group) {
    if (!block && !applied_from(w, o)) return false;
  }
  for (const int o : w.exposure_group) {
    ++w.completes_seen[static_cast<std::size_t>(o)];
    wait_applied_from(w, o, call);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w.exposure_epoch = false;
  w.exposure_group.clear();
  show_epochs(w);
  return true;
}

// The flushes: every operation this rank issued to `rank` (-1: to every
// member) is complete at the target. Local completion (the _local forms)
// comes no sooner here, so they are the same.
int flush(const char* call, MPI_Win win, int rank) {
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank != -1) {
    if (int e = check_rank(call, *w, rank)) return e;
  }
  const bool passive = w->lock_all || (rank >= 0 ? w->locks[static_cast<std::size_t>(rank)] != rma::LockType::none
                                                 : w->locks_held > 0);
  if (!passive) {
    return sync_error(call, *w,
                      rank >= 0 ? "no passive-target epoch (MPI_Win_lock) is open at rank " + std::to_string(rank)
                                : std::string("no passive-target epoch (MPI_Win_lock) is open"));
  }
  complete_at(*w, rank, call);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;
namespace rma = mpf::rma;

extern "C" {

int PMPI_Win_fence(int assert, MPI_Win win) {
  const char* call = "MPI_Win_fence";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (int e = bad_assert(call, *w, assert, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED,
                         "MPI_MODE_NOSTORE, NOPUT, NOPRECEDE and NOSUCCEED")) {
    return e;
  }
  if (w->access_epoch) return sync_error(call, *w, "an access epoch (MPI_Win_start) is open");
  if (w->exposure_epoch) return sync_error(call, *w, "an exposure epoch (MPI_Win_post) is open");
  if (w->lock_all || w->locks_held > 0) return conflict_error(call, *w, "a passive-target epoch (MPI_Win_lock) is open");
  const bool preceded = (assert & MPI_MODE_NOPRECEDE) == 0;
  const bool succeeded = (assert & MPI_MODE_NOSUCCEED) == 0;
  if (preceded) finish_operations(*w, -1, call);
  // The barrier ends the epoch everywhere: every origin's operations are
  // issued (and, but for those a target applies, complete) before any
  // rank leaves, and no origin reaches memory of the next epoch before its
  // target has finished with it. A fence that neither ends nor opens an
  // epoch (MPI_MODE_NOPRECEDE and MPI_MODE_NOSUCCEED, which every member
  // gives if one does) needs none.
  if (preceded || succeeded) fence_barrier(*w, call);
  if (preceded) {
    for (int o = 0; o < w->size; ++o) wait_applied_from(*w, o, call);
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  w->fence_epoch = succeeded;
  w->fence_operations = 0;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win) {
  const char* call = "MPI_Win_post";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (int e = bad_assert(call, *w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                         "MPI_MODE_NOCHECK, NOSTORE and NOPUT")) {
    return e;
  }
  if (w->exposure_epoch) return sync_error(call, *w, "an exposure epoch (MPI_Win_post) is open already");
  std::vector<int> origins;
  if (int e = group_ranks(call, *w, group, &origins)) return e;
  w->exposure_group = std::move(origins);
  w->exposure_epoch = true;
  show_epochs(*w);
  // Release: the memory's state so far is what the origins will see.
  // With MPI_MODE_NOCHECK the origins' starts do not wait for this post.
  if ((assert & MPI_MODE_NOCHECK) == 0) {
    for (const int o : w->exposure_group) {
      w->layout.posts(static_cast<std::uint32_t>(o), static_cast<std::uint32_t>(w->rank))
          .fetch_add(1, std::memory_order_release);
      wake_member(*w, o);
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win) {
  const char* call = "MPI_Win_start";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (int e = bad_assert(call, *w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK")) return e;
  if (w->access_epoch) return sync_error(call, *w, "an access epoch (MPI_Win_start) is open already");
  if (w->lock_all || w->locks_held > 0) return conflict_error(call, *w, "a passive-target epoch (MPI_Win_lock) is open");
  std::vector<int> targets;
  if (int e = group_ranks(call, *w, group, &targets)) return e;
  if ((assert & MPI_MODE_NOCHECK) == 0) {
    const auto me = static_cast<std::uint32_t>(w->rank);
    for (const int t : targets) {
      std::uint32_t& seen = w->posts_seen[static_cast<std::size_t>(t)];
      std::atomic<std::uint32_t>& posts = w->layout.posts(me, static_cast<std::uint32_t>(t));
      wait_for(*w, t, mpf::shm::RmaWait::post, call, [&] { return posts.load(std::memory_order_acquire) != seen; });
      ++seen;
    }
  }
  w->access_group = std::move(targets);
  w->access_epoch = true;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win) {
  const char* call = "MPI_Win_complete";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (!w->access_epoch) return sync_error(call, *w, "no access epoch (MPI_Win_start) is open");
  for (const int t : w->access_group) {
    complete_at(*w, t, call);
    w->layout.completes(static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(w->rank))
        .fetch_add(1, std::memory_order_release);
    wake_member(*w, t);
  }
  w->access_epoch = false;
  w->access_group.clear();
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win) {
  const char* call = "MPI_Win_wait";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (!w->exposure_epoch) return sync_error(call, *w, "no exposure epoch (MPI_Win_post) is open");
  end_exposure(*w, call, true);
  return MPI_SUCCESS;
}

int PMPI_Win_test(MPI_Win win, int* flag) {
  const char* call = "MPI_Win_test";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (flag == nullptr) return win_error(call, win, MPI_ERR_ARG, "flag is NULL");
  if (!w->exposure_epoch) return sync_error(call, *w, "no exposure epoch (MPI_Win_post) is open");
  mpf::core::Runtime::instance().engine().progress();
  *flag = end_exposure(*w, call, false) ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win) {
  const char* call = "MPI_Win_lock";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  const rma::LockType type = lock_type_of(lock_type);
  if (type == rma::LockType::none) {
    return win_error(call, win, MPI_ERR_LOCKTYPE,
                     "lock type " + std::to_string(lock_type) + " (use MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE)");
  }
  if (int e = bad_assert(call, *w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK")) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_rank(call, *w, rank)) return e;
  if (w->no_locks) return sync_error(call, *w, "the window was made with the hint no_locks=true");
  if (w->lock_all) return sync_error(call, *w, "MPI_Win_lock_all holds every member's lock already");
  if (w->locks[static_cast<std::size_t>(rank)] != rma::LockType::none) {
    return sync_error(call, *w, "this rank holds a lock at rank " + std::to_string(rank) + " already");
  }
  if (int e = check_no_active_access(call, *w)) return e;
  const bool check = (assert & MPI_MODE_NOCHECK) == 0;
  if (check) take_lock(*w, rank, type, call);
  w->locks[static_cast<std::size_t>(rank)] = type;
  w->locks_checked[static_cast<std::size_t>(rank)] = check;
  ++w->locks_held;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_unlock(int rank, MPI_Win win) {
  const char* call = "MPI_Win_unlock";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_rank(call, *w, rank)) return e;
  const rma::LockType type = w->locks[static_cast<std::size_t>(rank)];
  if (type == rma::LockType::none) {
    return sync_error(call, *w, "this rank holds no lock at rank " + std::to_string(rank) + " (MPI_Win_lock first)");
  }
  complete_at(*w, rank, call);
  if (w->locks_checked[static_cast<std::size_t>(rank)]) return_lock(*w, rank, type);
  w->locks[static_cast<std::size_t>(rank)] = rma::LockType::none;
  --w->locks_held;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_lock_all(int assert, MPI_Win win) {
  const char* call = "MPI_Win_lock_all";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (int e = bad_assert(call, *w, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK")) return e;
  if (w->lock_all) return sync_error(call, *w, "MPI_Win_lock_all holds every member's lock already");
  if (w->locks_held > 0) return sync_error(call, *w, "this rank holds a lock (MPI_Win_lock) already");
  if (int e = check_no_active_access(call, *w)) return e;
  // Shared locks at every member, in rank order (every origin asks in the
  // same order, and shared requests wait only for exclusive ones).
  w->lock_all_checked = (assert & MPI_MODE_NOCHECK) == 0 && !w->no_locks;
  if (w->lock_all_checked) {
    for (int t = 0; t < w->size; ++t) take_lock(*w, t, rma::LockType::shared, call);
  }
  w->lock_all = true;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win win) {
  const char* call = "MPI_Win_unlock_all";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (!w->lock_all) return sync_error(call, *w, "MPI_Win_lock_all was not called");
  complete_at(*w, -1, call);
  if (w->lock_all_checked) {
    for (int t = 0; t < w->size; ++t) return_lock(*w, t, rma::LockType::shared);
  }
  w->lock_all = false;
  show_epochs(*w);
  return MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win) {
  if (rank == -1) rank = -3;  // not a rank: check_rank says so
  return flush("MPI_Win_flush", win, rank);
}
int PMPI_Win_flush_local(int rank, MPI_Win win) {
  if (rank == -1) rank = -3;
  return flush("MPI_Win_flush_local", win, rank);
}
int PMPI_Win_flush_all(MPI_Win win) { return flush("MPI_Win_flush_all", win, -1); }
int PMPI_Win_flush_local_all(MPI_Win win) { return flush("MPI_Win_flush_local_all", win, -1); }

// The unified model: memory is one copy; MPI_Win_sync orders this rank's
// loads and stores against the others'.
int PMPI_Win_sync(MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Win_sync", win, &rc);
  if (w == nullptr) return rc;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Win_fence = PMPI_Win_fence
#pragma weak MPI_Win_post = PMPI_Win_post
#pragma weak MPI_Win_start = PMPI_Win_start
#pragma weak MPI_Win_complete = PMPI_Win_complete
#pragma weak MPI_Win_wait = PMPI_Win_wait
#pragma weak MPI_Win_test = PMPI_Win_test
#pragma weak MPI_Win_lock = PMPI_Win_lock
#pragma weak MPI_Win_unlock = PMPI_Win_unlock
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
#pragma weak MPI_Win_flush = PMPI_Win_flush
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
#pragma weak MPI_Win_sync = PMPI_Win_sync

}  // extern "C"
