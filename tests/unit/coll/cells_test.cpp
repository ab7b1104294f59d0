// The collective cells (lib/coll/cells.hpp) between two ranks that live in
// this one process: two transports attached to one segment.
#include "coll/cells.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "shm/segment.hpp"
#include "support/test_segment.hpp"
#include "wireup/routes.hpp"
#include "shm/transport.hpp"

namespace mpf::coll {
namespace {

class CellsTest : public ::testing::Test {
 protected:
  CellsTest() : segment_(testing::small_segment(2, 2, "unit-cells")) {
    for (std::uint32_t r = 0; r < 2; ++r) {
      transport_[r].init(segment_, wireup::RouteTable::one_node(2, r), false);
      cells_[r].init(transport_[r]);
    }
  }

  // Takes the next message from `from` at `to`; empty optional-like: false.
  bool take(std::uint32_t to, std::uint32_t from, Key key, std::uint32_t step, std::string* out) {
    return cells_[to].try_take(from, key, step, [&](const std::byte* data, std::uint32_t bytes) {
      out->assign(reinterpret_cast<const char*>(data), bytes);
    });
  }

  shm::Segment segment_;
  shm::Transport transport_[2];
  Cells cells_[2];
};

const Key kKey{7, 1, 2, -1};

TEST_F(CellsTest, CapacityIsTheShortLimitOfTheGeometry) {
  // Geometry's default: 224 data bytes, a 256-byte cell.
  EXPECT_EQ(cells_[0].capacity(), 224u);
  EXPECT_EQ(CellsLayout(segment_.region(CellsLayout::kName, CellsLayout::kVersion), 2).cell_bytes(), 256u);
}

TEST_F(CellsTest, MessagesArriveInOrderWithTheirData) {
  const std::string first = "first message", second(224, 'x');
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 0, first.data(), static_cast<std::uint32_t>(first.size())));
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 1, second.data(), static_cast<std::uint32_t>(second.size())));
  std::string got;
  EXPECT_FALSE(take(1, 0, kKey, 1, &got)) << "step 1 is not the next message";
  ASSERT_TRUE(take(1, 0, kKey, 0, &got));
  EXPECT_EQ(got, first);
  ASSERT_TRUE(take(1, 0, kKey, 1, &got));
  EXPECT_EQ(got, second);
  EXPECT_FALSE(take(1, 0, kKey, 2, &got)) << "nothing more was posted";
}

TEST_F(CellsTest, ASenderWaitsForTheReceiverAfterTwoMessages) {
  const int value = 42;
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 0, &value, sizeof value));
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 1, &value, sizeof value));
  EXPECT_FALSE(cells_[0].try_post(1, kKey, 2, &value, sizeof value)) << "both cells of the pair are full";
  std::string got;
  ASSERT_TRUE(take(1, 0, kKey, 0, &got));
  EXPECT_TRUE(cells_[0].try_post(1, kKey, 2, &value, sizeof value)) << "the first cell was taken";
  // The other direction has cells of its own.
  EXPECT_TRUE(cells_[1].try_post(0, kKey, 0, &value, sizeof value));
}

TEST_F(CellsTest, ASenderLearnsWhatWasTakenFromTheMessagesComingBack) {
  const int value = 7;
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 0, &value, sizeof value));
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 1, &value, sizeof value));
  std::string got;
  ASSERT_TRUE(take(1, 0, kKey, 0, &got));
  ASSERT_TRUE(take(1, 0, kKey, 1, &got));
  ASSERT_TRUE(cells_[1].try_post(0, kKey, 0, &value, sizeof value));  // carries "took 2"
  // Hide the receiver's ack: only the message back can tell rank 0.
  CellsLayout(segment_.region(CellsLayout::kName, CellsLayout::kVersion), 2).ack(0, 1).store(0);
  ASSERT_TRUE(take(0, 1, kKey, 0, &got));
  EXPECT_TRUE(cells_[0].try_post(1, kKey, 2, &value, sizeof value));
  EXPECT_TRUE(cells_[0].try_post(1, kKey, 3, &value, sizeof value));
  EXPECT_FALSE(cells_[0].try_post(1, kKey, 4, &value, sizeof value)) << "messages 3 and 4 are not taken";
}

TEST_F(CellsTest, ASenderOutOfCellsSaysItWantsRoomAndATakeWakesIt) {
  const int value = 3;
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 0, &value, sizeof value));
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 1, &value, sizeof value));
  EXPECT_FALSE(transport_[0].room_wanted());
  ASSERT_FALSE(cells_[0].try_post(1, kKey, 2, &value, sizeof value));
  EXPECT_TRUE(transport_[0].room_wanted()) << "a post refused for room must let room wake the next sleep";

  // Rank 0 asleep for work (say, for its parent's next message): a take
  // of its message frees room only, and does not wake it.
  shm::RankControl& sender = segment_.rank(0);
  sender.sleeping.store(shm::kSleepsForWork);
  std::uint32_t before = sender.doorbell.load();
  std::string got;
  ASSERT_TRUE(take(1, 0, kKey, 0, &got));
  transport_[1].flush_wakes();
  EXPECT_EQ(sender.doorbell.load(), before);
  // Asleep for room: the take wakes it.
  sender.sleeping.store(shm::kSleepsForRoom);
  before = sender.doorbell.load();
  ASSERT_TRUE(take(1, 0, kKey, 1, &got));
  transport_[1].flush_wakes();
  EXPECT_EQ(sender.doorbell.load(), before + 1);
  sender.sleeping.store(0);
}

TEST_F(CellsTest, AMessageOfAnotherCollectiveIsNotTaken) {
  const int value = 1;
  ASSERT_TRUE(cells_[0].try_post(1, kKey, 0, &value, sizeof value));
  std::string got;
  for (Key other : {Key{8, 1, 2, -1}, Key{7, 2, 2, -1}, Key{7, 1, 3, -1}, Key{7, 1, 2, 0}}) {
    EXPECT_FALSE(take(1, 0, other, 0, &got)) << "context " << other.context << " seq " << other.seq;
  }
  EXPECT_TRUE(take(1, 0, kKey, 0, &got));
}

TEST_F(CellsTest, TakeIntoCopiesAtMostTheRoomGiven) {
  const char text[] = "abcdefgh";
  ASSERT_TRUE(cells_[1].try_post(0, kKey, 0, text, sizeof text));
  char out[4] = {};
  ASSERT_TRUE(cells_[0].try_take_into(1, kKey, 0, out, sizeof out));
  EXPECT_EQ(std::memcmp(out, "abcd", 4), 0);
}

TEST_F(CellsTest, APostLargerThanACellIsRefused) {
  const std::vector<char> big(225, 'y');
  EXPECT_THROW(cells_[0].try_post(1, kKey, 0, big.data(), static_cast<std::uint32_t>(big.size())), std::logic_error);
}

}  // namespace
}  // namespace mpf::coll
