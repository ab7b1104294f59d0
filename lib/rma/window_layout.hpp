// The shared part of an RMA window (seed 001 §2): one piece of node memory
// (shm::NodeMemory, named kWindowMemoryName) that the window's first
// member creates and every member maps, holding what origins need to reach
// each member's memory without its help, the members' locks with their
// queues, the counters that complete active-target epochs, and what the
// members show of their epochs to mpfinspect. For the windows that
// allocate their memory (MPI_Win_allocate, MPI_Win_allocate_shared) the
// members' memory follows in the same piece.
//
//   header      flavor, members, context, where the data begins
//   fence       the members' arrivals at fences and the last release
//   members[m]  how member m's memory is reached; its lock's tickets; its epochs
//   lock slots  [target][origin]: origin's request at target (the queue seen
//               by mpfinspect; the order is the tickets')
//   posts       [origin][target]: target's MPI_Win_post calls naming origin
//   completes   [target][origin]: origin's MPI_Win_complete calls naming target
//   sent, done  [target][origin]: operations origin asked target's engine to
//               apply, and how many it has applied (counting completion)
//   mailboxes   [target][origin]: a small operation handed to the target
//               while it is in the library (rma/mailbox.hpp)
//   regions     [member][header.regions]: a dynamic window's attached memory
//   data        the members' memory (allocate flavors)
//
// Every counter has one writer; all-zero is the state of a new window, so
// only the header and the member blocks are written at creation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rma/mailbox.hpp"
#include "shm/region.hpp"

namespace mpf::rma {

inline constexpr std::string_view kWindowMemoryName = "rma.window";
inline constexpr std::uint32_t kWindowMagic = 0x4d50574e;  // "MPWN"
inline constexpr std::uint32_t kWindowVersion = 1;
inline constexpr std::size_t kLine = 64;

// The values are MPI's MPI_WIN_FLAVOR_*.
enum class Flavor : std::uint32_t { create = 1, allocate = 2, dynamic = 3, shared = 4 };

// How an origin reaches a member's window memory.
enum class Reach : std::uint32_t {
  none = 0,        // no memory (size 0)
  direct = 1,      // node memory: loads, stores and CPU atomics
  cma = 2,         // process memory: Cross Memory Attach, without the member's help
  via_target = 3,  // process memory, CMA refused: the member's progress engine applies each operation
};

enum class LockType : std::uint32_t { none = 0, shared = 1, exclusive = 2 };

// A member's epochs, as it shows them.
inline constexpr std::uint32_t kEpochFence = 1;     // between fences (not after MPI_MODE_NOSUCCEED)
inline constexpr std::uint32_t kEpochAccess = 2;    // MPI_Win_start .. MPI_Win_complete
inline constexpr std::uint32_t kEpochExposure = 4;  // MPI_Win_post .. MPI_Win_wait
inline constexpr std::uint32_t kEpochLockAll = 8;   // MPI_Win_lock_all .. MPI_Win_unlock_all
inline constexpr std::uint32_t kEpochLocks = 16;    // holds a lock at some target

// A dynamic window's memory regions per member (MPI_Win_attach) are a
// table of a fixed size (the rma_regions tunable when it was made, in its
// header), so origins read it without the member's help.

struct WindowHeader {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t members;
  std::uint32_t context;  // the window's communicator: its context id
  std::uint32_t flavor;   // Flavor
  std::uint32_t creator_handle;
  std::uint32_t regions;  // dynamic: the attach table's entries per member
  std::uint32_t reserved;
  std::uint64_t data_offset;  // allocate flavors: the members' memory, from the piece's start
  std::uint64_t data_bytes;
  std::int64_t created_ns;  // CLOCK_MONOTONIC
};

// MPI_Win_fence's barrier, flat: each member counts itself in, the last to
// arrive at fence k releases k and wakes the sleepers; so every member
// waits once per fence, however many members share the CPUs (a tree or an
// exchange costs a wake-up per level or round when they outnumber them).
struct alignas(kLine) FenceCounters {
  std::atomic<std::uint64_t> arrived;                 // arrivals at all fences so far
  alignas(kLine) std::atomic<std::uint64_t> released;  // the last fence every member has reached
};
static_assert(sizeof(FenceCounters) == 2 * kLine);

struct alignas(kLine) MemberBlock {
  // Line 0: written once by the member, at creation.
  std::uint32_t world_rank;
  std::int32_t pid;
  std::uint32_t reach;  // Reach
  std::uint32_t disp_unit;
  std::uint64_t size;
  std::uint64_t memory_id;      // direct: the node memory piece its memory lies in
  std::uint64_t memory_offset;  // direct: where in that piece
  std::uint64_t address;        // its memory's address in its own process (MPI_WIN_BASE)
  std::uint32_t handle;         // its MPI_Win handle
  std::uint32_t reserved;
  // Line 1: its lock. requested and released are (tickets << 32 | exclusive
  // tickets), taken and returned by the origins (lock_queue.hpp).
  alignas(kLine) std::atomic<std::uint64_t> requested;
  std::atomic<std::uint64_t> released;
  std::atomic<std::uint32_t> waiters;          // origins waiting to be granted
  std::atomic<std::uint32_t> accumulate_lock;  // accumulates that CPU atomics cannot do (element_ops.hpp)
  std::atomic<std::uint64_t> asked;            // operations origins sent its engine to apply
  std::atomic<std::uint64_t> mail_posted;      // operations origins posted in its mailboxes
  // Line 2: what the member shows of itself (written by it alone).
  alignas(kLine) std::atomic<std::uint32_t> epochs;  // kEpoch* bits
  std::atomic<std::uint32_t> locks_held;            // targets it holds a lock at
  std::atomic<std::uint64_t> operations;            // RMA operations it issued on the window
  std::atomic<std::uint32_t> regions_version;       // dynamic: odd while its attach table changes
  std::atomic<std::uint32_t> regions;               // dynamic: entries in use
  char name[32];                                    // MPI_Win_set_name
};
static_assert(sizeof(MemberBlock) == 3 * kLine);

// An origin's lock request at a target (state: 0 none, kLockWaiting, kLockHeld).
inline constexpr std::uint32_t kLockWaiting = 1;
inline constexpr std::uint32_t kLockHeld = 2;
// Its fields are written before `state` says waiting (a release), so a
// releaser that sees a waiter sees its ticket.
struct LockSlot {
  std::atomic<std::uint32_t> state;
  std::atomic<std::uint32_t> type;              // LockType
  std::atomic<std::uint32_t> ticket;            // its place in the target's queue
  std::atomic<std::uint32_t> exclusive_before;  // exclusive tickets before it
  std::atomic<std::int64_t> since_ns;           // CLOCK_MONOTONIC when requested
};
static_assert(sizeof(LockSlot) == 24);

// A dynamic window's attached region, in the member's address space.
struct Region {
  std::uint64_t address;
  std::uint64_t size;
  std::uint64_t memory_id;  // 0: process memory (reached by CMA)
  std::uint64_t memory_offset;
};

// The view of a window's shared part: offsets computed from the header's
// geometry, checked against the piece before anything is handed out.
class WindowLayout {
 public:
  // Bytes of the shared part before the data of a window of `members`.
  static std::uint64_t control_bytes(std::uint32_t members, Flavor flavor, std::uint32_t regions);

  WindowLayout() = default;
  // Writes a new window's header into `base` (zeroed, `bytes` long).
  // `regions`: a dynamic window's attach table entries per member.
  static WindowLayout create(std::byte* base, std::uint64_t bytes, std::uint32_t members, std::uint32_t context,
                             Flavor flavor, std::uint32_t regions, std::uint32_t creator_handle,
                             std::uint64_t data_bytes, std::int64_t now_ns);
  // The view of an existing window's piece; throws std::runtime_error when
  // the piece is not a window of this version or is too short.
  explicit WindowLayout(std::byte* base, std::uint64_t bytes);

  const WindowHeader& header() const { return *reinterpret_cast<const WindowHeader*>(base_); }
  FenceCounters& fence() const { return *reinterpret_cast<FenceCounters*>(base_ + fence_offset_); }
  std::uint32_t members() const { return members_; }
  Flavor flavor() const { return static_cast<Flavor>(header().flavor); }
  std::byte* data() const { return base_ + header().data_offset; }

  MemberBlock& member(std::uint32_t m) const { return at<MemberBlock>(members_offset_, m); }
  LockSlot& lock_slot(std::uint32_t target, std::uint32_t origin) const {
    return at<LockSlot>(locks_offset_, pair(target, origin));
  }
  std::atomic<std::uint32_t>& posts(std::uint32_t origin, std::uint32_t target) const {
    return at<std::atomic<std::uint32_t>>(posts_offset_, pair(origin, target));
  }
  std::atomic<std::uint32_t>& completes(std::uint32_t target, std::uint32_t origin) const {
    return at<std::atomic<std::uint32_t>>(completes_offset_, pair(target, origin));
  }
  std::atomic<std::uint64_t>& sent(std::uint32_t target, std::uint32_t origin) const {
    return at<std::atomic<std::uint64_t>>(sent_offset_, pair(target, origin));
  }
  std::atomic<std::uint64_t>& done(std::uint32_t target, std::uint32_t origin) const {
    return at<std::atomic<std::uint64_t>>(done_offset_, pair(target, origin));
  }
  Mailbox& mailbox(std::uint32_t target, std::uint32_t origin) const {
    return at<Mailbox>(mailboxes_offset_, pair(target, origin));
  }
  // Dynamic windows only.
  std::uint32_t regions() const { return regions_; }
  Region& region(std::uint32_t member, std::uint32_t i) const {
    return at<Region>(regions_offset_, std::uint64_t{member} * regions_ + i);
  }

 private:
  struct Offsets;
  void place(std::uint32_t members, Flavor flavor, std::uint32_t regions);
  std::uint64_t pair(std::uint32_t a, std::uint32_t b) const { return std::uint64_t{a} * members_ + b; }
  template <class T>
  T& at(std::uint64_t offset, std::uint64_t index) const {
    return reinterpret_cast<T*>(base_ + offset)[index];
  }

  std::byte* base_ = nullptr;
  std::uint32_t members_ = 0;
  std::uint32_t regions_ = 0;
  std::uint64_t fence_offset_ = 0;
  std::uint64_t members_offset_ = 0;
  std::uint64_t locks_offset_ = 0;
  std::uint64_t posts_offset_ = 0;
  std::uint64_t completes_offset_ = 0;
  std::uint64_t sent_offset_ = 0;
  std::uint64_t done_offset_ = 0;
  std::uint64_t mailboxes_offset_ = 0;
  std::uint64_t regions_offset_ = 0;
  std::uint64_t end_ = 0;
};

}  // namespace mpf::rma
