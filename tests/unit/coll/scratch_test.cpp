// Scratch buffers: reused from one use to the next (no fresh pages each
// collective), best fit, and never shared between two live holders.
#include "coll/scratch.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace mpf::coll {
namespace {

TEST(Scratch, AFreedBufferIsReusedForTheNextRequestThatFits) {
  std::byte* first = nullptr;
  {
    Scratch s(64 * 1024);
    ASSERT_NE(s.data(), nullptr);
    EXPECT_EQ(s.size(), 64u * 1024);
    std::memset(s.data(), 0x5a, s.size());  // all of it is usable
    first = s.data();
  }
  Scratch again(1000);
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(again.size(), 1000u);
}

TEST(Scratch, LiveBuffersAreDistinct) {
  Scratch a(4096), b(4096), c(4096);
  EXPECT_NE(a.data(), b.data());
  EXPECT_NE(b.data(), c.data());
  EXPECT_NE(a.data(), c.data());
}

TEST(Scratch, TheSmallestCachedBufferThatFitsIsTaken) {
  std::byte* small = nullptr;
  std::byte* large = nullptr;
  {
    Scratch l(1 << 20), s(8192);
    large = l.data();
    small = s.data();
  }
  Scratch want_small(5000);
  EXPECT_EQ(want_small.data(), small);
  Scratch want_large(100000);
  EXPECT_EQ(want_large.data(), large);
}

TEST(Scratch, AnEmptyRequestHoldsNothing) {
  Scratch none(0);
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace mpf::coll
