// Unit tests of the progress engine (lib/progress/engine.hpp): two ranks'
// engines in this one process, driven by hand (a round of progress each in
// turn), so that every protocol, MPI's matching order, truncation, flow
// control and cancellation are checked without launching a job. The same
// tests run over both transports the engine is built for: the shared-memory
// transport (each engine over its own transport attached to one small
// segment) and the in-process loopback transport (lib/loopback), which also
// lets the tests make get and put fail.
#include "progress/engine.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "loopback/transport.hpp"
#include "progress/engine_impl.hpp"
#include "support/test_segment.hpp"
#include "wireup/routes.hpp"

namespace mpf::progress {

template class BasicEngine<loopback::Transport>;

namespace {

// Short up to 32 bytes, eager up to 4 KiB, rendezvous beyond.
const std::vector<std::string> kProtocols{"short_limit=32", "eager_limit=4096", "eager_cells=4", "ring_slots=4"};
const std::vector<std::string> kRendezvousModes{"split", "get", "put", "copy"};

// The shared-memory transport of two ranks of one node. By default the job
// is these two ranks; `node_of` describes a larger job (a node per rank),
// of which the two are the ranks on node 0: requests, packets and statuses
// then carry world ranks that are not the ranks' places in the segment.
class OverSharedMemory {
 public:
  using Transport = shm::Transport;
  OverSharedMemory(const common::Tunables &tunables, const std::vector<std::uint32_t> &node_of)
      : segment_(shm::Segment::create({2, 8, "unit-engine"}, {2, 8, tunables}, core::job_regions())) {
    for (std::uint32_t r = 0; r < node_of.size(); ++r) {
      if (node_of[r] == 0) world_.push_back(r);
    }
    for (std::uint32_t r = 0; r < 2; ++r) {
      segment_.rank(r).pid = static_cast<std::int32_t>(::getpid());  // CMA reads and writes this process
      transport_[r].init(segment_, wireup::RouteTable(node_of, world_[r]),
                         tunables.text(common::Tunable::rndv_mode) == "copy");
    }
  }
  Transport &transport(std::uint32_t r) { return transport_[r]; }
  shm::RankCounters &counters(std::uint32_t r) { return segment_.rank(r).counters; }
  std::uint32_t world(std::uint32_t r) const { return world_[r]; }

 private:
  shm::Segment segment_;
  std::vector<std::uint32_t> world_;
  shm::Transport transport_[2];
};

// The loopback transport of a two-rank job, its queues and buffers sized
// as the tunables size the shared-memory transport's rings and pools.
class OverLoopback {
 public:
  using Transport = loopback::Transport;
  OverLoopback(const common::Tunables &tunables, const std::vector<std::uint32_t> &)
      : node_(loopback::NodeOptions{
            .ranks = 2,
            .queue_packets = static_cast<std::uint32_t>(tunables.integer(common::Tunable::ring_slots)),
            .eager_buffers = static_cast<std::uint32_t>(tunables.integer(common::Tunable::eager_cells)),
            .eager_bytes = static_cast<std::uint32_t>(tunables.integer(common::Tunable::eager_limit)),
            .ncpus = 8,
            .jobid = "unit-engine-loopback"}) {
    for (std::uint32_t r = 0; r < 2; ++r) {
      transport_[r].init(node_, r, tunables.text(common::Tunable::rndv_mode) == "copy");
    }
  }
  Transport &transport(std::uint32_t r) { return transport_[r]; }
  shm::RankCounters &counters(std::uint32_t r) { return node_.segment().rank(r).counters; }
  std::uint32_t world(std::uint32_t r) const { return r; }
  loopback::Node &node() { return node_; }

 private:
  loopback::Node node_;
  loopback::Transport transport_[2];
};

// The engines of two ranks over transport `Over`. Engines are indexed 0 and
// 1 here, whatever their world ranks.
template <class Over>
class Engines {
 public:
  explicit Engines(std::vector<std::string> sets = {}, std::vector<std::uint32_t> node_of = {0, 0}) {
    sets.insert(sets.begin(), kProtocols.begin(), kProtocols.end());
    tunables_ = testing::small_tunables(sets);
    over_.emplace(*tunables_, node_of);
    for (std::uint32_t r = 0; r < 2; ++r) engine_[r].init(over_->transport(r), *tunables_);
  }
  BasicEngine<typename Over::Transport> &operator[](std::uint32_t r) { return engine_[r]; }
  shm::RankCounters &counters(std::uint32_t r) { return over_->counters(r); }
  // The world rank of engine r.
  std::uint32_t world(std::uint32_t r) const { return over_->world(r); }
  Over &over() { return *over_; }

  Request *send(std::uint32_t from, std::uint32_t to, std::int32_t tag, const void *data, std::uint64_t bytes,
                SendMode mode = SendMode::standard, std::uint32_t context = 0) {
    Request *r = engine_[from].new_request();
    r->peer = static_cast<std::int32_t>(world(to));
    r->tag = tag;
    r->context = context;
    r->buffer = static_cast<std::byte *>(const_cast<void *>(data));
    r->bytes = bytes;
    r->mode = mode;
    engine_[from].start_send(r);
    return r;
  }
  Request *recv(std::uint32_t at, std::int32_t source, std::int32_t tag, void *buffer, std::uint64_t capacity,
                std::uint32_t context = 0) {
    Request *r = engine_[at].new_request();
    r->peer = source == kAnySource ? kAnySource : static_cast<std::int32_t>(world(static_cast<std::uint32_t>(source)));
    r->tag = tag;
    r->context = context;
    r->buffer = static_cast<std::byte *>(buffer);
    r->bytes = capacity;
    engine_[at].start_recv(r);
    return r;
  }
  // Rounds of progress on both engines until `done`, at most `rounds`.
  template <class Done>
  bool run_until(Done done, int rounds = 200000) {
    for (int i = 0; i < rounds; ++i) {
      if (done()) return true;
      engine_[0].progress();
      engine_[1].progress();
    }
    return done();
  }
  bool finish(std::initializer_list<Request *> requests) {
    return run_until([&] {
      for (Request *r : requests) {
        if (!r->done()) return false;
      }
      return true;
    });
  }

 private:
  std::optional<common::Tunables> tunables_;
  std::optional<Over> over_;
  BasicEngine<typename Over::Transport> engine_[2];
};

std::vector<std::byte> pattern(std::size_t bytes, unsigned seed) {
  std::vector<std::byte> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return v;
}

template <class Over>
class EngineTest : public ::testing::Test {};
using Transports = ::testing::Types<OverSharedMemory, OverLoopback>;
class TransportName {
 public:
  template <class Over>
  static std::string GetName(int) {
    return std::is_same_v<Over, OverSharedMemory> ? "SharedMemory" : "Loopback";
  }
};
TYPED_TEST_SUITE(EngineTest, Transports, TransportName);

// Each size goes by its protocol, arrives intact, and is counted there.
TYPED_TEST(EngineTest, MessagesOfEverySizeArriveIntactInEveryRendezvousMode) {
  for (const std::string &mode : kRendezvousModes) {
    SCOPED_TRACE(mode);
    Engines<TypeParam> e({"rndv_mode=" + mode});
    const std::uint64_t sizes[] = {0, 1, 32, 33, 4096, 4097, 100000, 600000};
    for (std::uint64_t bytes : sizes) {
      SCOPED_TRACE(bytes);
      const std::vector<std::byte> data = pattern(bytes, static_cast<unsigned>(bytes));
      std::vector<std::byte> got(bytes + 1, std::byte{0x5a});
      Request *r = e.recv(1, 0, 9, got.data(), bytes + 1);
      Request *s = e.send(0, 1, 9, data.data(), bytes);
      ASSERT_TRUE(e.finish({s, r}));
      EXPECT_EQ(r->status.source, 0);
      EXPECT_EQ(r->status.tag, 9);
      EXPECT_EQ(r->status.error, 0);
      EXPECT_EQ(r->status.bytes, bytes);
      if (bytes > 0) {
        EXPECT_EQ(std::memcmp(got.data(), data.data(), bytes), 0);
      }
      EXPECT_EQ(got[bytes], std::byte{0x5a}) << "nothing written past the message";
      e[0].free_request(s);
      e[1].free_request(r);
    }
    EXPECT_EQ(e.counters(0).short_sent.load(), 3u);  // 0, 1 and 32 bytes
    EXPECT_EQ(e.counters(0).eager_sent.load(), 2u);  // 33 and 4096
    EXPECT_EQ(e.counters(0).rndv_sent.load(), 3u);
    EXPECT_EQ(e.counters(1).received.load(), 8u);
    EXPECT_TRUE(e[0].quiescent());
  }
}

// A message that arrives before its receive waits in the unexpected queue,
// whatever its protocol, and is delivered intact when the receive comes.
TYPED_TEST(EngineTest, UnexpectedMessagesAreDeliveredWhenTheirReceiveComes) {
  for (const std::string &mode : kRendezvousModes) {
    SCOPED_TRACE(mode);
    Engines<TypeParam> e({"rndv_mode=" + mode});
    const std::vector<std::byte> small = pattern(20, 1), mid = pattern(3000, 2), large = pattern(300000, 3);
    Request *s1 = e.send(0, 1, 1, small.data(), small.size());
    Request *s2 = e.send(0, 1, 2, mid.data(), mid.size());
    Request *s3 = e.send(0, 1, 3, large.data(), large.size());
    e.run_until([&] { return e[1].unexpected().list().size() == 3; });
    ASSERT_EQ(e[1].unexpected().list().size(), 3u);
    EXPECT_NE(e[1].probe(0, 3, 0), nullptr);
    std::vector<std::byte> g3(large.size()), g2(mid.size()), g1(small.size());
    Request *r3 = e.recv(1, 0, 3, g3.data(), g3.size());
    Request *r2 = e.recv(1, 0, 2, g2.data(), g2.size());
    Request *r1 = e.recv(1, 0, 1, g1.data(), g1.size());
    ASSERT_TRUE(e.finish({s1, s2, s3, r1, r2, r3}));
    EXPECT_EQ(g1, small);
    EXPECT_EQ(g2, mid);
    EXPECT_EQ(g3, large);
    EXPECT_TRUE(e[1].unexpected().list().empty());
  }
}

// A receive shorter than the message takes what fits and says so.
TYPED_TEST(EngineTest, ATooLongMessageIsTruncatedAndReported) {
  for (const std::string &mode : kRendezvousModes) {
    SCOPED_TRACE(mode);
    Engines<TypeParam> e({"rndv_mode=" + mode});
    for (std::uint64_t bytes : {20u, 3000u, 300000u}) {
      SCOPED_TRACE(bytes);
      const std::vector<std::byte> data = pattern(bytes, 7);
      std::vector<std::byte> got(bytes / 2 + 1, std::byte{0});
      Request *r = e.recv(1, 0, 0, got.data(), bytes / 2);
      Request *s = e.send(0, 1, 0, data.data(), bytes);
      ASSERT_TRUE(e.finish({s, r}));
      EXPECT_EQ(r->status.error, kErrorTruncated);
      EXPECT_EQ(r->status.message_bytes, bytes);
      EXPECT_EQ(r->status.bytes, bytes / 2);
      EXPECT_EQ(std::memcmp(got.data(), data.data(), bytes / 2), 0);
      EXPECT_EQ(got[bytes / 2], std::byte{0}) << "nothing written past the receive buffer";
    }
  }
}

// Two ranks of a job of five whose node holds world ranks 1 and 3: the
// engine speaks world ranks, the transport its node's local indices.
TEST(EngineOverSharedMemory, RanksOfALargerJobTalkByWorldRankOverTheirNodesSegment) {
  Engines<OverSharedMemory> e({}, {1, 0, 2, 0, 1});
  ASSERT_EQ(e.world(0), 1u);
  ASSERT_EQ(e.world(1), 3u);
  for (std::uint64_t bytes : {8u, 3000u, 300000u}) {
    SCOPED_TRACE(bytes);
    const std::vector<std::byte> data = pattern(bytes, 9);
    std::vector<std::byte> got(bytes);
    Request *r = e.recv(1, kAnySource, kAnyTag, got.data(), bytes);
    Request *s = e.send(0, 1, 6, data.data(), bytes);
    ASSERT_TRUE(e.finish({s, r}));
    EXPECT_EQ(r->status.source, 1) << "the sender's world rank";
    EXPECT_EQ(got, data);
    // And back, by a specific source.
    Request *r2 = e.recv(0, 1, 6, got.data(), bytes);
    Request *s2 = e.send(1, 0, 6, data.data(), bytes, SendMode::synchronous);
    ASSERT_TRUE(e.finish({s2, r2}));
    EXPECT_EQ(r2->status.source, 3);
  }
}

// MPI's non-overtaking rule: messages of one sender that a receive could
// match are matched in the order they were sent; wildcards report what
// they matched.
TYPED_TEST(EngineTest, MatchingFollowsSendOrderAndWildcardsReportTheEnvelope) {
  Engines<TypeParam> e;
  int values[4] = {10, 11, 12, 13};
  std::vector<Request *> sends;
  for (int i = 0; i < 4; ++i) sends.push_back(e.send(0, 1, 100 + i % 2, &values[i], sizeof(int)));
  int got[4] = {};
  Request *tag101 = e.recv(1, 0, 101, &got[0], sizeof(int));
  Request *any1 = e.recv(1, kAnySource, kAnyTag, &got[1], sizeof(int));
  Request *any2 = e.recv(1, kAnySource, kAnyTag, &got[2], sizeof(int));
  Request *any3 = e.recv(1, 0, kAnyTag, &got[3], sizeof(int));
  ASSERT_TRUE(e.finish({tag101, any1, any2, any3}));
  EXPECT_EQ(got[0], 11) << "the first message with tag 101";
  EXPECT_EQ(got[1], 10);
  EXPECT_EQ(got[2], 12);
  EXPECT_EQ(got[3], 13);
  EXPECT_EQ(any1->status.tag, 100);
  EXPECT_EQ(any1->status.source, static_cast<std::int32_t>(e.world(0)));
  EXPECT_EQ(any3->status.tag, 101);
}

TYPED_TEST(EngineTest, MessagesOfAnotherContextDoNotMatch) {
  Engines<TypeParam> e;
  int a = 1, b = 2, got = 0;
  Request *r = e.recv(1, 0, 5, &got, sizeof got, /*context=*/7);
  Request *s_other = e.send(0, 1, 5, &a, sizeof a, SendMode::standard, 3);
  Request *s_mine = e.send(0, 1, 5, &b, sizeof b, SendMode::standard, 7);
  ASSERT_TRUE(e.finish({r, s_other, s_mine}));
  EXPECT_EQ(got, 2);
  EXPECT_EQ(e[1].unexpected().list().size(), 1u) << "context 3's message waits for its own receive";
}

// A synchronous send completes only once a receive has matched it.
TYPED_TEST(EngineTest, ASynchronousSendCompletesOnlyWhenMatched) {
  Engines<TypeParam> e;
  for (std::uint64_t bytes : {8u, 2000u}) {
    SCOPED_TRACE(bytes);
    const std::vector<std::byte> data = pattern(bytes, 3);
    Request *s = e.send(0, 1, 0, data.data(), bytes, SendMode::synchronous);
    e.run_until([] { return false; }, 2000);
    EXPECT_FALSE(s->done()) << "no receive yet";
    std::vector<std::byte> got(bytes);
    Request *r = e.recv(1, 0, 0, got.data(), bytes);
    ASSERT_TRUE(e.finish({s, r}));
    EXPECT_EQ(got, data);
  }
}

// More sends than the ring holds wait in order in the sender's backlog;
// beyond the sender's share of the receiver's unexpected pool the rest go
// by rendezvous. Nothing is lost and the order holds.
TYPED_TEST(EngineTest, BackPressureHoldsSendsInOrderAndLosesNothing) {
  Engines<TypeParam> e({"ring_slots=2", "unexpected_pool=4KiB"});
  constexpr int kMessages = 200;
  std::vector<int> values(kMessages);
  std::iota(values.begin(), values.end(), 0);
  std::vector<Request *> sends;
  for (int i = 0; i < kMessages; ++i) sends.push_back(e.send(0, 1, 0, &values[i], sizeof(int)));
  EXPECT_GT(e[0].backlog_size(), 0u) << "the two-slot ring filled";
  e.run_until([] { return false; },
              1000);  // the receiver drains into its unexpected queue
  EXPECT_GT(e.counters(0).flow_stalls.load(), 0u);
  std::vector<int> got(kMessages, -1);
  std::vector<Request *> recvs;
  for (int i = 0; i < kMessages; ++i) recvs.push_back(e.recv(1, 0, 0, &got[i], sizeof(int)));
  ASSERT_TRUE(e.run_until([&] {
    for (Request *r : recvs) {
      if (!r->done()) return false;
    }
    for (Request *s : sends) {
      if (!s->done()) return false;
    }
    return true;
  }));
  EXPECT_EQ(got, values);
  EXPECT_GT(e.counters(0).rndv_sent.load(), 0u) << "beyond its share, a sender uses rendezvous";
  EXPECT_TRUE(e[0].quiescent());
}

// An eager message that arrives before its receive is copied out of the
// sender's buffer at once: a sender with three eager buffers sends many
// more eager messages than that while none is received, and each arrives
// intact.
TYPED_TEST(EngineTest, UnexpectedEagerMessagesGiveTheirBuffersBackAtOnce) {
  Engines<TypeParam> e;  // 4 eager buffers of 4 KiB: 3 for eager messages
  constexpr int kMessages = 12;
  std::vector<std::vector<std::byte>> data;
  std::vector<Request *> sends;
  for (int i = 0; i < kMessages; ++i)
    data.push_back(pattern(1000 + static_cast<std::size_t>(i), static_cast<unsigned>(i)));
  for (int i = 0; i < kMessages; ++i) {
    sends.push_back(
        e.send(0, 1, i, data[static_cast<std::size_t>(i)].data(), data[static_cast<std::size_t>(i)].size()));
    e.run_until([] { return false; }, 4);
  }
  e.run_until([&] { return e[1].unexpected().list().size() == kMessages; });
  EXPECT_EQ(e.counters(0).eager_sent.load(), static_cast<std::uint64_t>(kMessages));
  EXPECT_EQ(e.counters(0).rndv_sent.load(), 0u);
  EXPECT_EQ(e[1].unexpected().used_bytes(),
            kMessages * match::UnexpectedQueue::kEntryBytes + kMessages * 1000 + kMessages * (kMessages - 1) / 2);
  for (int i = kMessages; i-- > 0;) {
    std::vector<std::byte> got(data[static_cast<std::size_t>(i)].size());
    Request *r = e.recv(1, 0, i, got.data(), got.size());
    ASSERT_TRUE(e.finish({r}));
    EXPECT_EQ(got, data[static_cast<std::size_t>(i)]) << i;
  }
  EXPECT_EQ(e[1].unexpected().used_bytes(), 0u);
}

TYPED_TEST(EngineTest, APostedReceiveCanBeCancelledAndAMatchedOneCannot) {
  Engines<TypeParam> e;
  int got = 0, value = 4;
  Request *r = e.recv(1, 0, 1, &got, sizeof got);
  EXPECT_TRUE(e[1].cancel_recv(r));
  EXPECT_TRUE(r->done());
  EXPECT_TRUE(r->status.cancelled);
  Request *r2 = e.recv(1, 0, 1, &got, sizeof got);
  Request *s = e.send(0, 1, 1, &value, sizeof value);
  ASSERT_TRUE(e.finish({r2, s}));
  EXPECT_FALSE(e[1].cancel_recv(r2));
  EXPECT_EQ(got, 4);
}

// A send that no receive has matched can be cancelled: the receiver drops
// it and nothing is delivered; one that was matched completes as usual.
TYPED_TEST(EngineTest, AnUnmatchedSendIsCancelledAtTheReceiver) {
  Engines<TypeParam> e;
  const std::vector<std::byte> data = pattern(2000, 5);
  Request *s = e.send(0, 1, 1, data.data(), data.size(), SendMode::synchronous);
  e.run_until([&] { return e[1].unexpected().list().size() == 1; });
  e[0].cancel_send(s);
  ASSERT_TRUE(e.finish({s}));
  EXPECT_TRUE(s->status.cancelled);
  EXPECT_TRUE(e[1].unexpected().list().empty()) << "the receiver dropped the message";
  int value = 1, got = 0;
  Request *matched = e.send(0, 1, 2, &value, sizeof value);
  Request *r = e.recv(1, 0, 2, &got, sizeof got);
  ASSERT_TRUE(e.finish({matched, r}));
  e[0].cancel_send(matched);
  ASSERT_TRUE(e.finish({matched}));
  EXPECT_FALSE(matched->status.cancelled);
  EXPECT_EQ(got, 1);
}

// A message claimed from the unexpected queue (MPI_Mprobe) is received
// later by that claim alone.
TYPED_TEST(EngineTest, AClaimedMessageIsReceivedByItsClaim) {
  Engines<TypeParam> e;
  int a = 1, b = 2;
  Request *s1 = e.send(0, 1, 3, &a, sizeof a);
  Request *s2 = e.send(0, 1, 3, &b, sizeof b);
  ASSERT_TRUE(e.run_until([&] { return e[1].probe(0, 3, 0) != nullptr; }));
  match::UnexpectedMessage *m = e[1].claim(0, 3, 0);
  ASSERT_NE(m, nullptr);
  int other = 0, claimed = 0;
  Request *r_other = e.recv(1, 0, 3, &other, sizeof other);
  Request *r_claimed = e[1].new_request();
  r_claimed->buffer = reinterpret_cast<std::byte *>(&claimed);
  r_claimed->bytes = sizeof claimed;
  e[1].receive_claimed(r_claimed, m);
  ASSERT_TRUE(e.finish({s1, s2, r_other, r_claimed}));
  EXPECT_EQ(claimed, 1);
  EXPECT_EQ(other, 2);
}

// The blocking fast paths: a short send without a request, and a receive
// taken straight from the sender's ring.
TYPED_TEST(EngineTest, TheBlockingFastPathsDeliverShortMessages) {
  Engines<TypeParam> e;
  const char text[] = "direct";
  ASSERT_TRUE(e[0].try_send_now(1, 4, 0, text, sizeof text, 0));
  char got[16] = {};
  Completion status;
  ASSERT_TRUE(e[1].try_recv_now(0, 4, 0, got, sizeof got, 0, status));
  EXPECT_STREQ(got, "direct");
  EXPECT_EQ(status.bytes, sizeof text);
  EXPECT_EQ(status.tag, 4);
  EXPECT_FALSE(e[0].try_send_now(1, 4, 0, got, 1000, 0)) << "too long for a packet: the usual path";
}

// The blocking receive's fast path also takes a message that waits in the
// unexpected queue: the oldest one it matches, short or eager.
TYPED_TEST(EngineTest, TheBlockingFastPathTakesUnexpectedMessagesInOrder) {
  Engines<TypeParam> e;
  const std::vector<std::byte> small = pattern(20, 1), mid = pattern(3000, 2), other = pattern(10, 3);
  Request* s1 = e.send(0, 1, 5, small.data(), small.size());
  Request* s2 = e.send(0, 1, 6, other.data(), other.size());
  Request* s3 = e.send(0, 1, 5, mid.data(), mid.size());
  ASSERT_TRUE(e.run_until([&] { return e[1].unexpected().list().size() == 3; }));
  std::vector<std::byte> got(4000);
  Completion status;
  ASSERT_TRUE(e[1].try_recv_now(e.world(0), 5, 0, got.data(), got.size(), 0, status));
  EXPECT_EQ(status.bytes, small.size()) << "the oldest message with tag 5 first";
  EXPECT_TRUE(std::equal(small.begin(), small.end(), got.begin()));
  ASSERT_TRUE(e[1].try_recv_now(e.world(0), 5, 0, got.data(), got.size(), 0, status));
  EXPECT_EQ(status.bytes, mid.size());
  EXPECT_TRUE(std::equal(mid.begin(), mid.end(), got.begin()));
  EXPECT_FALSE(e[1].try_recv_now(e.world(0), 6, 0, got.data(), 4, 0, status)) << "too long: the usual path reports it";
  EXPECT_EQ(e[1].unexpected().list().size(), 1u);
  ASSERT_TRUE(e.finish({s1, s2, s3}));
}

// Over the loopback transport get and put can be refused, as a kernel
// refuses Cross Memory Attach, or fail.
class FaultsOverLoopback : public ::testing::TestWithParam<std::string> {
 protected:
  // Sends one large message from rank 0 to rank 1 with get and put behaving
  // as `fault` says; returns the send and the receive, finished.
  std::pair<Request *, Request *> large_message(Engines<OverLoopback> &e, loopback::RmaFault fault,
                                                std::vector<std::byte> &got) {
    e.over().node().set_rma_fault(fault);
    Request *r = e.recv(1, 0, 0, got.data(), got.size());
    Request *s = e.send(0, 1, 0, data_.data(), data_.size());
    EXPECT_TRUE(e.finish({s, r}));
    e.over().node().set_rma_fault(loopback::RmaFault::none);
    return {s, r};
  }
  const std::vector<std::byte> data_ = pattern(600000, 4);
};

// Refused: the pair's large messages go through eager buffers instead,
// and arrive whole.
TEST_P(FaultsOverLoopback, ARefusedSingleCopyFallsBackToEagerBuffers) {
  Engines<OverLoopback> e({"rndv_mode=" + GetParam()});
  std::vector<std::byte> got(data_.size());
  auto [s, r] = large_message(e, loopback::RmaFault::refuse, got);
  EXPECT_EQ(s->status.error, 0);
  EXPECT_EQ(r->status.error, 0);
  EXPECT_EQ(got, data_);
  // The end that copies (the receiver by get, the sender by put) knows.
  if (GetParam() == "get") {
    EXPECT_EQ(e.over().transport(1).rma_path(0), transport::RmaPath::refused);
  } else {
    EXPECT_EQ(e.over().transport(0).rma_path(1), transport::RmaPath::refused);
  }
}

// Failed: both ends' requests fail, and the engines go on working.
TEST_P(FaultsOverLoopback, AFailedSingleCopyFailsBothRequests) {
  Engines<OverLoopback> e({"rndv_mode=" + GetParam()});
  std::vector<std::byte> got(data_.size());
  auto [s, r] = large_message(e, loopback::RmaFault::fail, got);
  EXPECT_EQ(s->status.error, kErrorTransport);
  EXPECT_EQ(r->status.error, kErrorTransport);
  EXPECT_TRUE(e[0].quiescent());
  auto [s2, r2] = large_message(e, loopback::RmaFault::none, got);
  EXPECT_EQ(r2->status.error, 0);
  EXPECT_EQ(got, data_);
}

INSTANTIATE_TEST_SUITE_P(GetAndPut, FaultsOverLoopback, ::testing::Values("get", "put"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// A split copy (both ends copy; only once a single copy with the pair has
// worked) that cannot go on fails at both ends, whether the copies fail or
// are refused in the middle of the message; the pair's split copies are
// free again afterwards.
TEST(FaultsOverLoopbackSplit, ASplitCopyThatCannotGoOnFailsAtBothEnds) {
  for (const loopback::RmaFault fault : {loopback::RmaFault::fail, loopback::RmaFault::refuse}) {
    Engines<OverLoopback> e({"rndv_mode=split"});
    std::vector<std::byte> got(600000);
    const std::vector<std::byte> data = pattern(got.size(), 8);
    auto message = [&](loopback::RmaFault f) {
      e.over().node().set_rma_fault(f);
      Request *r = e.recv(1, 0, 0, got.data(), got.size());
      Request *s = e.send(0, 1, 0, data.data(), data.size());
      EXPECT_TRUE(e.finish({s, r}));
      e.over().node().set_rma_fault(loopback::RmaFault::none);
      return std::pair{s, r};
    };
    message(loopback::RmaFault::none);  // proves the pair: the next one is split
    const std::uint64_t sender_copies = e.over().node().copies_tried(0);
    auto [s, r] = message(fault);
    EXPECT_GT(e.over().node().copies_tried(0), sender_copies) << "the sender took part: a split copy";
    EXPECT_EQ(s->status.error, kErrorTransport);
    EXPECT_EQ(r->status.error, kErrorTransport);
    for (int i = 0; i < 2 * static_cast<int>(transport::kSplitsPerPair); ++i) {
      auto [s2, r2] = message(loopback::RmaFault::none);
      ASSERT_EQ(r2->status.error, 0);
      e[0].free_request(s2);
      e[1].free_request(r2);
    }
    EXPECT_EQ(got, data);
  }
}

}  // namespace
}  // namespace mpf::progress
