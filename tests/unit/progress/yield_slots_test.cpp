// The node's yield slots and the queue of sleepers they pass along
// (progress/yield_slots.hpp): four ranks that live in this one process, a
// place each in one segment's ranks region. A rank "sleeps" here by entering the queue
// as the engine does before its futex wait; being handed a slot shows as a
// bump of its doorbell (the futex wake finds no waiter and returns) and as
// leave_queue() saying so.
#include <gtest/gtest.h>

#include <cstdint>

#include "progress/yield_slots.hpp"
#include "shm/segment.hpp"
#include "shm/segment_layout.hpp"
#include "support/test_segment.hpp"

namespace mpf::progress {
namespace {

constexpr std::uint32_t kRanks = 4;

class YieldSlotsTest : public ::testing::Test {
 protected:
  YieldSlotsTest() : segment_(testing::small_segment(kRanks, 2, "unit-yield-slots")) {
    for (std::uint32_t r = 0; r < kRanks; ++r) slots_[r].init(segment_.ranks(), r, kRanks, 2);
  }

  std::uint32_t doorbell(std::uint32_t r) { return segment_.rank(r).doorbell.load(); }

  shm::Segment segment_;
  YieldSlots slots_[kRanks];
};

TEST_F(YieldSlotsTest, TheNodeHasAsManySlotsAsItWasGiven) {
  EXPECT_TRUE(slots_[0].enabled());
  EXPECT_TRUE(slots_[0].try_take());
  EXPECT_TRUE(slots_[1].try_take());
  EXPECT_FALSE(slots_[2].try_take()) << "a third rank took one of two slots";
  slots_[1].release();
  EXPECT_TRUE(slots_[2].try_take()) << "a released slot was not free again";
}

TEST_F(YieldSlotsTest, ASlotPassedOnWithNobodyAsleepIsFreeAgain) {
  ASSERT_TRUE(slots_[0].try_take());
  ASSERT_TRUE(slots_[1].try_take());
  slots_[0].pass_on();
  EXPECT_TRUE(slots_[2].try_take());
  EXPECT_FALSE(slots_[3].try_take());
}

TEST_F(YieldSlotsTest, ASlotGoesToTheRankThatHasSleptLongest) {
  ASSERT_TRUE(slots_[0].try_take());
  ASSERT_TRUE(slots_[1].try_take());
  slots_[3].enter_queue();
  slots_[2].enter_queue();
  const std::uint32_t before3 = doorbell(3), before2 = doorbell(2);

  slots_[0].pass_on();
  EXPECT_EQ(doorbell(3), before3 + 1) << "the longest sleeper was not woken";
  EXPECT_EQ(doorbell(2), before2) << "a later sleeper was woken";
  EXPECT_TRUE(slots_[3].leave_queue()) << "the longest sleeper does not hold the slot";
  EXPECT_FALSE(slots_[2].leave_queue());
  EXPECT_FALSE(slots_[0].try_take()) << "passing a slot on freed it as well";
}

TEST_F(YieldSlotsTest, ARankThatWokeMeanwhileIsPassedOver) {
  ASSERT_TRUE(slots_[0].try_take());
  slots_[1].enter_queue();
  EXPECT_FALSE(slots_[1].leave_queue());  // its work woke it: its first ticket is stale
  slots_[2].enter_queue();
  slots_[1].enter_queue();  // asleep again, behind rank 2
  EXPECT_FALSE(slots_[3].leave_queue()) << "a rank that never queued was promoted";

  slots_[0].pass_on();
  EXPECT_TRUE(slots_[2].leave_queue()) << "the slot went to a rank by a ticket it no longer held";
  EXPECT_FALSE(slots_[1].leave_queue());
}

TEST_F(YieldSlotsTest, TicketsOlderThanTheQueueHoldsAreSkipped) {
  ASSERT_TRUE(slots_[0].try_take());
  // Rank 1 sleeps and wakes more times than the queue has places.
  for (std::uint32_t i = 0; i < shm::kSleepTicketPlaces + 10; ++i) {
    slots_[1].enter_queue();
    EXPECT_FALSE(slots_[1].leave_queue());
  }
  slots_[2].enter_queue();
  slots_[0].pass_on();
  EXPECT_TRUE(slots_[2].leave_queue());
}

TEST_F(YieldSlotsTest, EachQueuedRankGetsAtMostOneSlot) {
  ASSERT_TRUE(slots_[0].try_take());
  ASSERT_TRUE(slots_[1].try_take());
  slots_[2].enter_queue();
  slots_[0].pass_on();
  slots_[1].pass_on();  // nobody else sleeps: this slot is freed
  EXPECT_TRUE(slots_[2].leave_queue());
  EXPECT_TRUE(slots_[3].try_take());
  EXPECT_FALSE(slots_[3].try_take());
}

TEST(YieldSlotCount, EveryRankYieldsWithFewRanksPerCpuElseYieldersPerCpu) {
  EXPECT_EQ(YieldSlots::slots_for(8, 2, 1, 4), 8u);
  EXPECT_EQ(YieldSlots::slots_for(3, 2, 1, 4), 3u);
  EXPECT_EQ(YieldSlots::slots_for(9, 2, 1, 4), 2u);
  EXPECT_EQ(YieldSlots::slots_for(64, 2, 1, 4), 2u);
  EXPECT_EQ(YieldSlots::slots_for(64, 2, 3, 4), 6u);
  EXPECT_EQ(YieldSlots::slots_for(4, 2, 1, 0), 2u) << "all_yield_per_cpu=0 turned off";
}

}  // namespace
}  // namespace mpf::progress
