// Creating, attaching and opening the node's shared segment (layout in
// segment_layout.hpp). mpfrun creates it, each rank attaches to the file
// descriptor mpfrun hands it, and mpfinspect opens it read-only from outside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "shm/segment_layout.hpp"

namespace mpf::shm {

class SegmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A mapping of a job's segment. Move-only: the mapping (and the descriptor, if
// this object owns one) is released on destruction.
class Segment {
 public:
  struct Geometry {
    std::uint32_t nranks;
    std::uint32_t ncpus;
    std::string jobid;
    std::string tunables_json;
  };

  // For mpfrun: an anonymous memfd sized for the job and initialised. The
  // descriptor stays open with close-on-exec set; the launcher clears that
  // flag in each rank's child process only.
  static Segment create(const Geometry& geometry);
  // Bytes a segment for this geometry needs, rounded up to whole pages.
  static std::size_t required_bytes(const Geometry& geometry);
  // For a rank: maps the segment whose descriptor mpfrun passed, checks it,
  // and closes the descriptor (the mapping keeps the memory alive).
  static Segment attach_fd(int fd);
  // For mpfinspect: maps a running job's segment read-only through
  // /proc/<pid>/fd/<fd> of its mpfrun.
  static Segment open_of_process(pid_t launcher_pid, int fd);

  Segment(Segment&& other) noexcept;
  Segment& operator=(Segment&& other) noexcept;
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;
  ~Segment();

  const SegmentHeader& header() const { return *static_cast<const SegmentHeader*>(base_); }
  RankControl& rank(std::uint32_t r) const;
  std::string_view tunables_json() const;
  int fd() const { return fd_; }
  std::size_t bytes() const { return bytes_; }

 private:
  Segment(void* base, std::size_t bytes, int fd) : base_(base), bytes_(bytes), fd_(fd) {}
  static Segment map_checked(int fd, bool writable, const std::string& what);

  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  int fd_ = -1;  // owned descriptor (creator only), -1 otherwise
};

}  // namespace mpf::shm
