// A rank's eager pool: eager_cells cells of eager_limit bytes (a quarter of
// them for rendezvous chunks) and eager_small_cells cells of kSmallCellBytes,
// which small eager messages take first. Two transports of one process on
// one segment, as in transport_wake_test.cpp.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "shm/segment.hpp"
#include "shm/transport_layout.hpp"
#include "support/test_segment.hpp"
#include "wireup/routes.hpp"
#include "shm/transport.hpp"

namespace mpf::shm {
namespace {

constexpr std::uint32_t kLargeCells = 4;   // 3 for eager messages, 1 for chunks
constexpr std::uint32_t kLargeBytes = 4096;
constexpr std::uint32_t kSmallCells = 3;

Segment segment_with(std::uint32_t small_cells) {
  return testing::small_segment(2, 2, "unit-eager-cells",
                                {"eager_cells=" + std::to_string(kLargeCells), "eager_limit=" + std::to_string(kLargeBytes),
                                 "eager_small_cells=" + std::to_string(small_cells)});
}

TEST(EagerCells, EveryCellOfEveryPoolHasItsOwnBytesInsideTheSegment) {
  Segment seg = segment_with(kSmallCells);
  const TransportLayout s(seg.region(TransportLayout::kName, TransportLayout::kVersion), 2);
  EXPECT_EQ(s.eager_small_cells(), kSmallCells);
  const auto* begin = reinterpret_cast<const std::byte*>(&seg.header());
  const auto* end = begin + seg.bytes();
  // [first byte, end) of each cell with its data; none may overlap another.
  std::vector<std::pair<const std::byte*, const std::byte*>> spans;
  for (std::uint32_t r = 0; r < 2; ++r) {
    for (std::uint32_t c = 0; c < kLargeCells + kSmallCells; ++c) {
      const EagerCell& cell = s.eager_cell(r, c);
      EXPECT_EQ(cell.busy.load(), 0u) << "rank " << r << " cell " << c;
      const auto* first = reinterpret_cast<const std::byte*>(&cell);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % kCacheLine, 0u);
      EXPECT_EQ(s.eager_data(r, c), first + sizeof(EagerCell));
      const std::size_t data = c < kLargeCells ? kLargeBytes : kSmallCellBytes;
      const auto* last = first + sizeof(EagerCell) + data;
      EXPECT_TRUE(first >= begin && last <= end) << "rank " << r << " cell " << c;
      spans.emplace_back(first, last);
    }
  }
  for (std::size_t i = 0; i < spans.size(); ++i) {
    for (std::size_t j = i + 1; j < spans.size(); ++j) {
      EXPECT_TRUE(spans[i].second <= spans[j].first || spans[j].second <= spans[i].first)
          << "cells " << i << " and " << j << " overlap";
    }
  }
}

class EagerCellsTransport : public ::testing::Test {
 protected:
  explicit EagerCellsTransport(std::uint32_t small_cells = kSmallCells)
      : segment_(segment_with(small_cells)) {
    for (std::uint32_t r = 0; r < 2; ++r) transport_[r].init(segment_, wireup::RouteTable::one_node(2, r), false);
  }
  // Rank 0's cell for an eager message of `bytes`, or -1 when none is free.
  std::int32_t take(std::uint64_t bytes) {
    transport::EagerRef cell{};
    return transport_[0].try_take_eager(1, bytes, cell) == common::Status::done ? static_cast<std::int32_t>(cell.id) : -1;
  }
  std::int32_t take_chunk() {
    transport::EagerRef cell{};
    return transport_[0].try_take_chunk(1, cell) == common::Status::done ? static_cast<std::int32_t>(cell.id) : -1;
  }
  // Rank 1 copied rank 0's cell out.
  void release(std::int32_t cell) { transport_[1].release_eager(0, {static_cast<std::uint32_t>(cell)}); }
  // Takes cells for eager messages of `bytes` until none is left.
  std::vector<std::int32_t> take_all(std::uint64_t bytes) {
    std::vector<std::int32_t> cells;
    for (std::int32_t c; (c = take(bytes)) >= 0;) cells.push_back(c);
    return cells;
  }

  Segment segment_;
  Transport transport_[2];
};

TEST_F(EagerCellsTransport, SmallMessagesTakeTheSmallCellsFirstThenTheLargeOnes) {
  const std::vector<std::int32_t> cells = take_all(kSmallCellBytes);
  ASSERT_EQ(cells.size(), kSmallCells + 3) << "3 small cells, then the 3 large cells for eager messages";
  const std::set<std::int32_t> small(cells.begin(), cells.begin() + kSmallCells);
  EXPECT_EQ(small, (std::set<std::int32_t>{4, 5, 6}));
  const std::set<std::int32_t> large(cells.begin() + kSmallCells, cells.end());
  EXPECT_EQ(large, (std::set<std::int32_t>{0, 1, 2})) << "cell 3 is for rendezvous chunks";
  EXPECT_EQ(take_chunk(), 3) << "chunks keep their own cell";
}

TEST_F(EagerCellsTransport, LargerMessagesNeverTakeASmallCell) {
  const std::vector<std::int32_t> cells = take_all(kSmallCellBytes + 1);
  EXPECT_EQ(std::set<std::int32_t>(cells.begin(), cells.end()), (std::set<std::int32_t>{0, 1, 2}));
  EXPECT_GE(take(1), 4) << "the small cells were all still free";
}

TEST_F(EagerCellsTransport, AReleasedSmallCellIsTakenAgain) {
  std::vector<std::int32_t> cells = take_all(100);
  ASSERT_EQ(cells.size(), kSmallCells + 3);
  release(cells[1]);  // the receiver copied it out
  EXPECT_EQ(take(100), cells[1]);
  EXPECT_EQ(take(100), -1);
}

class ManySmallCells : public EagerCellsTransport {
 protected:
  ManySmallCells() : EagerCellsTransport(64) {}
};

// Successive small messages go to cells at least a page apart (the CPUs'
// prefetchers stay within a page), and every cell is used in turn.
TEST_F(ManySmallCells, SuccessiveSmallMessagesTakeCellsAPageApart) {
  std::set<std::int32_t> seen;
  const std::byte* previous = nullptr;
  for (int i = 0; i < 64; ++i) {
    const std::int32_t c = take(64);
    ASSERT_GE(c, 4);
    EXPECT_TRUE(seen.insert(c).second) << "cell " << c << " taken twice";
    const std::byte* data = transport_[0].eager_data(0, {static_cast<std::uint32_t>(c)});
    if (previous != nullptr) {
      const std::ptrdiff_t distance = data > previous ? data - previous : previous - data;
      EXPECT_GE(distance, 4096) << "message " << i;
    }
    previous = data;
    release(c);
  }
}

class NoSmallCells : public EagerCellsTransport {
 protected:
  NoSmallCells() : EagerCellsTransport(0) {}
};

TEST_F(NoSmallCells, SmallMessagesTakeLargeCells) {
  const std::vector<std::int32_t> cells = take_all(8);
  EXPECT_EQ(std::set<std::int32_t>(cells.begin(), cells.end()), (std::set<std::int32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace mpf::shm
