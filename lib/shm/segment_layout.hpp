// The node's shared segment as a wire format (SPEC §2 "Shared segment"):
// a header, then named regions, each owned by one module.
//
// mpfrun creates one segment per job on each node before it starts the ranks
// (an anonymous memfd: nothing of it can be left in /dev/shm) and passes its
// file descriptor to every rank; mpfinspect maps it read-only through
// /proc/<mpfrun pid>/fd/<fd>. Everything in it is reached by offsets from the
// segment's start, never by pointers, because each process maps it at its own
// address. The version comes first so that a reader of another build refuses a
// layout it does not know instead of misreading it.
//
//   [SegmentHeader]   the job's identity and the table of regions
//   [region 0]        each region starts on a page boundary; its owner
//   [region 1]        declares it (shm/region.hpp: name, version, size from
//   ...               the job's geometry, initialiser) and alone knows its
//                     inside, which starts with the region's own geometry
//
// The regions of a job are listed in core/job_regions.cpp; each owner's
// layout header says what its region holds. A reader finds a region by name
// and checks its version, so a region can be added, grown or changed without
// touching any other.
//
// Memory: all-zero bytes are a valid state of everything that belongs to a
// pair of ranks (rings, cells, counters), so creating a segment writes only
// the header, each region's geometry and the per-rank blocks: the pages of a
// pair are allocated by the kernel when the pair first communicates.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpf::shm {

inline constexpr std::uint32_t kSegmentMagic = 0x5346504d;  // "MPFS", little-endian
// The version of the header and its region table; each region has its own.
inline constexpr std::uint32_t kLayoutVersion = 16;
inline constexpr std::size_t kCacheLine = 64;
// Regions start on page boundaries: a region's untouched pages cost nothing,
// and no page is shared by two regions' writers.
inline constexpr std::size_t kRegionAlign = 4096;
inline constexpr std::uint32_t kMaxRegions = 24;
inline constexpr std::size_t kRegionNameBytes = 32;

inline constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// One region of the table. Written once by the creator.
struct RegionEntry {
  char name[kRegionNameBytes];  // NUL-terminated, e.g. "shm.transport"
  std::uint32_t version;        // the region's own layout version; its owner checks it
  std::uint32_t reserved;
  std::uint64_t offset;         // from the segment's start, a multiple of kRegionAlign
  std::uint64_t bytes;
  std::uint64_t reserved2;
};
static_assert(sizeof(RegionEntry) == kCacheLine);

// Written by mpfrun before the first fork; immutable while ranks run, so
// readers need no synchronisation beyond the fork/exec itself.
struct alignas(kCacheLine) SegmentHeader {
  std::uint32_t magic;
  std::uint32_t layout_version;
  std::uint64_t segment_bytes;
  std::uint32_t nranks;
  std::uint32_t ncpus;           // CPUs the job may run on (mpfrun's affinity mask)
  std::uint32_t oversubscribed;  // 1 when nranks > ncpus: waiting ranks must block, not spin
  std::uint32_t region_count;
  std::int64_t start_unix_ns;    // when mpfrun created the job
  char jobid[32];                // NUL-terminated
  // Cache lines 2 and on: the regions, in the order of their offsets.
  alignas(kCacheLine) RegionEntry regions[kMaxRegions];
};
static_assert(offsetof(SegmentHeader, regions) == 2 * kCacheLine);
static_assert(sizeof(SegmentHeader) == (2 + kMaxRegions) * kCacheLine);
static_assert(offsetof(SegmentHeader, magic) == 0 && offsetof(SegmentHeader, layout_version) == 4,
              "magic and version must stay first: every reader checks them before anything else");

}  // namespace mpf::shm
