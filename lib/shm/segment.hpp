// Creating, attaching and opening the node's shared segment (layout in
// segment_layout.hpp): a header and the regions its modules declared
// (region.hpp). mpfrun creates it, each rank attaches to the file descriptor
// mpfrun hands it, and mpfinspect opens it read-only from outside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "shm/ranks_layout.hpp"
#include "shm/region.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::shm {

// A mapping of a job's segment. Move-only: the mapping (and the descriptor, if
// this object owns one) is released on destruction.
class Segment {
 public:
  struct Identity {
    std::uint32_t nranks;
    std::uint32_t ncpus;
    std::string jobid;
  };
  // Where each region goes and how large the segment is, in whole pages.
  struct Plan {
    struct Placed {
      const RegionSpec* spec;
      std::uint64_t offset;
      std::uint64_t bytes;
    };
    std::vector<Placed> regions;
    std::uint64_t bytes = 0;
  };
  static Plan plan(const RegionGeometry& geometry, std::span<const RegionSpec> specs);

  // For mpfrun: an anonymous memfd laid out as `plan` says, each region
  // initialised. The descriptor stays open with close-on-exec set; the
  // launcher clears that flag in each rank's child process only. The specs
  // must include RanksLayout::spec() and tunables_spec().
  static Segment create(const Identity& identity, const RegionGeometry& geometry, std::span<const RegionSpec> specs);
  // For a rank: maps the segment whose descriptor mpfrun passed, checks it,
  // and closes the descriptor (the mapping keeps the memory alive).
  static Segment attach_fd(int fd);
  // For a rank of a job that mpfrun did not start: maps, read-write, the
  // segment that process `pid` (the node's first rank) created, through
  // /proc/<pid>/fd/<fd>.
  static Segment attach_of_process(pid_t pid, int fd) { return map_of_process(pid, fd, true); }
  // For mpfinspect: maps a running job's segment read-only through
  // /proc/<pid>/fd/<fd> of its mpfrun.
  static Segment open_of_process(pid_t launcher_pid, int fd) { return map_of_process(launcher_pid, fd, false); }

  // The region holding the job's resolved tunables (Tunables::to_json).
  static RegionSpec tunables_spec();

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(base_); }
  std::span<const RegionEntry> regions() const { return {header().regions, header().region_count}; }
  // The region `name`, which must have layout `version`: throws
  // SegmentError naming the region when it is missing or of another version.
  Region region(std::string_view name, std::uint32_t version) const;
  // The same, or nothing when the segment has no such region.
  std::optional<Region> find_region(std::string_view name, std::uint32_t version) const;

  // The ranks region, which every segment has.
  const RanksLayout& ranks() const { return ranks_; }
  RankControl& rank(std::uint32_t r) const { return ranks_.rank(r); }
  Introspection& introspection(std::uint32_t r) const { return ranks_.introspection(r); }
  std::string_view tunables_json() const;

  // Whether the kernel has allocated any page of [p, p + bytes) of the
  // mapping (mincore): a reader that must not allocate a pair's pages by
  // looking at them (mpfinspect) asks first.
  bool touched(const void* p, std::size_t bytes) const;
  // Bytes of the segment in memory now (allocated pages).
  std::uint64_t resident_bytes() const;

  int fd() const { return fd_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Segment(void* base, std::size_t bytes, int fd) : base_(base), bytes_(bytes), fd_(fd) {}
  static Segment map_checked(int fd, bool writable, const std::string& what);
  static Segment map_of_process(pid_t pid, int fd, bool writable);
  void check_regions(const std::string& what);
  std::byte* at(std::uint64_t offset) const { return static_cast<std::byte*>(base_) + offset; }

  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int fd_ = -1;  // owned descriptor (creator only), -1 otherwise
  RanksLayout ranks_;
};

}  // namespace mpf::shm
