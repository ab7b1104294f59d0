// Who wakes a sleeping rank (shm::SleepReason): two ranks that live in this
// one process, two transports attached to one segment. A rank "sleeps" here
// by setting its `sleeping` flag as the engine does; a wake shows as a bump
// of its doorbell (the futex wake itself finds no waiter and returns).
#include <gtest/gtest.h>

#include <cstdint>

#include "shm/segment.hpp"
#include "support/test_segment.hpp"
#include "wireup/routes.hpp"
#include "shm/transport.hpp"

namespace mpf::shm {
namespace {

class TransportWakeTest : public ::testing::Test {
 protected:
  TransportWakeTest() : segment_(testing::small_segment(2, 2, "unit-wake")) {
    for (std::uint32_t r = 0; r < 2; ++r) transport_[r].init(segment_, wireup::RouteTable::one_node(2, r), false);
  }

  std::uint32_t doorbell(std::uint32_t r) { return segment_.rank(r).doorbell.load(); }
  void sleep_as(std::uint32_t r, std::uint32_t reason) { segment_.rank(r).sleeping.store(reason); }

  // Rank 0 sends one packet to rank 1.
  void send_packet() {
    progress::Packet* p = transport_[0].try_claim(1);
    ASSERT_NE(p, nullptr);
    p->header = {progress::PacketKind::short_msg, 0, 0, 0, 0, 0, 0, 0};
    transport_[0].publish(1);
  }
  // Rank 1 takes what rank 0 sent; returns how many packets.
  std::size_t drain_at_1() {
    return transport_[1].poll([](std::uint32_t, const progress::Packet&) { return true; });
  }

  Segment segment_;
  Transport transport_[2];
};

TEST_F(TransportWakeTest, APacketWakesASleeperWhateverItWaitsFor) {
  for (std::uint32_t reason : {kSleepsForWork, kSleepsForRoom}) {
    sleep_as(1, reason);
    const std::uint32_t before = doorbell(1);
    send_packet();
    EXPECT_EQ(doorbell(1), before + 1) << "sleep reason " << reason;
    sleep_as(1, 0);
    EXPECT_EQ(drain_at_1(), 1u);
  }
}

TEST_F(TransportWakeTest, DrainingWakesTheSenderOnlyWhenItWaitsForRoom) {
  send_packet();
  sleep_as(0, kSleepsForWork);  // rank 0 waits for a message, as in a token ring
  std::uint32_t before = doorbell(0);
  EXPECT_EQ(drain_at_1(), 1u);
  EXPECT_EQ(doorbell(0), before) << "freed ring slots woke a rank that waits for work only";

  send_packet();
  sleep_as(0, kSleepsForRoom);  // rank 0 holds sends back for ring space
  before = doorbell(0);
  EXPECT_EQ(drain_at_1(), 1u);
  EXPECT_EQ(doorbell(0), before + 1) << "freed ring slots did not wake a rank that waits for room";
}

TEST_F(TransportWakeTest, AReleasedEagerBufferWakesItsOwnerOnlyWhenItWaitsForRoom) {
  transport::EagerRef cell{};
  ASSERT_EQ(transport_[0].try_take_eager(1, 8, cell), common::Status::done);
  sleep_as(0, kSleepsForWork);
  std::uint32_t before = doorbell(0);
  transport_[1].release_eager(0, cell);
  EXPECT_EQ(doorbell(0), before);

  transport::EagerRef again{};
  ASSERT_EQ(transport_[0].try_take_eager(1, 8, again), common::Status::done);
  sleep_as(0, kSleepsForRoom);
  before = doorbell(0);
  transport_[1].release_eager(0, again);
  EXPECT_EQ(doorbell(0), before + 1);
}

TEST_F(TransportWakeTest, ADeferredWakeForWorkAndRoomWakesASleeperForWork) {
  sleep_as(1, kSleepsForWork);
  std::uint32_t before = doorbell(1);
  transport_[0].wake_later_for_room(1);
  transport_[0].flush_wakes();
  EXPECT_EQ(doorbell(1), before) << "room alone woke a rank that waits for work";

  transport_[0].wake_later_for_room(1);
  transport_[0].wake_later(1);
  transport_[0].wake_later_for_room(1);
  transport_[0].flush_wakes();
  EXPECT_EQ(doorbell(1), before + 1) << "work and room due together: one wake, for work";
  transport_[0].flush_wakes();
  EXPECT_EQ(doorbell(1), before + 1) << "a flush wakes each peer once";
}

}  // namespace
}  // namespace mpf::shm
