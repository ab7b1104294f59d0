// copy_streaming (lib/common/streaming_copy.hpp) copies exactly like
// memcpy whatever the sizes and alignments (the head before the first
// 16-byte line, the whole 64-byte blocks, the tail), and writes nothing
// outside the destination; copy_out picks it or memcpy; last_level_cache_bytes reads sysfs, and
// stream_threshold turns the tunable's 0 into half of it.
#include "common/streaming_copy.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace mpf::common {
namespace {

TEST(CopyStreaming, CopiesEveryByteAtEveryAlignmentAndNothingElse) {
  constexpr std::size_t kGuard = 64;
  for (std::size_t bytes : {0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 1000, 4096, (1 << 20) + 3}) {
    for (std::size_t dst_shift : {0, 1, 8, 15}) {
      for (std::size_t src_shift : {0, 3, 16}) {
        std::vector<std::uint8_t> src(bytes + src_shift);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 1);
        std::vector<std::uint8_t> dst(bytes + dst_shift + 2 * kGuard, 0xEE);
        std::uint8_t* to = dst.data() + kGuard + dst_shift;
        copy_streaming(to, src.data() + src_shift, bytes);
        for (std::size_t i = 0; i < bytes; ++i) {
          ASSERT_EQ(to[i], src[src_shift + i]) << "byte " << i << " of " << bytes << ", dst +" << dst_shift
                                               << ", src +" << src_shift;
        }
        for (std::size_t i = 0; i < kGuard + dst_shift; ++i) ASSERT_EQ(dst[i], 0xEE) << "wrote before, " << bytes;
        for (std::size_t i = kGuard + dst_shift + bytes; i < dst.size(); ++i) {
          ASSERT_EQ(dst[i], 0xEE) << "wrote past the end, " << bytes;
        }
      }
    }
  }
}

TEST(CopyOut, CopiesEitherWayAndTakesNullForNoBytes) {
  for (bool stream : {false, true}) {
    std::vector<std::uint8_t> src(1000), dst(1000, 0);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 3 + 5);
    copy_out(dst.data() + 1, src.data(), 999, stream);
    EXPECT_EQ(dst[0], 0) << "stream " << stream;
    for (std::size_t i = 0; i < 999; ++i) ASSERT_EQ(dst[i + 1], src[i]) << "byte " << i << ", stream " << stream;
    copy_out(nullptr, nullptr, 0, stream);  // an empty share of a collective
  }
}

TEST(LastLevelCache, IsWhatSysfsSaysWhenItSaysAnything) {
  if (!std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0/size")) {
    EXPECT_EQ(last_level_cache_bytes(), 0u);
    return;
  }
  const std::uint64_t bytes = last_level_cache_bytes();
  EXPECT_GE(bytes, std::uint64_t{16} << 10) << "smaller than any L1";
  EXPECT_EQ(bytes % 1024, 0u);
  EXPECT_EQ(last_level_cache_bytes(), bytes) << "read once";
}

TEST(StreamThreshold, IsTheTunableOrHalfTheLastLevelCache) {
  EXPECT_EQ(stream_threshold(1024), 1024u);
  EXPECT_EQ(stream_threshold(std::uint64_t{1} << 40), std::uint64_t{1} << 40);
  const std::uint64_t cache = last_level_cache_bytes();
  EXPECT_EQ(stream_threshold(0), cache > 0 ? cache / 2 : std::uint64_t{16} << 20);
}

}  // namespace
}  // namespace mpf::common
