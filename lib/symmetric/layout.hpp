// The node's OpenSHMEM state: one piece of node memory (shm::NodeMemory,
// named "shmem.heap"), created by PE 0 at shmem_init and mapped by every
// PE of the node and by mpfinspect.
//
//   header     geometry: PEs, bytes per heap, where the parts begin
//   pes[p]     PE p's state: where its static data lies in its process, the
//              lock of atomics on that data, the allocation it last asked
//              for, the locks it holds, and what it waits for (a seqlock)
//   heaps[p]   PE p's symmetric heap, heap_bytes each, one after another
//
// Every heap is in every PE's address space, so a put, get or atomic on
// another PE's heap is a load, store or CPU atomic: PE p's copy of a
// symmetric object at offset o of the caller's heap is at heaps + p *
// heap_bytes + o. The heaps are virtual memory: pages are taken as they
// are touched. Global and static variables are not in the piece; other PEs
// reach them by Cross Memory Attach at the address PE p published
// (static_base), since each process loads the program at its own address.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/seqlock.hpp"

namespace mpf::symmetric {

inline constexpr std::string_view kPieceName = "shmem.heap";
inline constexpr std::uint32_t kMagic = 0x53484d31;  // "SHM1"
inline constexpr std::uint32_t kVersion = 1;
inline constexpr std::size_t kCacheLine = 64;

// Where a symmetric object lies, the same on every PE: in the heap or the
// static data, and its offset there. 0 is none.
enum class Area : std::uint64_t { none = 0, heap = 1, statics = 2 };
inline constexpr std::uint64_t kAreaShift = 62;
inline constexpr std::uint64_t symmetric_ref(Area area, std::uint64_t offset) {
  return (static_cast<std::uint64_t>(area) << kAreaShift) | offset;
}
inline constexpr Area area_of(std::uint64_t ref) { return static_cast<Area>(ref >> kAreaShift); }
inline constexpr std::uint64_t offset_of(std::uint64_t ref) { return ref & ((std::uint64_t{1} << kAreaShift) - 1); }

// The type of a word a PE waits on, for showing its value: its bytes and
// how to read them.
enum class ValueKind : std::uint8_t { signed_integer = 1, unsigned_integer = 2, floating = 3 };

// What a PE waits for in a SHMEM call of its own (mpfinspect shows it; the
// engine's wait record says only "shmem_wait").
enum class WaitWhat : std::uint8_t {
  none = 0,
  until = 1,   // wait_until (and its _all, _any, _some, _vector forms): word `ref` cmp `value`
  signal = 2,  // signal_wait_until: signal word `ref` cmp `value`
  lock = 3,    // set_lock: lock `ref` (PE 0's copy) to serve ticket `value`
};

struct PeWait {
  WaitWhat what;
  ValueKind kind;
  std::uint8_t bytes;     // of the word
  std::uint8_t cmp;       // SHMEM_CMP_*
  std::uint32_t count;    // words watched (the _all, _any, _some forms); 1 otherwise
  std::uint64_t ref;      // symmetric_ref of the (first) word
  std::uint64_t address;  // the (first) word's address in the waiting PE
  std::uint64_t value;    // the comparison's value, as the word's bits; a lock: the ticket
  char function[32];      // the call: "shmem_long_wait_until"
};
static_assert(sizeof(PeWait) == 64);

// The locks a PE holds (set_lock, test_lock), shown by mpfinspect: the
// symmetric_ref of each lock, 0 where none.
inline constexpr std::size_t kHeldLocks = 4;

// The size and alignment of a PE's last symmetric allocation, at slot
// (sequence % 2): every PE must ask for the same, and each checks its own
// request against PE 0's after the allocation's barrier. PE 0 cannot be
// more than one allocation ahead of any PE (each ends with a barrier), so
// two slots never let it overwrite what another PE still reads.
struct AllocationRequest {
  std::atomic<std::uint64_t> sequence;
  std::atomic<std::uint64_t> bytes;
  std::atomic<std::uint64_t> alignment;
};

struct alignas(kCacheLine) PeState {
  // Line 0: written once by the PE at shmem_init.
  std::uint64_t static_base;  // the first byte of its static data in its process
  std::uint64_t static_bytes;
  std::int32_t pid;
  std::uint32_t reserved0[11];
  // Line 1: the lock of atomics on its static data (rma::AccumulateLockGuard),
  // taken by every PE that updates it atomically, this PE included.
  alignas(kCacheLine) std::atomic<std::uint32_t> static_lock;
  // Line 2: its allocation requests and held locks.
  alignas(kCacheLine) AllocationRequest requests[2];
  std::atomic<std::uint64_t> held_locks[kHeldLocks];
  // Lines 3-4: what it waits for.
  alignas(kCacheLine) common::Seqlock<PeWait> wait;
};
static_assert(sizeof(PeState) == 6 * kCacheLine);

struct Header {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t npes;
  std::uint32_t pe_state_bytes;  // sizeof(PeState) of the build that made it
  std::uint64_t heap_bytes;      // per PE, a multiple of the page size
  std::uint64_t pes_offset;
  std::uint64_t heaps_offset;
};

// A view of the piece: checks the geometry before handing out pointers.
class Layout {
 public:
  // The bytes of a piece for `npes` heaps of `heap_bytes` (page-rounded).
  static std::uint64_t piece_bytes(std::uint32_t npes, std::uint64_t heap_bytes);
  // Writes the header of a fresh (zeroed) piece.
  static void format(std::byte* base, std::uint32_t npes, std::uint64_t heap_bytes);

  Layout() = default;
  // Throws std::runtime_error naming what does not match.
  Layout(std::byte* base, std::uint64_t bytes);

  std::uint32_t npes() const { return header_->npes; }
  std::uint64_t heap_bytes() const { return header_->heap_bytes; }
  PeState& pe(std::uint32_t p) const { return pes_[p]; }
  std::byte* heap(std::uint32_t p) const { return heaps_ + static_cast<std::uint64_t>(p) * header_->heap_bytes; }
  std::byte* heaps() const { return heaps_; }

 private:
  const Header* header_ = nullptr;
  PeState* pes_ = nullptr;
  std::byte* heaps_ = nullptr;
};

}  // namespace mpf::symmetric
