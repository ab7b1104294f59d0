// The symmetric heap's allocator (symmetric/allocator.hpp): every PE must
// get the same offsets from the same calls, so it is tested as a function
// of its calls alone.
#include "symmetric/allocator.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mpf::symmetric {
namespace {

TEST(Allocator, BlocksAreAlignedAndDistinct) {
  Allocator a(1 << 20);
  const auto x = a.allocate(1);
  const auto y = a.allocate(100);
  const auto z = a.allocate(0);
  ASSERT_TRUE(x && y && z);
  EXPECT_EQ(*x, 0u);
  EXPECT_EQ(*y, 64u);
  EXPECT_EQ(*z, 64u + 128u);
  EXPECT_EQ(a.size_of(*y), 128u);
  EXPECT_EQ(a.in_use(), 64u + 128u + 64u);
  const auto page = a.allocate(10, 4096);
  ASSERT_TRUE(page);
  EXPECT_EQ(*page % 4096, 0u);
}

TEST(Allocator, FreedNeighboursMergeAndAreReused) {
  Allocator a(4096);
  const auto x = a.allocate(1024);
  const auto y = a.allocate(1024);
  const auto z = a.allocate(2048);
  ASSERT_TRUE(x && y && z);
  EXPECT_FALSE(a.allocate(1));  // full
  EXPECT_TRUE(a.release(*x));
  EXPECT_TRUE(a.release(*y));
  EXPECT_FALSE(a.release(*y));  // not a block any more
  EXPECT_EQ(a.largest_free(), 2048u);
  EXPECT_EQ(a.allocate(2048), *x);  // the merged range, first fit
}

TEST(Allocator, ResizeInPlaceOnlyIntoFreeRange) {
  Allocator a(4096);
  const auto x = a.allocate(1024);
  const auto y = a.allocate(1024);
  ASSERT_TRUE(x && y);
  EXPECT_FALSE(a.resize_in_place(*x, 2048));  // y is in the way
  EXPECT_TRUE(a.resize_in_place(*y, 3072));   // up to the end
  EXPECT_EQ(a.size_of(*y), 3072u);
  EXPECT_TRUE(a.resize_in_place(*y, 100));
  EXPECT_EQ(a.size_of(*y), 128u);
  EXPECT_EQ(a.largest_free(), 4096u - 1024u - 128u);
}

TEST(Allocator, TooLargeIsRefused) {
  Allocator a(1 << 16);
  EXPECT_FALSE(a.allocate((1 << 16) + 1));
  EXPECT_FALSE(a.allocate(UINT64_MAX));
  EXPECT_TRUE(a.allocate(1 << 16));
}

// Two allocators fed the same calls give the same offsets: what makes a
// heap object symmetric.
TEST(Allocator, SameCallsGiveSameOffsets) {
  Allocator a(1 << 24);
  Allocator b(1 << 24);
  std::mt19937_64 random(7);
  std::vector<std::uint64_t> live;
  for (int i = 0; i < 2000; ++i) {
    if (!live.empty() && random() % 3 == 0) {
      const std::size_t k = random() % live.size();
      EXPECT_TRUE(a.release(live[k]));
      EXPECT_TRUE(b.release(live[k]));
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    const std::uint64_t bytes = random() % 20000;
    const std::uint64_t alignment = std::uint64_t{1} << (random() % 13);
    const auto x = a.allocate(bytes, alignment);
    const auto y = b.allocate(bytes, alignment);
    ASSERT_EQ(x, y);
    if (x) {
      EXPECT_EQ(*x % std::max<std::uint64_t>(alignment, Allocator::kAlignment), 0u);
      live.push_back(*x);
    }
  }
}

}  // namespace
}  // namespace mpf::symmetric
