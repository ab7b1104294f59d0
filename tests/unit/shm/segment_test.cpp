// Unit tests of the node's shared segment (lib/shm/segment.{hpp,cpp} and its wire
// format, lib/shm/segment_layout.hpp): creation, the header checks of attach_fd()
// and open_of_process(), and sharing across descriptors and processes.
#include "progress/packet.hpp"
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
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "coll/board_layout.hpp"
#include "coll/cells_layout.hpp"
#include "conversation/layout.hpp"
#include "common/tunables.hpp"
#include "core/job_regions.hpp"
#include "shm/transport_layout.hpp"
#include "support/test_segment.hpp"

namespace mpf::shm {
namespace {

using ::testing::HasSubstr;

std::size_t page_size() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::int64_t now_unix_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

using testing::small_tunables;

Segment create(std::uint32_t nranks, std::uint32_t ncpus = 8, const common::Tunables& tunables = small_tunables(),
               std::string jobid = "unit-segment") {
  return Segment::create({nranks, ncpus, std::move(jobid)}, {nranks, ncpus, tunables}, core::job_regions());
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
  Segment real = create(nranks);
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

TEST(Segment, CreateFillsTheHeaderAndTheRegionTable) {
  const std::int64_t before = now_unix_ns();
  Segment s = create(4, 8);
  const std::int64_t after = now_unix_ns();
  const SegmentHeader& h = s.header();

  EXPECT_EQ(h.magic, kSegmentMagic);
  EXPECT_EQ(h.layout_version, kLayoutVersion);
  EXPECT_EQ(h.nranks, 4u);
  EXPECT_EQ(h.ncpus, 8u);
  EXPECT_EQ(h.oversubscribed, 0u);
  EXPECT_EQ(h.segment_bytes, s.bytes());
  const common::Tunables tunables = small_tunables();
  EXPECT_EQ(s.bytes(), Segment::plan({4, 8, tunables}, core::job_regions()).bytes);
  EXPECT_STREQ(h.jobid, "unit-segment");
  EXPECT_GE(h.start_unix_ns, before);
  EXPECT_LE(h.start_unix_ns, after);

  // One entry per declared region, in order, page-aligned, after the
  // header and one after another.
  ASSERT_EQ(s.regions().size(), core::job_regions().size());
  std::uint64_t end = sizeof(SegmentHeader);
  for (std::size_t i = 0; i < s.regions().size(); ++i) {
    const RegionEntry& e = s.regions()[i];
    const RegionSpec& spec = core::job_regions()[i];
    EXPECT_EQ(std::string_view(e.name), spec.name);
    EXPECT_EQ(e.version, spec.version);
    EXPECT_EQ(e.bytes, spec.bytes({4, 8, tunables})) << e.name;
    EXPECT_EQ(e.offset % kRegionAlign, 0u) << e.name;
    EXPECT_GE(e.offset, end) << e.name;
    end = e.offset + e.bytes;
  }
  EXPECT_LE(end, s.bytes());
  const Region transport = s.region(TransportLayout::kName, TransportLayout::kVersion);
  EXPECT_EQ(transport.bytes, s.find_region(TransportLayout::kName, TransportLayout::kVersion)->bytes);
}

TEST(Segment, RegionLookupNamesAMissingRegionAndAnotherVersion) {
  Segment s = create(2);
  EXPECT_FALSE(s.find_region("no.such", 1).has_value());
  EXPECT_FALSE(s.find_region(TransportLayout::kName, TransportLayout::kVersion + 1).has_value());
  try {
    s.region("no.such", 1);
    FAIL() << "a missing region was found";
  } catch (const SegmentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no region no.such"));
  }
  try {
    s.region(TransportLayout::kName, TransportLayout::kVersion + 1);
    FAIL() << "a region of another version was accepted";
  } catch (const SegmentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("region shm.transport has layout version"));
  }
}

// A module adds its region without changing any other: the regions before
// it keep their places and sizes, and its own is found by name.
RegionSpec test_region_spec() {
  return {"test.extra", 3, [](const RegionGeometry& g) { return std::uint64_t{100} * g.nranks; },
          [](std::span<std::byte> region, const RegionGeometry& g) {
            region[0] = static_cast<std::byte>(g.nranks);
          }};
}

TEST(Segment, ARegionAddedLeavesTheOthersAsTheyWere) {
  const common::Tunables tunables = small_tunables();
  std::vector<RegionSpec> specs(core::job_regions().begin(), core::job_regions().end());
  specs.push_back(test_region_spec());
  Segment plain = create(3, 8, tunables);
  Segment extended = Segment::create({3, 8, "unit-extended"}, {3, 8, tunables}, specs);
  ASSERT_EQ(extended.regions().size(), plain.regions().size() + 1);
  for (std::size_t i = 0; i < plain.regions().size(); ++i) {
    EXPECT_STREQ(extended.regions()[i].name, plain.regions()[i].name);
    EXPECT_EQ(extended.regions()[i].offset, plain.regions()[i].offset);
    EXPECT_EQ(extended.regions()[i].bytes, plain.regions()[i].bytes);
  }
  const Region extra = extended.region("test.extra", 3);
  EXPECT_EQ(extra.bytes, 300u);
  EXPECT_EQ(extra.base[0], std::byte{3});
  // Every layout view still reads the regions it knows.
  EXPECT_NO_THROW(TransportLayout(extended.region(TransportLayout::kName, TransportLayout::kVersion), 3));
  // A second region of the same name is refused.
  specs.push_back(test_region_spec());
  EXPECT_THROW(Segment::plan({3, 8, tunables}, specs), SegmentError);
}

// The pages of a pair of ranks are allocated when the pair first talks,
// not when the segment is created: a large job that talks little takes
// little memory.
TEST(Segment, CreationTouchesNoPairsPages) {
  const common::Tunables tunables = common::Tunables::resolve(nullptr, std::vector<std::string>{"tuning_file="});
  Segment s = create(256, 2, tunables, "unit-lazy");
  const TransportLayout transport(s.region(TransportLayout::kName, TransportLayout::kVersion), 256);
  EXPECT_GT(s.bytes(), std::uint64_t{256} * 256 * transport.ring_bytes());
  // What is in memory: the header, the per-rank blocks and each region's
  // geometry (a few pages per region), far below the rings alone.
  const std::uint64_t resident = s.resident_bytes();
  EXPECT_LT(resident, std::uint64_t{8} << 20) << "resident after creation";
  EXPECT_FALSE(s.touched(transport.ring(7, 200), transport.ring_bytes()));
  // Writing into one ring allocates its pages only.
  std::memset(transport.ring(7, 200), 1, 8);
  EXPECT_TRUE(s.touched(transport.ring(7, 200), transport.ring_bytes()));
  EXPECT_FALSE(s.touched(transport.ring(200, 7), transport.ring_bytes()));
  EXPECT_LE(s.resident_bytes(), resident + 2 * page_size());
}

TEST(Segment, CreatorKeepsACloseOnExecDescriptor) {
  Segment s = create(2);
  ASSERT_GE(s.fd(), 0);
  const int flags = ::fcntl(s.fd(), F_GETFD);
  ASSERT_NE(flags, -1);
  EXPECT_NE(flags & FD_CLOEXEC, 0) << "the launcher clears close-on-exec per rank, not globally";
}

TEST(Segment, OversubscribedOnlyWhenRanksExceedCpus) {
  EXPECT_EQ(create(4, 2).header().oversubscribed, 1u);
  EXPECT_EQ(create(3, 2).header().oversubscribed, 1u);
  EXPECT_EQ(create(2, 2).header().oversubscribed, 0u);
  EXPECT_EQ(create(1, 2).header().oversubscribed, 0u);
}

TEST(Segment, LongJobidIsTruncatedAndTerminated) {
  Segment s = create(1, 8, small_tunables(), std::string(50, 'j'));
  EXPECT_EQ(std::string(s.header().jobid), std::string(sizeof s.header().jobid - 1, 'j'));
}

TEST(Segment, TunablesJsonRoundTrip) {
  const common::Tunables tunables = small_tunables({"short_limit=40"});
  Segment s = create(3, 8, tunables);
  ASSERT_EQ(s.tunables_json(), tunables.to_json().dump());
  const auto parsed = nlohmann::json::parse(s.tunables_json());
  EXPECT_EQ(common::Tunables::from_json(parsed).to_json(), tunables.to_json());
}

TEST(Segment, SizeIsPageRoundedAndGrowsWithRanks) {
  const common::Tunables tunables = small_tunables();
  std::uint64_t previous = 0;
  for (std::uint32_t n = 1; n <= 256; n += 15) {
    const std::uint64_t bytes = Segment::plan({n, 8, tunables}, core::job_regions()).bytes;
    EXPECT_EQ(bytes % page_size(), 0u) << n << " ranks";
    EXPECT_GE(bytes, sizeof(SegmentHeader) + n * sizeof(RankControl)) << n << " ranks";
    EXPECT_GT(bytes, previous) << n << " ranks";
    previous = bytes;
  }
}

TEST(Segment, SixtyFourRanksWithDefaultTunablesMapAFewTensOfMebibytesBesidesConversationQueues) {
  // SPEC §2: memory must scale. The rings and pools dominate; their pages
  // are allocated as the ranks use them. The MPF conversations' queues
  // (mpf_conversations x mpf_queue_bytes) do not grow with the job, and a
  // queue's pages are allocated as it fills and given back when its
  // conversation ends.
  const common::Tunables defaults = common::Tunables::resolve(nullptr, std::vector<std::string>{"tuning_file="});
  Segment s = create(64, 2, defaults, "unit-64");
  const std::uint64_t queues = s.region(conversation::kRegionName, conversation::kVersion).bytes;
  EXPECT_GE(queues, static_cast<std::uint64_t>(defaults.integer(common::Tunable::mpf_conversations) *
                                               defaults.integer(common::Tunable::mpf_queue_bytes)));
  EXPECT_LT(s.bytes() - queues, std::size_t{64} << 20);
  EXPECT_GT(s.bytes() - queues, std::size_t{1} << 20);
}

TEST(Segment, ATooLargeJobIsRefusedInOneLineNamingItsNeedAndTheTunable) {
  const common::Tunables defaults = common::Tunables::resolve(nullptr, std::vector<std::string>{"tuning_file="});
  try {
    core::create_job_segment(100000, 2, "unit-huge", defaults);
    FAIL() << "a job of 100000 ranks was given a segment";
  } catch (const core::JobTooLargeError& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.find('\n'), std::string::npos) << text;
    EXPECT_THAT(text, HasSubstr("a job of 100000 ranks on this node needs up to"));
    EXPECT_THAT(text, HasSubstr("TiB of shared memory"));
    EXPECT_THAT(text, HasSubstr("is available"));
    EXPECT_THAT(text, HasSubstr("ring_slots"));
  }
}

TEST(Segment, TransportRegionsAreDistinctAndInsideTheMapping) {
  constexpr std::uint32_t kRanks = 5;
  Segment s = create(kRanks);
  const TransportLayout t(s.region(TransportLayout::kName, TransportLayout::kVersion), kRanks);
  EXPECT_EQ(t.ring_slots(), 2u);
  EXPECT_EQ(t.eager_cells(), 2u);
  const auto* begin = reinterpret_cast<const std::byte*>(&s.header());
  const auto* end = begin + s.bytes();
  std::set<const void*> seen;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    const auto* inbox = reinterpret_cast<const std::byte*>(t.inbox(r));
    EXPECT_TRUE(inbox >= begin && inbox + sizeof(std::uint64_t) <= end);
    EXPECT_EQ(t.inbox(r)[0].load(), 0u);
    EXPECT_TRUE(seen.insert(inbox).second);
    for (std::uint32_t peer = 0; peer < kRanks; ++peer) {
      const auto* ring = static_cast<const std::byte*>(t.ring(peer, r));
      EXPECT_TRUE(ring >= begin && ring + PacketRing::bytes_for(2) <= end);
      EXPECT_TRUE(seen.insert(ring).second) << "ring " << peer << "->" << r;
    }
    for (std::uint32_t c = 0; c < 4; ++c) {
      EagerCell& cell = t.eager_cell(r, c);
      EXPECT_EQ(cell.busy.load(), 0u);
      EXPECT_EQ(t.eager_data(r, c), reinterpret_cast<std::byte*>(&cell) + sizeof(EagerCell));
      EXPECT_TRUE(t.eager_data(r, c) + 64 <= end);
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
    Segment s = create(ranks);
    const TransportLayout t(s.region(TransportLayout::kName, TransportLayout::kVersion), ranks);
    const coll::CellsLayout cells(s.region(coll::CellsLayout::kName, coll::CellsLayout::kVersion), ranks);
    const auto line = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) / kCacheLine; };
    std::map<std::uintptr_t, std::uint32_t> writer;  // cache line -> the receiver that writes it
    for (std::uint32_t r = 0; r < ranks; ++r) {
      for (std::uint32_t sender = 0; sender < ranks; ++sender) {
        for (const void* counter : {static_cast<const void*>(&t.matched(sender, r)),
                                    static_cast<const void*>(&cells.ack(sender, r))}) {
          const auto [at, added] = writer.emplace(line(counter), r);
          EXPECT_EQ(at->second, r) << ranks << " ranks: receivers " << at->second << " and " << r
                                   << " write one line";
        }
        EXPECT_EQ(t.matched(sender, r).load(), 0u);
        EXPECT_EQ(cells.ack(sender, r).load(), 0u);
      }
    }
  }
}

TEST(Segment, RankBlocksAreDistinctAlignedAndZeroed) {
  constexpr std::uint32_t kRanks = 17;
  Segment s = create(kRanks);
  std::set<const void*> seen;
  for (std::uint32_t r = 0; r < kRanks; ++r) {
    RankControl& rc = s.rank(r);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&rc);
    EXPECT_TRUE(seen.insert(bytes).second) << "rank " << r;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(bytes) % kCacheLine, 0u) << "rank " << r;
    if (r > 0) {
      EXPECT_EQ(bytes, reinterpret_cast<const unsigned char*>(&s.rank(r - 1)) + sizeof(RankControl));
    }
    EXPECT_TRUE(std::all_of(bytes, bytes + sizeof(RankControl), [](unsigned char b) { return b == 0; }))
        << "rank " << r << " block is not zero-initialised";
    EXPECT_EQ(rc.state.load(), static_cast<std::uint32_t>(RankState::launched));
    EXPECT_EQ(rc.pid, 0);
    EXPECT_NE(static_cast<void*>(&s.introspection(r)), static_cast<void*>(&rc));
  }
  // Writing one rank's block leaves its neighbours alone.
  s.rank(5).counters.finalize_ns.store(~std::uint64_t{0});
  s.rank(5).state.store(static_cast<std::uint32_t>(RankState::aborted));
  for (std::uint32_t r : {4u, 6u}) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&s.rank(r));
    EXPECT_TRUE(std::all_of(bytes, bytes + sizeof(RankControl), [](unsigned char b) { return b == 0; }))
        << "rank " << r;
  }
  EXPECT_EQ(s.ranks().waiting().deferred_sleepers, 0u);
}

TEST(Segment, AttachToADuplicateSharesTheMemory) {
  Segment creator = create(4);
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
  check("too many regions", [](SegmentHeader& h) { h.region_count = kMaxRegions + 1; });
  check("a region past the end", [](SegmentHeader& h) { h.regions[1].bytes = h.segment_bytes; });
  check("a region not page-aligned", [](SegmentHeader& h) { h.regions[1].offset += 64; });
  check("regions overlapping", [](SegmentHeader& h) { h.regions[2].offset = h.regions[1].offset; });
  check("a name without its end", [](SegmentHeader& h) { std::memset(h.regions[0].name, 'x', kRegionNameBytes); });
}

// The bounds checks add offsets and sizes read from the segment; a sum that wraps
// round 2^64 must not let a region that lies outside the mapping through.
TEST(Segment, AttachRejectsOffsetsThatWrapAround) {
  const SegmentHeader good = valid_header(4);
  SegmentHeader h = good;
  const std::uint32_t last = h.region_count - 1;
  h.regions[last].offset = ~std::uint64_t{0} - (kRegionAlign - 1);  // offset + bytes wraps to a small number
  h.regions[last].bytes = 2 * kRegionAlign;
  UniqueFd fd = crafted_memfd(good.segment_bytes, &h, sizeof h);
  EXPECT_THAT(attach_error(fd.get()), HasSubstr("inconsistent header"));
}

// A region's owner checks the inside of its region: a geometry that does
// not fit is refused before anything is read through it.
TEST(Segment, LayoutViewsRejectARegionWhoseGeometryDoesNotFit) {
  Segment s = create(4);
  const Region transport = s.region(TransportLayout::kName, TransportLayout::kVersion);
  EXPECT_THROW(TransportLayout(transport, 5), SegmentError) << "another rank count";
  EXPECT_THROW(TransportLayout(Region{transport.base, transport.bytes / 2}, 4), SegmentError) << "a short region";
  EXPECT_THROW(coll::BoardLayout(Region{s.region(coll::BoardLayout::kName, coll::BoardLayout::kVersion).base, 64}, 4),
               SegmentError);
  EXPECT_THROW(RanksLayout(s.region(RanksLayout::kName, RanksLayout::kVersion), 3), SegmentError);
}

// attach_fd() closes the descriptor only once the segment is accepted; a rejected
// one is still the caller's, so that it can be reported and closed there.
TEST(Segment, AttachLeavesARejectedDescriptorOpen) {
  UniqueFd fd = crafted_memfd(16, nullptr, 0);
  EXPECT_THROW(Segment::attach_fd(fd.get()), SegmentError);
  EXPECT_TRUE(fd_is_open(fd.get()));
}

TEST(Segment, OpenOfProcessMapsReadOnlyAndSeesTheData) {
  Segment creator = create(3, 1);
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
  Segment launcher = create(4, 2);
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
  Segment a = create(2);
  const void* header = &a.header();
  const int fd = a.fd();
  Segment b = std::move(a);
  EXPECT_EQ(&b.header(), header);
  EXPECT_EQ(b.fd(), fd);
  EXPECT_EQ(a.fd(), -1);  // the moved-from state is specified: empty
  EXPECT_EQ(a.bytes(), 0u);

  Segment c = create(1);
  const int replaced_fd = c.fd();
  c = std::move(b);
  EXPECT_EQ(&c.header(), header);
  EXPECT_FALSE(fd_is_open(replaced_fd)) << "move assignment releases the segment it replaces";
}

}  // namespace
}  // namespace mpf::shm
