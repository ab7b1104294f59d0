// The node's conversation table (lib/conversation) in one process: several
// ranks' Table objects over one segment, and a Waker that records whom it
// wakes. Checks who gets which record, how records are held and released,
// the rules for messages nobody was connected to receive, and whom each
// step wakes; the processes' side (waiting, the API) is tests/mpf.
#include "conversation/table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "support/test_segment.hpp"

namespace mpf::conversation {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

struct RecordingWaker final : Waker {
  void wake(std::uint32_t rank) override { woken.push_back(rank); }
  std::vector<std::uint32_t> woken;
};

constexpr std::uint32_t kRanks = 4;
constexpr std::uint64_t kQueue = 4096;

class TableTest : public ::testing::Test {
 protected:
  TableTest()
      : segment_(testing::small_segment(kRanks, 8, "unit-conversations",
                                        {"mpf_conversations=3", "mpf_queue_bytes=" + std::to_string(kQueue)})),
        view_(segment_.region(kRegionName, kVersion)) {
    for (std::uint32_t r = 0; r < kRanks; ++r) tables_.push_back(std::make_unique<Table>(view_, r, waker_));
  }

  Table& rank(std::uint32_t r) { return *tables_[r]; }

  Connection open(std::uint32_t r, const char* name, std::uint8_t role) {
    Connection c;
    EXPECT_EQ(rank(r).open(name, role, c), OpenStatus::opened);
    return c;
  }

  // Sends an int from rank r on send connection c.
  void send(std::uint32_t r, const Connection& c, int value) {
    Reservation res = rank(r).try_reserve(c.conversation, sizeof value, 0);
    ASSERT_NE(res.record, nullptr);
    rank(r).copy_in(c.conversation, res, &value, sizeof value);
    rank(r).publish(c.conversation, *res.record);
  }

  // What rank r receives on connection c now, or -1.
  int receive(std::uint32_t r, Connection& c) {
    Found f = c.role == kRoleFcfs ? rank(r).take_fcfs(c.conversation, 64) : rank(r).next_broadcast(c, 64);
    if (f.what != Found::What::message) return -1;
    int value = -1;
    rank(r).copy_out(c.conversation, f, &value);
    rank(r).finish_read(c.conversation, *f.record);
    if (c.role == kRoleBroadcast) rank(r).advance(c, f);
    return value;
  }

  const Entry& entry(const Connection& c) const { return view_.entry(c.conversation); }

  shm::Segment segment_;
  TableView view_;
  RecordingWaker waker_;
  std::vector<std::unique_ptr<Table>> tables_;
};

TEST_F(TableTest, ARecordHoldsItsReadersAndTheSenderUntilPublished) {
  const Connection s = open(0, "q", kRoleSend);
  const Connection b1 = open(1, "q", kRoleBroadcast);
  const Connection b2 = open(2, "q", kRoleBroadcast);
  const Connection f = open(3, "q", kRoleFcfs);
  (void)b1, (void)b2, (void)f;
  Reservation res = rank(0).try_reserve(s.conversation, 4, 0);
  ASSERT_NE(res.record, nullptr);
  // Two BROADCAST receivers, one FCFS receiver, the sender.
  EXPECT_EQ(res.record->refs.load(), 4u);
  EXPECT_EQ(res.record->flags.load(), kForFcfs);
  int v = 7;
  rank(0).copy_in(s.conversation, res, &v, sizeof v);
  rank(0).publish(s.conversation, *res.record);
  EXPECT_EQ(res.record->refs.load(), 3u);
  EXPECT_EQ(entry(s).messages.load(), 1u);
}

TEST_F(TableTest, FcfsReceiversShareOneStreamInOrderAndTheLastReaderReleases) {
  const Connection s = open(0, "q", kRoleSend);
  Connection f1 = open(1, "q", kRoleFcfs);
  Connection f2 = open(2, "q", kRoleFcfs);
  for (int i = 0; i < 4; ++i) send(0, s, i);
  EXPECT_EQ(receive(1, f1), 0);
  EXPECT_EQ(receive(2, f2), 1);
  EXPECT_EQ(receive(2, f2), 2);
  EXPECT_EQ(receive(1, f1), 3);
  EXPECT_EQ(receive(1, f1), -1);
  EXPECT_EQ(entry(s).messages.load(), 0u);
  EXPECT_EQ(entry(s).release_pos.load(), entry(s).write_pos.load());
}

TEST_F(TableTest, AClosingBroadcastReceiverReleasesOnlyWhatItHadNotRead) {
  const Connection s = open(0, "q", kRoleSend);
  Connection b1 = open(1, "q", kRoleBroadcast);
  Connection b2 = open(2, "q", kRoleBroadcast);
  for (int i = 0; i < 3; ++i) send(0, s, i);
  EXPECT_EQ(receive(1, b1), 0);
  EXPECT_EQ(receive(1, b1), 1);
  // Rank 2 read nothing: message 0 and 1 go when it leaves, 2 stays for rank 1.
  rank(2).close(b2, true);
  EXPECT_EQ(entry(s).messages.load(), 1u);
  EXPECT_EQ(receive(1, b1), 2);
  EXPECT_EQ(entry(s).messages.load(), 0u);
}

TEST_F(TableTest, MessagesSentWithNobodyReceivingGoToTheFirstReceiverOfEitherKind) {
  const Connection s = open(0, "q", kRoleSend);
  for (int i = 0; i < 2; ++i) send(0, s, i);
  Connection b = open(1, "q", kRoleBroadcast);  // adopts both
  Connection late = open(2, "q", kRoleBroadcast);
  EXPECT_FALSE(rank(2).has_message(late));
  send(0, s, 2);
  EXPECT_EQ(receive(1, b), 0);
  EXPECT_EQ(receive(1, b), 1);
  EXPECT_EQ(receive(1, b), 2);
  EXPECT_EQ(receive(2, late), 2);
  EXPECT_EQ(entry(s).messages.load(), 0u);
}

TEST_F(TableTest, MessagesForBroadcastReceiversOnlyAreNotKeptForALaterFcfsReceiver) {
  const Connection s = open(0, "q", kRoleSend);
  Connection b = open(1, "q", kRoleBroadcast);
  send(0, s, 5);
  Connection f = open(2, "q", kRoleFcfs);
  EXPECT_FALSE(rank(2).has_message(f));
  send(0, s, 6);
  EXPECT_EQ(receive(2, f), 6);
  EXPECT_EQ(receive(1, b), 5);
  EXPECT_EQ(receive(1, b), 6);
}

TEST_F(TableTest, AJoinerAdoptsOnlyTheWaitingMessagesNotThoseOfReceiversThatLeft) {
  const Connection s = open(0, "q", kRoleSend);
  Connection b = open(1, "q", kRoleBroadcast);
  send(0, s, 1);           // for rank 1 only
  rank(1).close(b, true);  // released unread
  send(0, s, 2);           // nobody receives: waits
  Connection first = open(2, "q", kRoleBroadcast);
  EXPECT_EQ(receive(2, first), 2);
  EXPECT_EQ(receive(2, first), -1);
}

TEST_F(TableTest, ThePaperForbidsBothProtocolsInOneProcessButNotTwoConnectionsOfOne) {
  Connection c;
  open(1, "q", kRoleFcfs);
  EXPECT_EQ(rank(1).open("q", kRoleBroadcast, c), OpenStatus::mixed_protocols);
  EXPECT_EQ(rank(1).open("q", kRoleFcfs, c), OpenStatus::opened);
  EXPECT_EQ(rank(2).open("q", kRoleBroadcast, c), OpenStatus::opened);
}

TEST_F(TableTest, TheTableRunsOutAndTheLastCloseFreesAnEntryAndItsMessages) {
  const Connection a = open(0, "a", kRoleSend);
  open(0, "b", kRoleSend);
  open(0, "c", kRoleSend);
  Connection d;
  EXPECT_EQ(rank(0).open("d", kRoleSend, d), OpenStatus::table_full);
  EXPECT_EQ(view_.header().live.load(), 3u);
  send(0, a, 1);
  rank(0).close(a, true);
  EXPECT_EQ(view_.header().live.load(), 2u);
  const Connection again = open(1, "a", kRoleFcfs);  // a new conversation of that name: empty
  EXPECT_EQ(again.conversation, a.conversation);
  EXPECT_EQ(entry(again).write_pos.load(), 0u);
  EXPECT_EQ(entry(again).generation, 2u);
  EXPECT_EQ(view_.roles(a.conversation)[0].load(), 0);
  EXPECT_EQ(view_.roles(a.conversation)[1].load(), kRoleFcfs);
}

TEST_F(TableTest, AFullQueueRefusesAReservationAndAReleaseWakesTheWaitingSenders) {
  const Connection s = open(0, "q", kRoleSend);
  Connection f = open(1, "q", kRoleFcfs);
  // Each int takes a 64-byte record and 64 bytes of data.
  for (std::uint64_t i = 0; i < kQueue / 128; ++i) send(0, s, static_cast<int>(i));
  EXPECT_FALSE(rank(0).room_for(s.conversation, 4));
  EXPECT_EQ(rank(0).try_reserve(s.conversation, 4, 0).record, nullptr);
  rank(0).want(s.conversation, Waiting::senders);
  waker_.woken.clear();
  EXPECT_EQ(receive(1, f), 0);
  EXPECT_THAT(waker_.woken, ElementsAre(0u));
  EXPECT_TRUE(rank(0).room_for(s.conversation, 4));
  // The bitmap was cleared by the wake: the next release wakes nobody.
  waker_.woken.clear();
  EXPECT_EQ(receive(1, f), 1);
  EXPECT_THAT(waker_.woken, IsEmpty());
}

TEST_F(TableTest, AMessageTooLargeForAnyQueueIsDirectAndTakesOnlyItsRecord) {
  const Connection s = open(0, "q", kRoleSend);
  EXPECT_FALSE(rank(0).direct(kQueue - 64));
  EXPECT_TRUE(rank(0).direct(kQueue - 63));
  Reservation res = rank(0).try_reserve(s.conversation, 1 << 20, 0x1000);
  ASSERT_NE(res.record, nullptr);
  EXPECT_EQ(res.record->flags.load() & kDirect, kDirect);
  EXPECT_EQ(res.record->address, 0x1000u);
  EXPECT_EQ(entry(s).write_pos.load(), 64u);
}

TEST_F(TableTest, APublishedMessageWakesOneWaitingFcfsReceiverInTurnAndEveryBroadcastReceiver) {
  const Connection s = open(0, "q", kRoleSend);
  const Connection f1 = open(1, "q", kRoleFcfs);
  const Connection f2 = open(2, "q", kRoleFcfs);
  const Connection b = open(3, "q", kRoleBroadcast);
  rank(1).want(f1.conversation, Waiting::fcfs);
  rank(2).want(f2.conversation, Waiting::fcfs);
  rank(3).want(b.conversation, Waiting::broadcast);
  waker_.woken.clear();
  send(0, s, 1);
  EXPECT_THAT(waker_.woken, ElementsAre(1u, 3u));
  waker_.woken.clear();
  send(0, s, 2);
  EXPECT_THAT(waker_.woken, ElementsAre(2u));  // rank 1 was woken already; the BROADCAST waiter too
}

TEST_F(TableTest, AReceiverThatTookAMessageBeforeItWasWrittenIsWokenWhenItIs) {
  const Connection s = open(0, "q", kRoleSend);
  Connection f = open(1, "q", kRoleFcfs);
  Reservation res = rank(0).try_reserve(s.conversation, 4, 0);
  const Found taken = rank(1).take_fcfs(f.conversation, 64);
  ASSERT_EQ(taken.what, Found::What::message);
  EXPECT_EQ(taken.record->ready.load(), 0u);
  waker_.woken.clear();
  int v = 9;
  rank(0).copy_in(s.conversation, res, &v, sizeof v);
  rank(0).publish(s.conversation, *res.record);
  EXPECT_THAT(waker_.woken, ElementsAre(1u));
}

TEST_F(TableTest, ATooLongMessageStaysForTheNextReceive) {
  const Connection s = open(0, "q", kRoleSend);
  Connection f = open(1, "q", kRoleFcfs);
  send(0, s, 3);
  const Found small = rank(1).take_fcfs(f.conversation, 2);
  EXPECT_EQ(small.what, Found::What::too_long);
  EXPECT_EQ(small.record->bytes, sizeof(int));
  EXPECT_EQ(receive(1, f), 3);
}

TEST_F(TableTest, MessagesWrapAroundTheRingIntact) {
  const Connection s = open(0, "q", kRoleSend);
  Connection f = open(1, "q", kRoleFcfs);
  std::vector<unsigned char> out(1000), in(1000);
  for (int round = 0; round < 20; ++round) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(i * 7 + round);
    Reservation res = rank(0).try_reserve(s.conversation, out.size(), 0);
    ASSERT_NE(res.record, nullptr);
    rank(0).copy_in(s.conversation, res, out.data(), out.size());
    rank(0).publish(s.conversation, *res.record);
    const Found found = rank(1).take_fcfs(f.conversation, in.size());
    ASSERT_EQ(found.what, Found::What::message);
    rank(1).copy_out(f.conversation, found, in.data());
    rank(1).finish_read(f.conversation, *found.record);
    ASSERT_EQ(in, out) << "round " << round;
  }
  EXPECT_GT(entry(s).write_pos.load(), 2 * kQueue);
}

TEST_F(TableTest, FinalizeWaitsForEveryRankOfTheNodeAndTheLastWakesTheOthers) {
  for (std::uint32_t r = 0; r + 1 < kRanks; ++r) {
    rank(r).arrive_at_finalize();
    EXPECT_FALSE(rank(0).all_arrived());
  }
  waker_.woken.clear();
  rank(kRanks - 1).arrive_at_finalize();
  EXPECT_TRUE(rank(0).all_arrived());
  EXPECT_THAT(waker_.woken, ElementsAre(0u, 1u, 2u));
}

}  // namespace
}  // namespace mpf::conversation
