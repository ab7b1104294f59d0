#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/system_error.hpp"
#include "common/tunables.hpp"

namespace mpf::shm {
namespace {

constexpr std::string_view kTunablesRegion = "job.tunables";
constexpr std::uint32_t kTunablesVersion = 1;

// The tunables region: the text's length, then the text (UTF-8 JSON, not
// NUL-terminated).
struct TunablesHeader {
  std::uint64_t bytes;
};

std::string tunables_text(const RegionGeometry& g) { return g.tunables.to_json().dump(); }

std::uint64_t page_size() { return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

RegionSpec Segment::tunables_spec() {
  return {kTunablesRegion, kTunablesVersion,
          [](const RegionGeometry& g) { return sizeof(TunablesHeader) + tunables_text(g).size(); },
          [](std::span<std::byte> region, const RegionGeometry& g) {
            const std::string text = tunables_text(g);
            new (region.data()) TunablesHeader{text.size()};
            std::memcpy(region.data() + sizeof(TunablesHeader), text.data(), text.size());
          }};
}

Segment::Plan Segment::plan(const RegionGeometry& g, std::span<const RegionSpec> specs) {
  if (specs.size() > kMaxRegions) {
    throw SegmentError("a segment holds at most " + std::to_string(kMaxRegions) + " regions, not " +
                       std::to_string(specs.size()));
  }
  Plan plan;
  std::uint64_t at = round_up(sizeof(SegmentHeader), kRegionAlign);
  for (const RegionSpec& spec : specs) {
    if (spec.name.empty() || spec.name.size() >= kRegionNameBytes) {
      throw SegmentError("region name '" + std::string(spec.name) + "' must have 1 to " +
                         std::to_string(kRegionNameBytes - 1) + " characters");
    }
    for (const Plan::Placed& other : plan.regions) {
      if (other.spec->name == spec.name) throw SegmentError("region " + std::string(spec.name) + " declared twice");
    }
    const std::uint64_t bytes = spec.bytes(g);
    plan.regions.push_back({&spec, at, bytes});
    at = round_up(at + bytes, kRegionAlign);
  }
  plan.bytes = round_up(at, page_size());
  return plan;
}

Segment Segment::create(const Identity& id, const RegionGeometry& g, std::span<const RegionSpec> specs) {
  const Plan layout = plan(g, specs);
  const std::size_t bytes = layout.bytes;
  const std::string name = "mpf-job-" + id.jobid;
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) {
    throw SegmentError(common::system_error_text("memfd_create", errno) + " while creating the job's shared segment");
  }
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    throw SegmentError("cannot size the shared segment to " + std::to_string(bytes) +
                       " bytes: " + common::system_error_text("ftruncate", err));
  }
  // A memfd is charged for its pages as they are allocated, so the pages
  // of pairs that never communicate cost nothing.
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    throw SegmentError(common::system_error_text("mmap of the shared segment (" + std::to_string(bytes) + " bytes)", err));
  }
  Segment segment(base, bytes, fd);

  // The memfd starts zeroed: construct the header in place, then let each
  // region's owner write what it needs (segment_layout.hpp: as little as
  // it can, so that untouched pages stay unallocated).
  auto* header = new (base) SegmentHeader{};
  header->magic = kSegmentMagic;
  header->layout_version = kLayoutVersion;
  header->segment_bytes = bytes;
  header->nranks = id.nranks;
  header->ncpus = id.ncpus;
  header->oversubscribed = id.nranks > id.ncpus ? 1 : 0;
  header->start_unix_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  std::snprintf(header->jobid, sizeof header->jobid, "%s", id.jobid.c_str());
  header->region_count = static_cast<std::uint32_t>(layout.regions.size());
  for (std::size_t i = 0; i < layout.regions.size(); ++i) {
    const Plan::Placed& placed = layout.regions[i];
    RegionEntry& entry = header->regions[i];
    std::memcpy(entry.name, placed.spec->name.data(), placed.spec->name.size());
    entry.version = placed.spec->version;
    entry.offset = placed.offset;
    entry.bytes = placed.bytes;
    placed.spec->init({segment.at(placed.offset), placed.bytes}, g);
  }
  segment.check_regions("the new shared segment");
  return segment;
}

Region Segment::region(std::string_view name, std::uint32_t version) const {
  for (const RegionEntry& e : regions()) {
    if (name != e.name) continue;
    if (e.version != version) {
      throw SegmentError("the shared segment's region " + std::string(name) + " has layout version " +
                         std::to_string(e.version) + ", this build reads version " + std::to_string(version) +
                         "; use the mpfrun and library of one MPF Toolkit installation");
    }
    return {at(e.offset), e.bytes};
  }
  throw SegmentError("the shared segment has no region " + std::string(name) +
                     "; use the mpfrun and library of one MPF Toolkit installation");
}

std::optional<Region> Segment::find_region(std::string_view name, std::uint32_t version) const {
  for (const RegionEntry& e : regions()) {
    if (name == e.name && e.version == version) return Region{at(e.offset), e.bytes};
  }
  return std::nullopt;
}

std::string_view Segment::tunables_json() const {
  const Region r = region(kTunablesRegion, kTunablesVersion);
  const TunablesHeader& h = region_header<TunablesHeader>(r, kTunablesRegion);
  if (h.bytes > r.bytes - sizeof(TunablesHeader)) {
    throw SegmentError("the shared segment's region " + std::string(kTunablesRegion) + " is inconsistent");
  }
  return {reinterpret_cast<const char*>(r.base + sizeof(TunablesHeader)), h.bytes};
}

// The table is checked entry by entry so that nothing can wrap: a damaged
// or hostile header must never make us read outside the mapping. Each
// region's owner checks the inside of its region.
void Segment::check_regions(const std::string& what) {
  const SegmentHeader& h = header();
  bool consistent = h.segment_bytes == bytes_ && h.region_count <= kMaxRegions;
  std::uint64_t end = sizeof(SegmentHeader);
  for (std::uint32_t i = 0; consistent && i < h.region_count; ++i) {
    const RegionEntry& e = h.regions[i];
    consistent = std::memchr(e.name, '\0', sizeof e.name) != nullptr && e.offset % kRegionAlign == 0 &&
                 e.offset >= end && e.offset <= bytes_ && e.bytes <= bytes_ - e.offset;
    end = e.offset + e.bytes;
  }
  if (!consistent) throw SegmentError(what + " has an inconsistent header (its regions do not fit)");
  try {
    ranks_ = RanksLayout(region(RanksLayout::kName, RanksLayout::kVersion), h.nranks);
  } catch (const SegmentError& e) {
    throw SegmentError(what + ": " + e.what());
  }
}

Segment Segment::map_checked(int fd, bool writable, const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw SegmentError(common::system_error_text("fstat of " + what, errno));
  }
  const auto bytes = static_cast<std::size_t>(st.st_size);
  if (bytes < sizeof(SegmentHeader)) {
    throw SegmentError(what + " is " + std::to_string(bytes) + " bytes, too small to be an MPF shared segment");
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
  segment.check_regions(what);
  return segment;
}

Segment Segment::attach_fd(int fd) {
  Segment segment =
      map_checked(fd, true, "the shared segment passed by mpfrun (descriptor " + std::to_string(fd) + ")");
  ::close(fd);
  return segment;
}

Segment Segment::map_of_process(pid_t pid, int fd, bool writable) {
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const int local = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (local < 0) throw SegmentError(common::system_error_text("open " + path, errno));
  try {
    Segment segment = map_checked(local, writable, path);
    ::close(local);
    return segment;
  } catch (...) {
    ::close(local);
    throw;
  }
}

bool Segment::touched(const void* p, std::size_t bytes) const {
  const std::uint64_t page = page_size();
  const auto start = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const auto end = round_up(reinterpret_cast<std::uintptr_t>(p) + bytes, page);
  std::vector<unsigned char> resident((end - start) / page);
  if (::mincore(reinterpret_cast<void*>(start), end - start, resident.data()) != 0) return true;  // cannot tell: assume so
  return std::any_of(resident.begin(), resident.end(), [](unsigned char v) { return (v & 1) != 0; });
}

std::uint64_t Segment::resident_bytes() const {
  const std::uint64_t page = page_size();
  std::vector<unsigned char> resident((bytes_ + page - 1) / page);
  if (::mincore(base_, bytes_, resident.data()) != 0) return 0;
  return static_cast<std::uint64_t>(std::count_if(resident.begin(), resident.end(),
                                                  [](unsigned char v) { return (v & 1) != 0; })) *
         page;
}

Segment::Segment(Segment&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      fd_(std::exchange(other.fd_, -1)),
      ranks_(other.ranks_) {}

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    this->~Segment();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    fd_ = std::exchange(other.fd_, -1);
    ranks_ = other.ranks_;
  }
  return *this;
}

Segment::~Segment() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace mpf::shm
