#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include "common/system_error.hpp"

namespace mpf::shm {
namespace {

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

std::size_t control_offset() { return round_up(sizeof(SegmentHeader), kCacheLine); }

}  // namespace

std::size_t Segment::required_bytes(const Geometry& g) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t tunables = control_offset() + g.nranks * sizeof(RankControl);
  return round_up(tunables + g.tunables_json.size(), page);
}

Segment Segment::create(const Geometry& g) {
  const std::size_t bytes = required_bytes(g);
  const std::string name = "mpf-job-" + g.jobid;
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) {
    throw SegmentError(common::system_error_text("memfd_create", errno) +
                       " while creating the job's shared segment");
  }
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    throw SegmentError("cannot size the shared segment to " + std::to_string(bytes) + " bytes: " +
                       common::system_error_text("ftruncate", err));
  }
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    throw SegmentError(common::system_error_text("mmap of the shared segment", err));
  }
  Segment segment(base, bytes, fd);

  // The memfd starts zeroed: construct the objects in place so that the
  // atomics begin their lifetime properly, then fill the header.
  auto* header = new (base) SegmentHeader{};
  header->magic = kSegmentMagic;
  header->layout_version = kLayoutVersion;
  header->segment_bytes = bytes;
  header->nranks = g.nranks;
  header->ncpus = g.ncpus;
  header->oversubscribed = g.nranks > g.ncpus ? 1 : 0;
  header->rank_control_offset = control_offset();
  header->rank_control_stride = sizeof(RankControl);
  header->tunables_offset = control_offset() + g.nranks * sizeof(RankControl);
  header->tunables_bytes = g.tunables_json.size();
  header->start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  std::snprintf(header->jobid, sizeof header->jobid, "%s", g.jobid.c_str());
  for (std::uint32_t r = 0; r < g.nranks; ++r) {
    new (static_cast<char*>(base) + header->rank_control_offset + r * sizeof(RankControl)) RankControl{};
  }
  std::memcpy(static_cast<char*>(base) + header->tunables_offset, g.tunables_json.data(),
              g.tunables_json.size());
  return segment;
}

Segment Segment::map_checked(int fd, bool writable, const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw SegmentError(common::system_error_text("fstat of " + what, errno));
  }
  const auto bytes = static_cast<std::size_t>(st.st_size);
  if (bytes < sizeof(SegmentHeader)) {
    throw SegmentError(what + " is " + std::to_string(bytes) +
                       " bytes, too small to be an MPF shared segment");
  }
  const int prot = writable ? PROT_READ | PROT_WRITE : PROT_READ;
  void* base = ::mmap(nullptr, bytes, prot, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    throw SegmentError(common::system_error_text("mmap of " + what, errno));
  }
  Segment segment(base, bytes, -1);
  const SegmentHeader& h = segment.header();
  if (h.magic != kSegmentMagic) {
    throw SegmentError(what + " is not an MPF shared segment (bad magic number)");
  }
  if (h.layout_version != kLayoutVersion) {
    throw SegmentError(what + " has layout version " + std::to_string(h.layout_version) +
                       ", this build reads version " + std::to_string(kLayoutVersion) +
                       "; use the mpfrun and library of one MPF Toolkit installation");
  }
  // Every check is written so that it cannot wrap: a damaged or hostile
  // header must never make us read outside the mapping.
  const bool consistent =
      h.segment_bytes == bytes && h.rank_control_stride == sizeof(RankControl) &&
      h.rank_control_offset >= sizeof(SegmentHeader) && h.rank_control_offset % kCacheLine == 0 &&
      h.rank_control_offset <= bytes && h.nranks <= (bytes - h.rank_control_offset) / h.rank_control_stride &&
      h.tunables_offset >= h.rank_control_offset + std::uint64_t{h.nranks} * h.rank_control_stride &&
      h.tunables_offset <= bytes && h.tunables_bytes <= bytes - h.tunables_offset;
  if (!consistent) throw SegmentError(what + " has an inconsistent header (sizes do not match)");
  return segment;
}

Segment Segment::attach_fd(int fd) {
  Segment segment = map_checked(fd, true, "the shared segment passed by mpfrun (descriptor " +
                                              std::to_string(fd) + ")");
  ::close(fd);
  return segment;
}

Segment Segment::open_of_process(pid_t launcher_pid, int fd) {
  const std::string path = "/proc/" + std::to_string(launcher_pid) + "/fd/" + std::to_string(fd);
  const int local = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (local < 0) {
    throw SegmentError(common::system_error_text("open " + path, errno));
  }
  try {
    Segment segment = map_checked(local, false, path);
    ::close(local);
    return segment;
  } catch (...) {
    ::close(local);
    throw;
  }
}

Segment::Segment(Segment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      fd_(std::exchange(other.fd_, -1)) {}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    this->~Segment();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Segment::~Segment() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

RankControl& Segment::rank(std::uint32_t r) const {
  const SegmentHeader& h = header();
  return *reinterpret_cast<RankControl*>(static_cast<char*>(base_) + h.rank_control_offset +
                                         r * h.rank_control_stride);
}

std::string_view Segment::tunables_json() const {
  const SegmentHeader& h = header();
  return {static_cast<const char*>(base_) + h.tunables_offset, h.tunables_bytes};
}

}  // namespace mpf::shm
