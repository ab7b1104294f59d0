// The node's shared segment as a wire format (SPEC §2 "Shared segment").
//
// mpfrun creates one segment per job on each node before it starts the ranks
// (an anonymous memfd: nothing of it can be left in /dev/shm) and passes its
// file descriptor to every rank; mpfinspect maps it read-only through
// /proc/<mpfrun pid>/fd/<fd>. Everything in it is reached by offsets from the
// segment's start, never by pointers, because each process maps it at its own
// address. The version comes first so that a reader of another build refuses a
// layout it does not know instead of misreading it.
//
//   [SegmentHeader]            written once by mpfrun, read-only afterwards
//   [RankControl x nranks]     one cache-line-aligned block per rank
//   [tunables JSON text]       the job's resolved tunables (Tunables::to_json)
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpf::shm {

inline constexpr std::uint32_t kSegmentMagic = 0x5346504d;  // "MPFS", little-endian
inline constexpr std::uint32_t kLayoutVersion = 1;
inline constexpr std::size_t kCacheLine = 64;

// Lifecycle of a rank as its own process records it; mpfrun reads it when the
// process exits to tell a clean exit from one that skipped MPI_Finalize.
enum class RankState : std::uint32_t {
  launched = 0,     // started by mpfrun; the runtime has not initialised (yet)
  initialized = 1,  // MPI_Init (or shmem_init, mpf_init) completed
  finalized = 2,    // MPI_Finalize completed
  aborted = 3,      // MPI_Abort was called; abort_code holds the code
};

// Cache lines 0-1. Written by mpfrun before the first fork; immutable while
// ranks run, so readers need no synchronisation beyond the fork/exec itself.
struct alignas(kCacheLine) SegmentHeader {
  std::uint32_t magic;
  std::uint32_t layout_version;
  std::uint64_t segment_bytes;
  std::uint32_t nranks;
  std::uint32_t ncpus;           // CPUs the job may run on (mpfrun's affinity mask)
  std::uint32_t oversubscribed;  // 1 when nranks > ncpus: waiting ranks must block, not spin
  std::uint32_t reserved;
  std::uint64_t rank_control_offset;
  std::uint64_t rank_control_stride;
  std::uint64_t tunables_offset;  // UTF-8 JSON text, not NUL-terminated
  std::uint64_t tunables_bytes;
  std::int64_t start_unix_ns;     // when mpfrun created the job
  char jobid[32];                 // NUL-terminated
};
static_assert(sizeof(SegmentHeader) == 2 * kCacheLine);
static_assert(offsetof(SegmentHeader, magic) == 0 && offsetof(SegmentHeader, layout_version) == 4,
              "magic and version must stay first: every reader checks them before anything else");

// Counters a rank publishes about its own communication. Single writer (the
// rank), relaxed atomics: readers (mpfrun's report, mpfinspect) only need each
// value to be untorn, not a snapshot across counters.
struct RankCounters {
  std::atomic<std::uint64_t> pmix_puts;     // wire-up key/value pairs published
  std::atomic<std::uint64_t> pmix_gets;     // wire-up key/value pairs read from peers
  std::atomic<std::uint64_t> pmix_fences;   // wire-up fences completed
  std::atomic<std::uint64_t> init_ns;       // time spent in runtime initialisation
  std::atomic<std::uint64_t> finalize_ns;   // time spent in runtime finalisation
};

// One per rank. Cache line 0: lifecycle, written by the rank, read by mpfrun
// and mpfinspect. Cache line 1: counters, written by the rank.
struct alignas(kCacheLine) RankControl {
  std::atomic<std::uint32_t> state;  // RankState
  std::int32_t pid;                  // written by the rank at attach
  std::atomic<std::int32_t> abort_code;
  std::uint32_t reserved[13];
  alignas(kCacheLine) RankCounters counters;
};
static_assert(sizeof(RankControl) == 2 * kCacheLine);
static_assert(offsetof(RankControl, counters) == kCacheLine);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
                  std::atomic<std::uint64_t>::is_always_lock_free,
              "segment atomics must be lock-free to work across processes");

}  // namespace mpf::shm
