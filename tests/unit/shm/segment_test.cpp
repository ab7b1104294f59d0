// Unit tests of the node's shared segment (lib/shm/segment.{hpp,cpp} and its wire
// format, lib/shm/segment_layout.hpp): creation, the header checks of attach_fd()
// and open_of_process(), and sharing across descriptors and processes.
#include "shm/packet.hpp"
#include "shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/tunables.hpp"

namespace mpf::shm {
namespace {

using ::testing::HasSubstr;

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::int64_t now_unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Segment::Geometry geometry(std::uint32_t nranks, std::uint32_t ncpus = 8,
                           std::string tunables_json = R"({"unit":"test"})") {
  return {nranks, ncpus, "unit-segment", std::move(tunables_json)};
}

// A descriptor the test owns; closed on destruction unless released.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

bool fd_is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// A memfd of `bytes` bytes holding `contents` at its start: a segment as a
// foreign, broken or future writer might have left it.
UniqueFd crafted_memfd(std::size_t bytes, const void* contents, std::size_t contents_bytes) {
  UniqueFd fd(::memfd_create("mpf-unit-crafted", MFD_CLOEXEC));
  if (fd.get() < 0) ADD_FAILURE() << "memfd_create: " << std::strerror(errno);
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    ADD_FAILURE() << "ftruncate: " << std::strerror(errno);
  }
  if (contents_bytes > 0 &&
      ::pwrite(fd.get(), contents, contents_bytes, 0) != static_cast<ssize_t>(contents_bytes)) {
    ADD_FAILURE() << "pwrite: " << std::strerror(errno);
  }
  return fd;
}

// The header of a valid segment for `nranks`, copied out so that a test can damage it.
SegmentHeader valid_header(std::uint32_t nranks) {
  Segment real = Segment::create(geometry(nranks));
  return real.header();
}

// The message of the SegmentError attach_fd() throws for `fd`, or "" if it accepts.
std::string attach_error(int fd) {
  try {
    Segment s = Segment::attach_fd(fd);
  } catch (const SegmentError& e) {
    return e.what();
  }
  return "";
}

// The permissions ("rw-s", "r--s") of the mapping in /proc/self/maps that holds `address`.
std::string mapping_permissions(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    const auto dash = range.find('-');
    const std::uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (a >= lo && a < hi) return perms;
  }
  return "";
}

TEST(Segment, CreateFillsTheHeader) {
  const std::int64_t before = now_unix_ns();
  Segment s = Segment::create(geometry(4, 8));
  const std::int64_t after = now_unix_ns();
  const SegmentHeader& h = s.header();

  EXPECT_EQ(h.magic, kSegmentMagic);
  EXPECT_EQ(h.layout_version, kLayoutVersion);
  EXPECT_EQ(h.nranks, 4u);
  EXPECT_EQ(h.ncpus, 8u);
  EXPECT_EQ(h.oversubscribed, 0u);
  EXPECT_EQ(h.segment_bytes, s.bytes());
  EXPECT_EQ(s.bytes(), Segment::required_bytes(geometry(4, 8)));
  EXPECT_STREQ(h.jobid, "unit-segment");
  EXPECT_GE(h.start_unix_ns, before);
  EXPECT_LE(h.start_unix_ns, after);

  // The layout of the comment in segment_layout.hpp: header, rank blocks,
  // inboxes, rings, eager pools, collective slots, collective cells and
  // their acks, split copies, tunables, each after the one before.
  EXPECT_EQ(h.rank_control_offset, sizeof(SegmentHeader));
  EXPECT_EQ(h.rank_control_offset % kCacheLine, 0u);
  EXPECT_EQ(h.rank_control_stride, sizeof(RankControl));
  EXPECT_EQ(h.inbox_offset, h.rank_control_offset + 4 * h.rank_control_stride);
  EXPECT_GE(h.rings_offset, h.inbox_offset + 4 * h.inbox_stride);
  EXPECT_GE(h.eager_offset, h.rings_offset + 16 * h.ring_stride);
  EXPECT_EQ(h.coll_offset, h.eager_offset + 4 * h.eager_pool_stride);
  EXPECT_EQ(h.coll_offset % kCacheLine, 0u);
  EXPECT_GE(h.coll_stride, sizeof(CollSlot) + h.coll_bytes);
  EXPECT_EQ(h.cells_offset, h.coll_offset + 4 * h.coll_stride);
  EXPECT_EQ(h.cell_bytes % kCacheLine, 0u);
  EXPECT_GE(h.cell_bytes, sizeof(MailCell));
  EXPECT_EQ(h.cell_acks_offset, h.cells_offset + 16 * kCellsPerPair * h.cell_bytes);
  // Each receiver's row of 4 acks is padded to a cache line of its own.
  EXPECT_EQ(h.splits_offset, h.cell_acks_offset + 4 * kCacheLine);
  EXPECT_EQ(h.splits_offset % kCacheLine, 0u);
  EXPECT_EQ(h.board_offset, h.splits_offset + 16 * kSplitsPerPair * sizeof(SplitCopy));
  // The board: header, the broadcast entries, two parities of 4 rows and a
  // result row, then the stage's stamp and its data (none here).
  EXPECT_EQ(h.board_stage_bytes, 0u);
  EXPECT_EQ(h.tunables_offset,
            h.board_offset + sizeof(BoardHeader) + (kBoardEntriesMin + 2 * 5) * kBoardStride + sizeof(BoardStamp));
  EXPECT_EQ(reinterpret_cast<std::byte*>(&s.board_row(1, 4)) + kBoardStride,
            reinterpret_cast<std::byte*>(&s.board_stage()));
  EXPECT_EQ(reinterpret_cast<std::byte*>(&s.board_stage()) + sizeof(BoardStamp),
            reinterpret_cast<std::byte*>(&s.board()) + (h.tunables_offset - h.board_offset));
  EXPECT_EQ(h.ring_slots, 2u);
  EXPECT_EQ(h.eager_cells, 2u);
  EXPECT_EQ(h.tunables_bytes, std::string_view(R"({"unit":"test"})").size());
  EXPECT_LE(h.tunables_offset + h.tunables_bytes, h.segment_bytes);
}

TEST(Segment, CreatorKeepsACloseOnExecDescriptor) {
  Segment s = Segment::create(geometry(2));
  ASSERT_GE(s.fd(), 0);
  const int flags = ::fcntl(s.fd(), F_GETFD);
  ASSERT_NE(flags, -1);
  EXPECT_NE(flags & FD_CLOEXEC, 0) << "the launcher clears close-on-exec per rank, not globally";
}

TEST(Segment, OversubscribedOnlyWhenRanksExceedCpus) {
  EXPECT_EQ(Segment::create(geometry(4, 2)).header().oversubscribed, 1u);
  EXPECT_EQ(Segment::create(geometry(3, 2)).header().oversubscribed, 1u);
  EXPECT_EQ(Segment::create(geometry(2, 2)).header().oversubscribed, 0u);
  EXPECT_EQ(Segment::create(geometry(1, 2)).header().oversubscribed, 0u);
}

TEST(Segment, LongJobidIsTruncatedAndTerminated) {
  Segment::Geometry g = geometry(1);
  g.jobid = std::string(50, 'j');
  Segment s = Segment::create(g);
  EXPECT_EQ(std::string(s.header().jobid), std::string(sizeof s.header().jobid - 1, 'j'));
}

TEST(Segment, TunablesJsonRoundTrip) {
  const common::Tunables tunables = common::Tunables::defaults();
  const std::string text = tunables.to_json().dump();
  Segment s = Segment::create(geometry(3, 8, text));

  ASSERT_EQ(s.tunables_json(), text);
  const auto parsed = nlohmann::json::parse(s.tunables_json());
  EXPECT_EQ(common::Tunables::from_json(parsed).to_json(), tunables.to_json());
}

TEST(Segment, EmptyTunablesJson) {
  Segment s = Segment::create(geometry(2, 8, ""));
  EXPECT_EQ(s.header().tunables_bytes, 0u);
  EXPECT_TRUE(s.tunables_json().empty());
}

TEST(Segment, RequiredBytesIsPageRoundedAndGrowsWithRanks) {
  const std::size_t page = page_size();
  std::size_t previous = 0;
  for (std::uint32_t n = 1; n <= 256; ++n) {
    const std::size_t bytes = Segment::required_bytes(geometry(n));
    EXPECT_EQ(bytes % page, 0u) << n << " ranks";
    EXPECT_GE(bytes, sizeof(SegmentHeader) + n * sizeof(RankControl) + geometry(n).tunables_json.size())
        << n << " ranks";
    EXPECT_GE(bytes, previous) << n << " ranks";
    previous = bytes;
  }
  EXPECT_LT(Segment::required_bytes(geometry(1)), Segment::required_bytes(geometry(256)));
}

TEST(Segment, RequiredBytesGrowsWithTunables) {
  const std::size_t small = Segment::required_bytes(geometry(2, 8, "{}"));
  const std::size_t large = Segment::required_bytes(geometry(2, 8, std::string(3 * page_size(), ' ')));
  EXPECT_GT(large, small);
  EXPECT_EQ(large % page_size(), 0u);
}

TEST(Segment, BoardStageComesFromTheTunableAndIsRoundedToCacheLines) {
  const std::string sets[] = {"tuning_file=", "coll_board_stage=1000"};
  const common::Tunables tunables = common::Tunables::resolve(nullptr, sets);
  Segment s = Segment::create(Segment::geometry_for(4, 2, "unit-stage", tunables));
  const SegmentHeader& h = s.header();
  EXPECT_EQ(h.board_stage_bytes, 1000u);
  const auto* stage_data = reinterpret_cast<std::byte*>(&s.board_stage()) + sizeof(BoardStamp);
  // After the stage, the two sums of the stage's size: one piece word per
  // started kSumPieceMin bytes (one here), then the data.
  ASSERT_EQ(sum_pieces(1000), 1u);
  EXPECT_EQ(reinterpret_cast<const std::byte*>(s.board_sum(0)), stage_data + 1024);
  EXPECT_EQ(s.board_sum_data(0), stage_data + 1024 + sizeof(SumPiece));
  EXPECT_EQ(reinterpret_cast<const std::byte*>(s.board_sum(1)), s.board_sum_data(0) + 1024);
  EXPECT_EQ(s.board_sum_data(1), reinterpret_cast<const std::byte*>(s.board_sum(1)) + sizeof(SumPiece));
  EXPECT_EQ(s.board_sum_data(1) + 1024, reinterpret_cast<std::byte*>(&s.board()) + (h.tunables_offset - h.board_offset));
  EXPECT_EQ(s.board_sum(0)->state.load(), 0u);
  EXPECT_EQ(s.board_sum(1)->state.load(), 0u);
  EXPECT_EQ(sum_pieces(1u << 20), (1u << 20) / kSumPieceMin);
  EXPECT_EQ(s.board_stage().stamp.load(), 0u);
  EXPECT_EQ(s.board_stage().remaining.load(), 0u);
  // The default: 1 MiB, in the segment's size.
  const common::Tunables defaults = common::Tunables::defaults();
  EXPECT_EQ(Segment::geometry_for(4, 2, "unit-stage", defaults).board_stage_bytes, 1u << 20);
  // (Both rounded up to whole pages.) The stage and the two sums.
  EXPECT_GE(Segment::required_bytes(Segment::geometry_for(4, 2, "unit-stage", defaults)) + page_size(),
            Segment::required_bytes(Segment::geometry_for(4, 2, "unit-stage", tunables)) + 3 * ((1u << 20) - 1024));
}

TEST(Segment, BoardHasAnEntryPerRankAndAtLeastSixteen) {
  // A rank asleep until its turn in a run of rotating Bcast roots reads up
  // to nranks - 2 entries when it wakes (coll/board.hpp): the ring holds them.
  EXPECT_EQ(board_entries(2), kBoardEntriesMin);
  EXPECT_EQ(board_entries(16), kBoardEntriesMin);
  EXPECT_EQ(board_entries(17), 17u);
  EXPECT_EQ(board_entries(64), 64u);
  Segment s = Segment::create(Segment::geometry_for(64, 2, "unit-entries", common::Tunables::defaults()));
  // The rows follow the last entry, and every entry starts empty.
  EXPECT_EQ(reinterpret_cast<std::byte*>(&s.board_entry(63)) + kBoardStride,
            reinterpret_cast<std::byte*>(&s.board_row(0, 0)));
  for (std::uint32_t i = 0; i < 64; ++i) {
    EXPECT_EQ(s.board_entry(i).stamp.load(), 0u) << "entry " << i;
    EXPECT_EQ(s.board_entry(i).remaining.load(), 0u) << "entry " << i;
  }
  EXPECT_EQ(s.header().deferred_sleepers, 0u);
}

TEST(Segment, SixtyFourRanksWithDefaultTunablesTakeAFewTensOfMebibytes) {
  // SPEC §2: memory must scale; the rings, eager pools and collective
  // cells (17 MiB of 2 KiB cells, whose pages are touched only as data
  // that size moves) dominate.
  const common::Tunables defaults = common::Tunables::defaults();
  Segment s = Segment::create(Segment::geometry_for(64, 2, "unit-64", defaults));
  EXPECT_LT(s.bytes(), std::size_t{64} << 20);
  EXPECT_GT(s.bytes(), std::size_t{1} << 20);
}

TEST(Segment, TransportRegionsAreDistinctAndInsideTheMapping) {
  constexpr std::uint32_t kRanks = 5;
  Segment s = Segment::create(geometry(kRanks));
  const auto* begin = reinterpret_cast<const std::byte*>(&s.header());
  const auto* end = begin + s.bytes();
  std::set<const void*> seen;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    const auto* inbox = reinterpret_cast<const std::byte*>(s.inbox(r));
    EXPECT_TRUE(inbox >= begin && inbox + sizeof(std::uint64_t) <= end);
    EXPECT_EQ(s.inbox(r)[0].load(), 0u);
    EXPECT_TRUE(seen.insert(inbox).second);
    for (std::uint32_t peer = 0; peer < kRanks; ++peer) {
      const auto* ring = static_cast<const std::byte*>(s.ring(peer, r));
      EXPECT_TRUE(ring >= begin && ring + shm::PacketRing::bytes_for(2) <= end);
      EXPECT_TRUE(seen.insert(ring).second) << "ring " << peer << "->" << r;
    }
    for (std::uint32_t c = 0; c < 2; ++c) {
      EagerCell& cell = s.eager_cell(r, c);
      EXPECT_EQ(cell.busy.load(), 0u);
      EXPECT_EQ(s.eager_data(r, c), reinterpret_cast<std::byte*>(&cell) + sizeof(EagerCell));
      EXPECT_TRUE(s.eager_data(r, c) + 64 <= end);
      EXPECT_TRUE(seen.insert(&cell).second);
    }
  }
}

// Each receiver writes its counters of the messages it matched and of the
// cells it took, on every message. With few ranks, two receivers' rows
// fitted in one cache line, which then moved between them on every
// message both ways.
TEST(Segment, ReceiversCountersNeverShareACacheLine) {
  for (std::uint32_t ranks : {2u, 3u, 9u}) {
    Segment s = Segment::create(geometry(ranks));
    const auto line = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) / kCacheLine; };
    std::map<std::uintptr_t, std::uint32_t> writer;  // cache line -> the receiver that writes it
    for (std::uint32_t r = 0; r < ranks; ++r) {
      for (std::uint32_t sender = 0; sender < ranks; ++sender) {
        for (const void* counter : {static_cast<const void*>(&s.matched(sender, r)),
                                    static_cast<const void*>(&s.cell_ack(sender, r))}) {
          const auto [at, added] = writer.emplace(line(counter), r);
          EXPECT_EQ(at->second, r) << ranks << " ranks: receivers " << at->second << " and " << r
                                   << " write one line";
          EXPECT_EQ(s.matched(sender, r).load(), 0u);
          EXPECT_EQ(s.cell_ack(sender, r).load(), 0u);
        }
      }
    }
  }
}

TEST(Segment, RankBlocksAreDistinctAlignedAndZeroed) {
  constexpr std::uint32_t kRanks = 17;
  Segment s = Segment::create(geometry(kRanks));
  const auto* base = reinterpret_cast<const unsigned char*>(&s.header());
  std::set<const void*> seen;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    RankControl& rc = s.rank(r);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&rc);
    EXPECT_TRUE(seen.insert(bytes).second) << "rank " << r;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(bytes) % kCacheLine, 0u) << "rank " << r;
    EXPECT_EQ(static_cast<std::uint64_t>(bytes - base), s.header().rank_control_offset + r * sizeof(RankControl));
    EXPECT_LE(static_cast<std::size_t>(bytes - base) + sizeof(RankControl), s.header().tunables_offset);
    EXPECT_TRUE(std::all_of(bytes, bytes + sizeof(RankControl), [](unsigned char b) { return b == 0; }))
        << "rank " << r << " block is not zero-initialised";
    EXPECT_EQ(rc.state.load(), static_cast<std::uint32_t>(RankState::launched));
    EXPECT_EQ(rc.pid, 0);
    EXPECT_EQ(rc.abort_code.load(), 0);
    EXPECT_EQ(rc.counters.pmix_puts.load(), 0u);
  }
  // Writing one rank's block leaves its neighbours alone.
  s.rank(5).counters.finalize_ns.store(~std::uint64_t{0});
  s.rank(5).state.store(static_cast<std::uint32_t>(RankState::aborted));
  for (std::uint32_t r : {4u, 6u}) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&s.rank(r));
    EXPECT_TRUE(std::all_of(bytes, bytes + sizeof(RankControl), [](unsigned char b) { return b == 0; }))
        << "rank " << r;
  }
}

TEST(Segment, AttachToADuplicateSharesTheMemory) {
  Segment creator = Segment::create(geometry(4));
  const int dup = ::dup(creator.fd());
  ASSERT_GE(dup, 0);
  creator.rank(2).counters.pmix_gets.store(42);

  Segment rank = Segment::attach_fd(dup);
  EXPECT_FALSE(fd_is_open(dup)) << "attach_fd closes the descriptor it was given";
  EXPECT_EQ(rank.fd(), -1);
  EXPECT_NE(static_cast<const void*>(&rank.header()), static_cast<const void*>(&creator.header()))
      << "a second mapping, not the same one";
  EXPECT_EQ(rank.bytes(), creator.bytes());
  EXPECT_EQ(rank.header().nranks, 4u);
  EXPECT_EQ(rank.tunables_json(), creator.tunables_json());

  // Creator to attacher and back.
  EXPECT_EQ(rank.rank(2).counters.pmix_gets.load(), 42u);
  rank.rank(3).state.store(static_cast<std::uint32_t>(RankState::initialized));
  rank.rank(3).abort_code.store(-7);
  EXPECT_EQ(creator.rank(3).state.load(), static_cast<std::uint32_t>(RankState::initialized));
  EXPECT_EQ(creator.rank(3).abort_code.load(), -7);
}

TEST(Segment, AttachRejectsASegmentTooSmallForTheHeader) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{16}, sizeof(SegmentHeader) - 1}) {
    UniqueFd fd = crafted_memfd(bytes, nullptr, 0);
    const std::string error = attach_error(fd.get());
    EXPECT_THAT(error, HasSubstr("too small to be an MPF shared segment")) << bytes << " bytes";
    EXPECT_THAT(error, HasSubstr(std::to_string(bytes) + " bytes"));
    EXPECT_THAT(error, HasSubstr("descriptor " + std::to_string(fd.get())));
  }
}

TEST(Segment, AttachRejectsABadMagic) {
  SegmentHeader h = valid_header(2);
  h.magic = 0xdeadbeef;
  UniqueFd fd = crafted_memfd(h.segment_bytes, &h, sizeof h);
  EXPECT_THAT(attach_error(fd.get()), HasSubstr("not an MPF shared segment (bad magic number)"));

  // A file of zeroes (a memfd nobody initialised) is refused the same way.
  UniqueFd zeroes = crafted_memfd(page_size(), nullptr, 0);
  EXPECT_THAT(attach_error(zeroes.get()), HasSubstr("bad magic number"));
}

TEST(Segment, AttachRejectsAnotherLayoutVersion) {
  SegmentHeader h = valid_header(2);
  h.layout_version = kLayoutVersion + 1;
  UniqueFd fd = crafted_memfd(h.segment_bytes, &h, sizeof h);
  const std::string error = attach_error(fd.get());
  EXPECT_THAT(error, HasSubstr("layout version " + std::to_string(kLayoutVersion + 1)));
  EXPECT_THAT(error, HasSubstr("this build reads version " + std::to_string(kLayoutVersion)));
}

TEST(Segment, AttachRejectsInconsistentSizes) {
  const SegmentHeader good = valid_header(4);
  auto check = [&](const char* what, auto damage) {
    SegmentHeader h = good;
    damage(h);
    UniqueFd fd = crafted_memfd(good.segment_bytes, &h, sizeof h);
    EXPECT_THAT(attach_error(fd.get()), HasSubstr("inconsistent header")) << what;
  };
  check("segment_bytes", [](SegmentHeader& h) { h.segment_bytes += page_size(); });
  check("tunables past the end", [](SegmentHeader& h) { h.tunables_bytes = h.segment_bytes; });
  check("rank blocks past the end", [](SegmentHeader& h) { h.nranks = 1u << 20; });
  check("rank stride", [](SegmentHeader& h) { h.rank_control_stride = sizeof(RankControl) / 2; });
  check("board stage past the end", [](SegmentHeader& h) { h.board_stage_bytes = 1u << 30; });
}

// The bounds checks add offsets and sizes read from the segment; a sum that wraps
// round 2^64 must not let a region that lies outside the mapping through.
TEST(Segment, AttachRejectsOffsetsThatWrapAround) {
  const SegmentHeader good = valid_header(4);
  {
    SegmentHeader h = good;
    h.tunables_offset = ~std::uint64_t{0} - 15;  // offset + bytes wraps to a small number
    h.tunables_bytes = 32;
    UniqueFd fd = crafted_memfd(good.segment_bytes, &h, sizeof h);
    EXPECT_THAT(attach_error(fd.get()), HasSubstr("inconsistent header")) << "tunables_offset wraps";
  }
  {
    SegmentHeader h = good;
    h.rank_control_offset = ~std::uint64_t{0} - 4 * sizeof(RankControl) + 1;  // wraps to 0
    UniqueFd fd = crafted_memfd(good.segment_bytes, &h, sizeof h);
    EXPECT_THAT(attach_error(fd.get()), HasSubstr("inconsistent header")) << "rank_control_offset wraps";
  }
}

// attach_fd() closes the descriptor only once the segment is accepted; a rejected
// one is still the caller's, so that it can be reported and closed there.
TEST(Segment, AttachLeavesARejectedDescriptorOpen) {
  UniqueFd fd = crafted_memfd(16, nullptr, 0);
  EXPECT_THROW(Segment::attach_fd(fd.get()), SegmentError);
  EXPECT_TRUE(fd_is_open(fd.get()));
}

TEST(Segment, OpenOfProcessMapsReadOnlyAndSeesTheData) {
  Segment creator = Segment::create(geometry(3, 1));
  creator.rank(1).pid = 1234;
  creator.rank(1).state.store(static_cast<std::uint32_t>(RankState::finalized));

  Segment inspector = Segment::open_of_process(::getpid(), creator.fd());
  EXPECT_TRUE(fd_is_open(creator.fd())) << "the launcher's descriptor is not the inspector's to close";
  EXPECT_EQ(inspector.fd(), -1);
  EXPECT_EQ(inspector.header().nranks, 3u);
  EXPECT_EQ(inspector.header().oversubscribed, 1u);
  EXPECT_STREQ(inspector.header().jobid, "unit-segment");
  EXPECT_EQ(inspector.tunables_json(), creator.tunables_json());
  EXPECT_EQ(inspector.rank(1).pid, 1234);
  EXPECT_EQ(inspector.rank(1).state.load(), static_cast<std::uint32_t>(RankState::finalized));

  // Later writes of the job are seen too: the mapping is shared, not a copy.
  creator.rank(2).counters.pmix_fences.store(9);
  EXPECT_EQ(inspector.rank(2).counters.pmix_fences.load(), 9u);

  EXPECT_EQ(mapping_permissions(&creator.header()).substr(0, 2), "rw");
  const std::string perms = mapping_permissions(&inspector.header());
  ASSERT_EQ(perms.size(), 4u);
  EXPECT_EQ(perms.substr(0, 3), "r--") << "the inspector's mapping must not be writable";
  EXPECT_EQ(perms[3], 's') << "the inspector's mapping must be shared";
}

TEST(Segment, OpenOfProcessNamesAMissingDescriptor) {
  // A number that was just freed: no descriptor of this process has it.
  const int unused = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(unused, 0);
  ::close(unused);
  const std::string path = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(unused);
  try {
    Segment s = Segment::open_of_process(::getpid(), unused);
    FAIL() << "open_of_process accepted a closed descriptor";
  } catch (const SegmentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("open " + path));
    EXPECT_THAT(e.what(), HasSubstr(std::strerror(ENOENT)));
  }
}

TEST(Segment, OpenOfProcessChecksTheHeader) {
  UniqueFd fd = crafted_memfd(page_size(), nullptr, 0);
  try {
    Segment s = Segment::open_of_process(::getpid(), fd.get());
    FAIL() << "open_of_process accepted a segment of zeroes";
  } catch (const SegmentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd.get())));
    EXPECT_THAT(e.what(), HasSubstr("bad magic number"));
  }
}

// The real arrangement: the launcher creates the segment and forks; the rank
// attaches to its copy of the descriptor and records its life in its block.
TEST(Segment, ForkedRankWritesAreSeenByTheLauncher) {
  constexpr std::uint32_t kRank = 2;
  Segment launcher = Segment::create(geometry(4, 2));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0) << std::strerror(errno);
  if (child == 0) {
    // The child reports through its exit status only; gtest must not run here.
    int status = 0;
    try {
      Segment segment = Segment::attach_fd(::dup(launcher.fd()));
      RankControl& me = segment.rank(kRank);
      me.pid = ::getpid();
      me.state.store(static_cast<std::uint32_t>(RankState::initialized), std::memory_order_release);
      me.counters.pmix_puts.fetch_add(3, std::memory_order_relaxed);
      me.counters.pmix_gets.fetch_add(5, std::memory_order_relaxed);
      me.counters.pmix_fences.store(1, std::memory_order_relaxed);
      me.counters.init_ns.store(123456789, std::memory_order_relaxed);
      me.state.store(static_cast<std::uint32_t>(RankState::finalized), std::memory_order_release);
    } catch (...) {
      status = 1;
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the child could not attach to the segment";

  const RankControl& rc = launcher.rank(kRank);
  EXPECT_EQ(rc.pid, child);
  EXPECT_EQ(rc.state.load(std::memory_order_acquire), static_cast<std::uint32_t>(RankState::finalized));
  EXPECT_EQ(rc.counters.pmix_puts.load(), 3u);
  EXPECT_EQ(rc.counters.pmix_gets.load(), 5u);
  EXPECT_EQ(rc.counters.pmix_fences.load(), 1u);
  EXPECT_EQ(rc.counters.init_ns.load(), 123456789u);
  EXPECT_EQ(launcher.rank(kRank - 1).state.load(), static_cast<std::uint32_t>(RankState::launched));
  EXPECT_EQ(launcher.rank(kRank + 1).pid, 0);
}

TEST(Segment, MoveTransfersTheMapping) {
  Segment a = Segment::create(geometry(2));
  const void* header = &a.header();
  const int fd = a.fd();
  Segment b = std::move(a);
  EXPECT_EQ(&b.header(), header);
  EXPECT_EQ(b.fd(), fd);
  EXPECT_EQ(a.fd(), -1);  // the moved-from state is specified: empty
  EXPECT_EQ(a.bytes(), 0u);

  Segment c = Segment::create(geometry(1));
  const int replaced_fd = c.fd();
  c = std::move(b);
  EXPECT_EQ(&c.header(), header);
  EXPECT_FALSE(fd_is_open(replaced_fd)) << "move assignment releases the segment it replaces";
}

}  // namespace
}  // namespace mpf::shm
