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

#include <nlohmann/json.hpp>
#include <utility>

#include "common/system_error.hpp"
#include "shm/packet.hpp"

namespace mpf::shm {
namespace {

std::uint64_t board_bytes(std::uint64_t nranks, std::uint64_t stage_bytes) {
  return board_sums_offset(nranks, stage_bytes) + 2 * board_sum_stride(stage_bytes);
}

// Offsets of every region, derived from the geometry in one place.
struct Regions {
  std::size_t control, inbox, inbox_stride, introspection, introspection_stride, credits, rings, ring_stride,
      eager, eager_pool_stride, cell_stride, coll, coll_stride, cells, cell_bytes, cell_acks, splits, board, tunables, total;
};

Regions regions_for(const Segment::Geometry& g) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  Regions r{};
  r.control = round_up(sizeof(SegmentHeader), kCacheLine);
  r.inbox = r.control + g.nranks * sizeof(RankControl);
  r.inbox_stride = round_up(inbox_words(g.nranks) * sizeof(std::uint64_t), kCacheLine);
  r.introspection = r.inbox + g.nranks * r.inbox_stride;
  r.introspection_stride = sizeof(Introspection);
  r.credits = round_up(r.introspection + g.nranks * r.introspection_stride, kCacheLine);
  r.rings = round_up(r.credits + g.nranks * counter_row_bytes(g.nranks), page);
  r.ring_stride = round_up(PacketRing::bytes_for(g.ring_slots), kCacheLine);
  r.eager = round_up(r.rings + std::size_t{g.nranks} * g.nranks * r.ring_stride, page);
  r.cell_stride = eager_cell_stride(g.eager_cell_bytes);
  r.eager_pool_stride = g.eager_cells * r.cell_stride + g.eager_small_cells * kSmallCellStride;
  r.coll = r.eager + g.nranks * r.eager_pool_stride;
  r.coll_stride = sizeof(CollSlot) + round_up(g.coll_bytes, kCacheLine);
  r.cells = r.coll + g.nranks * r.coll_stride;
  r.cell_bytes = round_up(offsetof(MailCell, data) + g.cell_data_bytes, kCacheLine);
  r.cell_acks = r.cells + std::size_t{g.nranks} * g.nranks * kCellsPerPair * r.cell_bytes;
  r.splits = r.cell_acks + g.nranks * counter_row_bytes(g.nranks);
  r.board = r.splits + std::size_t{g.nranks} * g.nranks * kSplitsPerPair * sizeof(SplitCopy);
  r.tunables = r.board + board_bytes(g.nranks, g.board_stage_bytes);
  r.total = round_up(r.tunables + g.tunables_json.size(), page);
  return r;
}

}  // namespace

Segment::Geometry Segment::geometry_for(std::uint32_t nranks, std::uint32_t ncpus, std::string jobid,
                                        const common::Tunables& t) {
  Geometry g;
  g.nranks = nranks;
  g.ncpus = ncpus;
  g.jobid = std::move(jobid);
  g.tunables_json = t.to_json().dump();
  g.ring_slots = static_cast<std::uint32_t>(t.integer(common::Tunable::ring_slots));
  g.eager_cells = static_cast<std::uint32_t>(t.integer(common::Tunable::eager_cells));
  g.eager_cell_bytes = static_cast<std::uint32_t>(t.integer(common::Tunable::eager_limit));
  g.eager_small_cells = static_cast<std::uint32_t>(t.integer(common::Tunable::eager_small_cells));
  g.coll_bytes = static_cast<std::uint32_t>(t.integer(common::Tunable::coll_buffer));
  g.cell_data_bytes = static_cast<std::uint32_t>(t.integer(common::Tunable::coll_short_limit));
  g.board_stage_bytes = static_cast<std::uint32_t>(t.integer(common::Tunable::coll_board_stage));
  return g;
}

std::size_t Segment::required_bytes(const Geometry& g) { return regions_for(g).total; }

Segment Segment::create(const Geometry& g) {
  const Regions regions = regions_for(g);
  const std::size_t bytes = regions.total;
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
  // atomics begin their lifetime properly (ring slots and eager payloads are
  // valid as zeros and are not touched, so no page is faulted in for them).
  auto* header = new (base) SegmentHeader{};
  header->magic = kSegmentMagic;
  header->layout_version = kLayoutVersion;
  header->segment_bytes = bytes;
  header->nranks = g.nranks;
  header->ncpus = g.ncpus;
  header->oversubscribed = g.nranks > g.ncpus ? 1 : 0;
  header->rank_control_offset = regions.control;
  header->rank_control_stride = sizeof(RankControl);
  header->tunables_offset = regions.tunables;
  header->tunables_bytes = g.tunables_json.size();
  header->start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  std::snprintf(header->jobid, sizeof header->jobid, "%s", g.jobid.c_str());
  header->inbox_offset = regions.inbox;
  header->inbox_stride = regions.inbox_stride;
  header->rings_offset = regions.rings;
  header->ring_stride = regions.ring_stride;
  header->eager_offset = regions.eager;
  header->eager_pool_stride = regions.eager_pool_stride;
  header->ring_slots = g.ring_slots;
  header->eager_cells = g.eager_cells;
  header->eager_cell_bytes = g.eager_cell_bytes;
  header->eager_small_cells = g.eager_small_cells;
  header->introspection_offset = regions.introspection;
  header->introspection_stride = regions.introspection_stride;
  header->credits_offset = regions.credits;
  header->coll_offset = regions.coll;
  header->coll_stride = regions.coll_stride;
  header->coll_bytes = g.coll_bytes;
  header->cells_offset = regions.cells;
  header->cell_bytes = static_cast<std::uint32_t>(regions.cell_bytes);
  header->cell_acks_offset = regions.cell_acks;
  header->splits_offset = regions.splits;
  header->board_offset = regions.board;
  header->board_stage_bytes = g.board_stage_bytes;
  new (&segment.board()) BoardHeader{};
  new (&segment.board_stage()) BoardStamp{};
  for (std::uint32_t parity = 0; parity < 2; ++parity) {
    for (std::uint64_t p = 0; p < sum_pieces(g.board_stage_bytes); ++p) new (segment.board_sum(parity) + p) SumPiece{};
  }
  for (std::uint32_t i = 0; i < board_entries(g.nranks); ++i) new (&segment.board_entry(i)) BoardStamp{};
  for (std::uint32_t parity = 0; parity < 2; ++parity) {
    for (std::uint32_t r = 0; r <= g.nranks; ++r) new (&segment.board_row(parity, r)) BoardStamp{};
  }
  for (std::uint32_t r = 0; r < g.nranks; ++r) {
    new (segment.at(regions.control + r * sizeof(RankControl))) RankControl{};
    for (std::size_t w = 0; w < inbox_words(g.nranks); ++w) {
      new (segment.at(regions.inbox + r * regions.inbox_stride + w * sizeof(std::uint64_t)))
          std::atomic<std::uint64_t>{0};
    }
    for (std::uint32_t s = 0; s < g.nranks; ++s) {
      PacketRing::init(segment.ring(s, r), g.ring_slots);
    }
    for (std::uint32_t c = 0; c < g.eager_cells + g.eager_small_cells; ++c) {
      new (&segment.eager_cell(r, c)) EagerCell{};
    }
    new (&segment.introspection(r)) Introspection{};
    new (&segment.coll_slot(r)) CollSlot{};
    for (std::uint32_t sender = 0; sender < g.nranks; ++sender) {
      new (&segment.matched(sender, r)) std::atomic<std::uint64_t>{0};
      new (&segment.cell_ack(sender, r)) std::atomic<std::uint64_t>{0};
      for (std::uint32_t i = 0; i < kCellsPerPair; ++i) new (&segment.cell(sender, r, i)) MailCell{};
    }
  }
  std::memcpy(segment.at(regions.tunables), g.tunables_json.data(), g.tunables_json.size());
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
      h.tunables_offset <= bytes && h.tunables_bytes <= bytes - h.tunables_offset &&
      // Transport regions: each stride fits, then each whole region fits.
      h.ring_slots >= 2 && h.eager_cells >= 1 && h.eager_cell_bytes >= kCacheLine &&
      h.inbox_stride >= inbox_words(h.nranks) * sizeof(std::uint64_t) && h.inbox_stride <= bytes &&
      h.ring_stride >= PacketRing::bytes_for(h.ring_slots) && h.ring_stride <= bytes &&
      h.eager_pool_stride >= std::uint64_t{h.eager_cells} * (sizeof(EagerCell) + h.eager_cell_bytes) +
                                 std::uint64_t{h.eager_small_cells} * kSmallCellStride &&
      h.eager_pool_stride <= bytes && h.inbox_offset <= bytes &&
      h.nranks <= (bytes - h.inbox_offset) / std::max<std::uint64_t>(h.inbox_stride, 1) &&
      h.rings_offset <= bytes &&
      std::uint64_t{h.nranks} * h.nranks <= (bytes - h.rings_offset) / h.ring_stride &&
      h.eager_offset <= bytes && h.nranks <= (bytes - h.eager_offset) / std::max<std::uint64_t>(h.eager_pool_stride, 1) &&
      h.introspection_stride >= sizeof(Introspection) && h.introspection_stride <= bytes &&
      h.introspection_offset <= bytes && h.nranks <= (bytes - h.introspection_offset) / h.introspection_stride &&
      h.credits_offset <= bytes && h.credits_offset % kCacheLine == 0 &&
      h.nranks <= (bytes - h.credits_offset) / counter_row_bytes(h.nranks) &&
      h.coll_stride >= sizeof(CollSlot) + std::uint64_t{h.coll_bytes} && h.coll_stride <= bytes &&
      h.coll_offset % kCacheLine == 0 && h.coll_offset <= bytes &&
      h.nranks <= (bytes - h.coll_offset) / h.coll_stride &&
      h.cell_bytes >= sizeof(MailCell) && h.cell_bytes % kCacheLine == 0 && h.cells_offset % kCacheLine == 0 &&
      h.cells_offset <= bytes &&
      std::uint64_t{h.nranks} * h.nranks * kCellsPerPair <= (bytes - h.cells_offset) / h.cell_bytes &&
      h.cell_acks_offset <= bytes && h.cell_acks_offset % kCacheLine == 0 &&
      h.nranks <= (bytes - h.cell_acks_offset) / counter_row_bytes(h.nranks) &&
      h.splits_offset <= bytes && h.splits_offset % kCacheLine == 0 &&
      std::uint64_t{h.nranks} * h.nranks * kSplitsPerPair <= (bytes - h.splits_offset) / sizeof(SplitCopy) &&
      h.board_offset <= bytes && h.board_offset % kCacheLine == 0 &&
      board_bytes(h.nranks, h.board_stage_bytes) <= bytes - h.board_offset;
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

std::string_view Segment::tunables_json() const {
  const SegmentHeader& h = header();
  return {static_cast<const char*>(base_) + h.tunables_offset, h.tunables_bytes};
}

}  // namespace mpf::shm
