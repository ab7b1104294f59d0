// Nonblocking collectives in flight (MPI_Ibcast, ...), whatever the API:
// each is a task (the same coroutine as the blocking call's) kept by its
// request and advanced on every round of the progress engine — whatever
// this rank waits for — and by the API's test and wait calls (MPI_Test,
// MPI_Wait). The API makes the request (mpi/coll_launch.hpp).
//
// A rank runs its collectives one at a time, in the order it started them
// (a nonblocking one just does not make the caller wait): they share the
// rank's collective slot. Programs that start nonblocking collectives on
// two communicators in opposite orders on ranks they share may therefore
// wait for ever (MPI allows such orders; this library does not yet).
// Operations that use no slot (MPI_Comm_idup's agreement and the
// neighbourhood collectives, over messages of their own) are independent:
// they move whenever they can, in any order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coll/group.hpp"
#include "coll/task.hpp"

namespace mpf::coll {

// An error an operation found while it ran (a neighbourhood collective's
// truncated block): reported not wherever its task happened to be advanced
// (inside any call of the program) but by the call that completes its
// request (MPI_Wait, MPI_Test...), as a receive's truncation is.
struct CollectiveError {
  int error_class = 0;  // the API's error code; 0: none
  std::string detail;
};

struct PendingCollective {
  Task task;
  std::shared_ptr<const Group> group;  // kept alive even if the program frees its handle
  std::shared_ptr<const CollectiveError> error;  // null: the operation finds no errors of its own
  bool done = false;
  // The program's collective call this operation is (the API's launch
  // takes it from the CollectiveScope): counted as completed when it is done.
  progress::Collective call;
  bool counted = false;

  bool failed() const { return done && error != nullptr && error->error_class != 0; }

  void advance() {
    if (done) return;
    done = task.advance();
    if (done && counted) end_collective(*group);
  }
};

// Queues a started collective (or, `independent`, sets it going beside the
// queue) and advances what is pending as far as it goes now.
void start_pending(const std::shared_ptr<PendingCollective>& pending, bool independent = false);
// Advances the oldest collectives in flight as far as they go.
void advance_pending();
// True when no collective of the queue is in flight (independent
// operations do not count: they touch no slot and no datatype).
bool pending_idle();
// Before a blocking collective: waits (as `call`) until every nonblocking
// one started before it has completed.
void finish_pending(const char* call);
// The wait for the oldest nonblocking collective of the queue to complete
// (a request wait of a collective), shown as `call`.
progress::BlockedCall pending_wait(const PendingCollective& oldest, const char* call);

}  // namespace mpf::coll
