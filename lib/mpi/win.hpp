// MPI windows (MPI-3.1 chapter 11) as this rank holds them: the table behind
// MPI_Win handles, and what each window knows of its members. The shared
// part every member maps (rma/window_layout.hpp) holds the locks, the
// epoch counters and how each member's memory is reached; this side holds
// the pointers and mappings of this process, the epochs it has open, and
// what MPI adds (attributes, error handler, name, hints).
//
// The calls are in win_create.cpp (constructors, free, shared query,
// attach), win_sync.cpp (fence, post/start/complete/wait, locks, flushes),
// win_ops.cpp (put, get and the accumulates) and win_attr.cpp (group, name,
// info, error handlers); attributes.cpp keeps window attributes with the
// others.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi/attributes.hpp"
#include "rma/lock_queue.hpp"
#include "rma/node_addresses.hpp"
#include "rma/window_layout.hpp"
#include "shm/node_memory.hpp"

namespace mpf::mpi {

// How this rank reaches one member's memory.
struct WinTarget {
  rma::Reach reach = rma::Reach::none;
  std::byte* direct = nullptr;  // direct: the member's memory, mapped here
  std::uint64_t address = 0;    // its address in the member's process (CMA; MPI_Win_shared_query's base)
  std::uint64_t size = 0;
  std::uint32_t disp_unit = 1;
  std::uint32_t world = 0;  // its world rank
};

struct Window {
  MPI_Win handle = MPI_WIN_NULL;
  MPI_Comm comm = MPI_COMM_NULL;  // a duplicate of the creating communicator: the fence's barrier
  rma::Flavor flavor = rma::Flavor::create;
  int rank = 0;  // in comm
  int size = 0;
  // The shared part: rank 0 created it (and keeps it until the window is
  // freed); every member maps it.
  shm::NodeMemory piece;
  rma::Mapping mapping;
  std::uint64_t mapping_id = 0;  // its node memory id
  rma::WindowLayout layout;
  std::vector<WinTarget> targets;   // by rank in comm
  std::vector<rma::Mapping> held;   // node memory of members' Win_create memory
  // This rank's memory (MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT).
  void* base = nullptr;
  MPI_Aint bytes = 0;
  int disp_unit = 1;
  int flavor_value = MPI_WIN_FLAVOR_CREATE;  // MPI_WIN_CREATE_FLAVOR
  int model = MPI_WIN_UNIFIED;               // MPI_WIN_MODEL: one copy of the memory, coherent

  // Epochs this rank has open (seed 001 §2).
  bool fence_epoch = false;             // after a fence without MPI_MODE_NOSUCCEED
  std::uint64_t fence_operations = 0;   // operations issued since that fence
  std::uint64_t fences = 0;             // fences with a barrier so far (every member counts alike)
  bool access_epoch = false;            // MPI_Win_start .. MPI_Win_complete
  std::vector<int> access_group;        // its targets
  bool exposure_epoch = false;          // MPI_Win_post .. MPI_Win_wait
  std::vector<int> exposure_group;      // its origins
  std::vector<std::uint32_t> posts_seen;      // per target: posts this rank's starts consumed
  std::vector<std::uint32_t> completes_seen;  // per origin: completes this rank's waits consumed
  std::vector<rma::LockType> locks;           // per target: the lock this rank holds there
  std::vector<bool> locks_checked;            // per target: taken with MPI_MODE_NOCHECK (no ticket)
  int locks_held = 0;
  bool lock_all = false;
  bool lock_all_checked = false;  // lock_all without MPI_MODE_NOCHECK: shared tickets at every target
  std::uint64_t served = 0;           // operations this rank's engine took for origins (win_via_target.hpp)
  std::uint64_t sent_via_target = 0;  // operations this rank asked targets' engines to apply
  std::uint64_t mail_seen = 0;        // the count of operations posted to this rank's mailboxes it served up to

  // What MPI adds.
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  AttributeSet attributes;
  std::string name;
  MPI_Info info = MPI_INFO_NULL;  // the hints it was given (MPI_Win_get_info returns them)
  bool no_locks = false;          // info no_locks=true: the program promises no MPI_Win_lock
  bool noncontiguous = false;     // info alloc_shared_noncontig=true

  // Whether this rank may access `target` now (an access epoch includes it).
  bool may_access(int target) const;
  // The member block of rank r in the shared part.
  rma::MemberBlock& member(int r) const { return layout.member(static_cast<std::uint32_t>(r)); }
};

// The table: index = handle; handles are never reused, a freed window's
// entry goes null.
std::vector<std::unique_ptr<Window>>& window_table();
// The window a handle names, or null.
Window* find_win(MPI_Win win);
std::string describe_bad_win(MPI_Win win);
// Reports an error on `win` through its error handler (MPI_ERRORS_ARE_FATAL
// unless the program set one); returns the error class when the handler
// returns. The message names the call and the rank, as every error does.
int win_error(const char* call, MPI_Win win, int error_class, const std::string& detail);
// What every window call starts with: MPI is initialised and `win` names a
// window. The window, or null with *rc the error reported.
Window* window_of(const char* call, MPI_Win win, int* rc);
// "window 3" or "window 3 (its name)", for messages.
std::string win_label(const Window& w);

}  // namespace mpf::mpi
