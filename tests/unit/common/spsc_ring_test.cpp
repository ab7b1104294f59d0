// The shared-memory SPSC ring: order, full and empty, wrap-around, and a
// two-process stress test over a MAP_SHARED mapping, as the transport uses it.
#include "common/spsc_ring.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

using Ring = mpf::common::SpscRing<128>;

struct SharedMemory {
  explicit SharedMemory(std::size_t bytes) : bytes(bytes) {
    base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(base, MAP_FAILED);
  }
  ~SharedMemory() { ::munmap(base, bytes); }
  void* base;
  std::size_t bytes;
};

TEST(SpscRing, DeliversInOrderAndReportsFullAndEmpty) {
  SharedMemory mem(Ring::bytes_for(4));
  Ring::Producer tx(mem.base, 4);
  Ring::Consumer rx(mem.base, 4);
  EXPECT_EQ(rx.try_peek(), nullptr);
  for (std::uint32_t i = 0; i < 4; ++i) {
    void* slot = tx.try_claim();
    ASSERT_NE(slot, nullptr) << i;
    std::memcpy(slot, &i, sizeof i);
    tx.publish();
  }
  EXPECT_EQ(tx.try_claim(), nullptr) << "a ring of 4 holds 4";
  EXPECT_EQ(tx.in_flight(), 4u);
  for (std::uint32_t i = 0; i < 4; ++i) {
    const void* slot = rx.try_peek();
    ASSERT_NE(slot, nullptr);
    std::uint32_t v;
    std::memcpy(&v, slot, sizeof v);
    EXPECT_EQ(v, i);
    rx.next();
    rx.release();
  }
  EXPECT_EQ(rx.try_peek(), nullptr);
  EXPECT_EQ(tx.in_flight(), 0u);
}

TEST(SpscRing, SlotsComeBackOnlyWhenTheConsumerReleasesThem) {
  SharedMemory mem(Ring::bytes_for(2));
  Ring::Producer tx(mem.base, 2);
  Ring::Consumer rx(mem.base, 2);
  for (int i = 0; i < 2; ++i) {
    ASSERT_NE(tx.try_claim(), nullptr);
    tx.publish();
  }
  EXPECT_EQ(Ring::occupancy(mem.base, 2), 2u);
  EXPECT_EQ(rx.taken(), 0u);
  ASSERT_NE(rx.try_peek(), nullptr);
  rx.next();
  EXPECT_EQ(rx.taken(), 1u) << "taken() counts next(), not release()";
  ASSERT_NE(rx.try_peek(), nullptr);
  rx.next();
  EXPECT_EQ(rx.taken(), 2u);
  EXPECT_EQ(rx.try_peek(), nullptr);
  EXPECT_EQ(tx.try_claim(), nullptr) << "taken but not released: still the consumer's";
  rx.release();
  EXPECT_NE(tx.try_claim(), nullptr);
  EXPECT_EQ(Ring::occupancy(mem.base, 2), 0u);
}

TEST(SpscRing, WrapsAroundManyLapsWithTwoSlots) {
  SharedMemory mem(Ring::bytes_for(2));
  Ring::Producer tx(mem.base, 2);
  Ring::Consumer rx(mem.base, 2);
  for (std::uint64_t i = 0; i < 1000; ++i) {
    void* slot = tx.try_claim();
    ASSERT_NE(slot, nullptr);
    std::memcpy(slot, &i, sizeof i);
    tx.publish();
    if (i % 2 == 1) {
      for (std::uint64_t j = i - 1; j <= i; ++j) {
        const void* got = rx.try_peek();
        ASSERT_NE(got, nullptr);
        std::uint64_t v;
        std::memcpy(&v, got, sizeof v);
        ASSERT_EQ(v, j);
        rx.next();
        rx.release();
      }
    }
  }
}

// slot_ahead() names the slots the next claims will return, wrapping
// around the ring.
TEST(SpscRing, SlotAheadNamesTheSlotsOfTheNextClaims) {
  SharedMemory mem(Ring::bytes_for(3));
  Ring::Producer tx(mem.base, 3);
  Ring::Consumer rx(mem.base, 3);
  for (int i = 0; i < 7; ++i) {
    const void* after_next = tx.slot_ahead(1);
    const auto* next = static_cast<const std::byte*>(tx.slot_ahead(0));
    void* p = tx.try_claim();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(next + sizeof(std::uint64_t), p) << "the payload follows the slot's sequence word";
    tx.publish();
    EXPECT_EQ(tx.slot_ahead(0), after_next) << i;
    ASSERT_NE(rx.try_peek(), nullptr);
    rx.next();
    rx.release();
  }
}

TEST(SpscRing, TwoProcessStressKeepsEveryMessageInOrder) {
  constexpr std::uint64_t kMessages = 200000;
  constexpr std::uint32_t kSlots = 8;
  SharedMemory mem(Ring::bytes_for(kSlots));
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Ring::Producer tx(mem.base, kSlots);
    for (std::uint64_t i = 0; i < kMessages; ++i) {
      void* slot;
      while ((slot = tx.try_claim()) == nullptr) ::sched_yield();
      // Fill the whole payload so a torn read would show.
      std::uint64_t words[Ring::kPayloadBytes / sizeof(std::uint64_t)];
      for (auto& w : words) w = i;
      std::memcpy(slot, words, sizeof words);
      tx.publish();
    }
    ::_exit(0);
  }
  Ring::Consumer rx(mem.base, kSlots);
  std::uint64_t bad = 0;
  for (std::uint64_t i = 0; i < kMessages; ++i) {
    const void* slot;
    while ((slot = rx.try_peek()) == nullptr) ::sched_yield();
    std::uint64_t words[Ring::kPayloadBytes / sizeof(std::uint64_t)];
    std::memcpy(words, slot, sizeof words);
    for (auto w : words) bad += w != i;
    rx.next();
    rx.release();
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(bad, 0u) << "words out of order or torn";
}

}  // namespace
