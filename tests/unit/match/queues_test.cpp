// Unit tests of the matching queues (lib/match/queues.hpp): MPI's matching
// rules (source, tag, context, wildcards, oldest first) and the bounded
// unexpected pool's per-sender shares.
#include "match/queues.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace mpf::match {
namespace {

struct Receive {
  std::int32_t peer = 0;
  std::int32_t tag = 0;
  std::uint32_t context = 0;
  Receive* next = nullptr;
  Receive* prev = nullptr;
};

progress::Packet packet(progress::PacketKind kind, std::uint32_t context, std::int32_t tag, std::uint64_t bytes,
                        std::uint64_t cookie = 0) {
  progress::Packet p{};
  p.header.kind = kind;
  p.header.context = context;
  p.header.tag = tag;
  p.header.bytes = bytes;
  p.header.cookie = cookie;
  return p;
}

TEST(Matching, SourceTagAndContextMustAllMatchAndWildcardsStandForAny) {
  EXPECT_TRUE(matches(3, 7, 1, 3, 7, 1));
  EXPECT_FALSE(matches(3, 7, 1, 4, 7, 1));
  EXPECT_FALSE(matches(3, 7, 1, 3, 8, 1));
  EXPECT_FALSE(matches(3, 7, 1, 3, 7, 2)) << "contexts never match across communicators";
  EXPECT_TRUE(matches(kAny, 7, 1, 9, 7, 1));
  EXPECT_TRUE(matches(3, kAny, 1, 3, 12345, 1));
  EXPECT_TRUE(matches(kAny, kAny, 1, 0, 0, 1));
  EXPECT_FALSE(matches(kAny, kAny, 1, 0, 0, 0)) << "no wildcard for the context";
}

TEST(PostedQueue, AMessageTakesTheOldestReceiveItMatches) {
  PostedQueue<Receive> q;
  Receive specific{2, 5, 0}, any_tag{2, kAny, 0}, any_source{kAny, 5, 0}, other_context{2, 5, 1};
  q.post(&other_context);
  q.post(&any_tag);
  q.post(&specific);
  q.post(&any_source);
  EXPECT_EQ(q.take_match(2, 5, 0), &any_tag) << "posted first among those that match";
  EXPECT_EQ(q.take_match(2, 5, 0), &specific);
  EXPECT_EQ(q.take_match(2, 5, 0), &any_source);
  EXPECT_EQ(q.take_match(2, 5, 0), nullptr);
  EXPECT_EQ(q.take_match(2, 5, 1), &other_context);
  EXPECT_TRUE(q.list().empty());
}

TEST(PostedQueue, RemoveTakesAReceiveOutFromAnywhere) {
  PostedQueue<Receive> q;
  Receive a{0, 1, 0}, b{0, 1, 0}, c{0, 1, 0};
  q.post(&a);
  q.post(&b);
  q.post(&c);
  q.remove(&b);
  EXPECT_EQ(q.list().size(), 2u);
  EXPECT_EQ(q.take_match(0, 1, 0), &a);
  EXPECT_EQ(q.take_match(0, 1, 0), &c);
}

TEST(UnexpectedQueue, AReceiveFindsTheOldestMessageItMatchesAndShortDataIsKept) {
  UnexpectedQueue q(1 << 20, 4);
  progress::Packet first = packet(progress::PacketKind::short_msg, 0, 7, 5);
  std::memcpy(first.inline_data, "first", 5);
  UnexpectedMessage* m1 = q.add(first, 1, 100);
  UnexpectedMessage* m2 = q.add(packet(progress::PacketKind::short_msg, 0, 8, 0), 1, 200);
  UnexpectedMessage* m3 = q.add(packet(progress::PacketKind::rts, 0, 7, 1 << 20), 2, 300);
  EXPECT_EQ(q.find(kAny, kAny, 0), m1);
  EXPECT_EQ(q.find(1, 8, 0), m2);
  EXPECT_EQ(q.find(2, kAny, 0), m3);
  EXPECT_EQ(q.find(3, kAny, 0), nullptr);
  EXPECT_EQ(q.find(kAny, 7, 1), nullptr);
  EXPECT_EQ(std::memcmp(m1->data, "first", 5), 0);
  EXPECT_EQ(m1->arrived_ns, 100u);
  q.remove(m1);
  q.free(m1);
  EXPECT_EQ(q.find(kAny, 7, 0), m3) << "the next oldest with tag 7";
  EXPECT_EQ(q.list().size(), 2u);
}

// A message costs its sender's share its entry, and an eager message its
// data too; rendezvous envelopes cost nothing.
TEST(UnexpectedQueue, EachSenderHasAShareOfThePoolInBytesAndEnvelopesAreAlwaysTaken) {
  constexpr std::uint64_t kEager = 100;
  const std::uint64_t cost = UnexpectedQueue::cost(progress::PacketKind::eager, kEager);
  EXPECT_EQ(cost, UnexpectedQueue::kEntryBytes + kEager);
  EXPECT_EQ(UnexpectedQueue::cost(progress::PacketKind::short_msg, 80), UnexpectedQueue::kEntryBytes);
  EXPECT_EQ(UnexpectedQueue::cost(progress::PacketKind::rts, 1 << 20), 0u);
  const std::size_t pool = 4 * 16 * cost;
  UnexpectedQueue q(pool, 4);
  EXPECT_EQ(UnexpectedQueue::sender_share(pool, 4), 16 * cost);
  std::vector<UnexpectedMessage*> kept;
  for (int i = 0; i < 16; ++i) {
    ASSERT_TRUE(q.has_room_for(1, cost)) << i;
    kept.push_back(q.add(packet(progress::PacketKind::eager, 0, 0, kEager), 1, 0));
    std::memset(q.hold(kept.back()), i, kEager);
  }
  EXPECT_FALSE(q.has_room_for(1, cost)) << "sender 1 filled its share";
  EXPECT_TRUE(q.has_room_for(2, cost)) << "the others keep theirs";
  EXPECT_TRUE(q.has_room_for(1, 0)) << "a rendezvous envelope carries no data and is always taken";
  EXPECT_EQ(q.used_bytes(), 16 * cost) << "entries and the data held for them";
  EXPECT_EQ(kept[3]->held[kEager - 1], std::byte{3}) << "each message holds its own copy";
  q.remove(kept.front());
  q.free(kept.front());
  EXPECT_TRUE(q.has_room_for(1, cost)) << "a match gives the share back";
  EXPECT_EQ(q.high_water_bytes(), 16 * cost);
  // Freed memory is reused by the next message of its size.
  UnexpectedMessage* again = q.add(packet(progress::PacketKind::eager, 0, 0, kEager - 1), 1, 0);
  EXPECT_NE(q.hold(again), nullptr);
  // A large job still gives every sender a few short messages.
  EXPECT_EQ(UnexpectedQueue::sender_share(pool, 1000), 4 * UnexpectedQueue::kEntryBytes);
}

TEST(UnexpectedQueue, ASendersMessageIsFoundByItsCookie) {
  UnexpectedQueue q(1 << 20, 4);
  q.add(packet(progress::PacketKind::short_msg, 0, 1, 0, 11), 1, 0);
  UnexpectedMessage* m = q.add(packet(progress::PacketKind::short_msg, 0, 1, 0, 12), 1, 0);
  q.add(packet(progress::PacketKind::short_msg, 0, 1, 0, 12), 2, 0);
  EXPECT_EQ(q.find_sent(1, 12), m) << "cookies are per sender";
  EXPECT_EQ(q.find_sent(1, 13), nullptr);
}

}  // namespace
}  // namespace mpf::match
