// The network transport between two endpoints of this process (ranks 0 and
// 1 of a two-rank job, on "different nodes"), over the default provider on
// this machine: packets in order with their data, the window and the
// credits that hold a sender back, remote reads, and the sleep watch that
// rings a sleeping rank's doorbell when something arrives. Both ranks are
// driven from this one thread, each poll a round of its progress.
#include "net/transport.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "shm/segment.hpp"
#include "support/test_segment.hpp"

namespace mpf::net {
namespace {

using progress::Packet;
using progress::PacketKind;

constexpr std::uint32_t kEagerBytes = 4096;
constexpr std::uint64_t kShare = 64 * 1024;

[[noreturn]] void fatal(const std::string& message) {
  ADD_FAILURE() << message;
  std::abort();
}

class NetTransportTest : public ::testing::Test {
 protected:
  void SetUp() override { connect(8); }

  void connect(std::uint32_t window) {
    for (Transport& t : rank_) t.open("tcp;ofi_rxm", sizeof(WireMessage) + kEagerBytes);
    const std::vector<std::byte> address[2] = {rank_[0].address(), rank_[1].address()};
    for (std::uint32_t r = 0; r < 2; ++r) {
      const std::uint32_t peer = 1 - r;
      const std::vector<std::vector<std::byte>> addresses{address[peer]};
      rank_[r].connect({"tcp;ofi_rxm", window, kEagerBytes, kShare}, r, 2, segment_.rank(r), fatal, {&peer, 1},
                       addresses);
    }
  }
  void TearDown() override {
    for (Transport& t : rank_) t.close();
  }

  // Polls both ranks until `done` holds; fails after 10 s.
  void progress_until(const std::function<bool()>& done, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      poll(0);
      poll(1);
      if (std::chrono::steady_clock::now() > deadline) FAIL() << "timed out waiting for " << what;
    }
  }
  // A round of `r`'s progress that takes every packet, recording them.
  std::size_t poll(std::uint32_t r) {
    return rank_[r].poll([this, r](std::uint32_t source, const Packet& p) {
      received_[r].push_back({source, p});
      return accept_[r];
    });
  }
  // Rank 0 sends a short packet with tag `tag`; false when it cannot now.
  bool send_short(std::int32_t tag) {
    Packet* p = rank_[0].try_claim(1);
    if (p == nullptr) return false;
    p->header = {PacketKind::short_msg, 0, 0, 0, tag, 0, 4, 0};
    std::memcpy(p->inline_data, &tag, sizeof tag);
    rank_[0].publish(1);
    return true;
  }

  struct Received {
    std::uint32_t source;
    Packet packet;
  };
  Transport rank_[2];
  shm::Segment segment_ = testing::small_segment(2, 2, "unit-net");
  std::vector<Received> received_[2];
  bool accept_[2] = {true, true};
};

TEST_F(NetTransportTest, PacketsArriveInOrderWithTheirData) {
  // Short packets, and eager ones whose data travels behind them, mixed.
  constexpr int kPackets = 200;
  std::vector<std::byte> data(kEagerBytes);
  int sent = 0;
  std::vector<std::pair<int, std::uint32_t>> eager;  // (tag, bytes) of the eager packets
  progress_until(
      [&] {
        while (sent < kPackets) {
          if (sent % 3 != 2) {
            if (!send_short(sent)) break;
          } else {
            transport::EagerRef buffer{};
            if (rank_[0].try_take_buffer(buffer) != common::Status::done) break;
            Packet* p = rank_[0].try_claim(1);
            if (p == nullptr) {
              rank_[0].release_eager(0, buffer);
              break;
            }
            const auto bytes = static_cast<std::uint32_t>(1 + (sent * 97) % kEagerBytes);
            std::memset(rank_[0].eager_data(0, buffer), sent & 0xff, bytes);
            p->header = {PacketKind::eager, 0, 0, 0, sent, 0, bytes, 0};
            p->chunk = {buffer, bytes, 0};
            rank_[0].publish(1);
            eager.emplace_back(sent, bytes);
          }
          ++sent;
        }
        // The receiver copies each eager message out and gives its buffer back.
        for (Received& r : received_[1]) {
          if (r.packet.header.kind == PacketKind::eager && r.packet.header.bytes != 0) {
            const std::byte* at = rank_[1].eager_data(0, r.packet.chunk.buffer);
            std::memcpy(data.data(), at, r.packet.chunk.chunk_bytes);
            for (std::uint32_t i = 0; i < r.packet.chunk.chunk_bytes; ++i) {
              EXPECT_EQ(data[i], std::byte(r.packet.header.tag & 0xff)) << "packet " << r.packet.header.tag;
            }
            rank_[1].release_eager(0, r.packet.chunk.buffer);
            r.packet.header.bytes = 0;  // checked
          }
        }
        return received_[1].size() == kPackets;
      },
      "200 packets");
  for (int i = 0; i < kPackets; ++i) {
    EXPECT_EQ(received_[1][static_cast<std::size_t>(i)].source, 0u);
    EXPECT_EQ(received_[1][static_cast<std::size_t>(i)].packet.header.tag, i) << "out of order";
  }
  EXPECT_EQ(eager.size(), static_cast<std::size_t>(kPackets / 3));
}

TEST_F(NetTransportTest, AFullWindowHoldsTheSenderUntilTheReceiverTakes) {
  // A window of 8: the ninth packet waits; a receiver that leaves its
  // packets (no room in its pool) keeps the sender waiting.
  int sent = 0;
  while (send_short(sent)) ++sent;
  EXPECT_EQ(sent, 8);
  accept_[1] = false;
  for (int i = 0; i < 200; ++i) {
    poll(1);
    poll(0);
  }
  EXPECT_FALSE(send_short(sent)) << "the window reopened while the receiver took nothing";
  // The receiver takes them: credits come back and the sender goes on.
  accept_[1] = true;
  rank_[1].retry_deferred();
  received_[1].clear();
  progress_until([&] { return send_short(sent); }, "the window to reopen");
  ++sent;
  progress_until([&] { return received_[1].size() == static_cast<std::size_t>(sent); }, "every packet");
}

TEST_F(NetTransportTest, MatchedDataIsCreditedBackToTheSender) {
  EXPECT_EQ(rank_[0].matched_by(1), 0u);
  rank_[1].count_matched(0, kShare / 4);  // a quarter of the share: said at once
  progress_until([&] { return rank_[0].matched_by(1) == kShare / 4; }, "the credit");
  // Less is said before the receiver sleeps (may_sleep() says it first).
  rank_[1].count_matched(0, 100);
  poll(0);
  poll(1);
  EXPECT_EQ(rank_[0].matched_by(1), kShare / 4) << "a small credit is kept for later";
  static_cast<void>(rank_[1].may_sleep());
  progress_until([&] { return rank_[0].matched_by(1) == kShare / 4 + 100; }, "the credit owed");
}

TEST_F(NetTransportTest, ARemoteReadCopiesTheExposedBuffer) {
  if (!rank_[0].remote_read()) GTEST_SKIP() << "the provider has no remote read";
  std::vector<std::uint8_t> source(3 << 20), target(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<std::uint8_t>(i * 7);
  const transport::RemoteMemory remote = rank_[0].expose(source.data(), source.size());
  ASSERT_NE(remote.key, 0u);
  ASSERT_EQ(rank_[1].start_get(0, target.data(), remote, target.size(), 42), common::Status::in_progress);
  std::vector<std::pair<std::uint64_t, bool>> finished;
  progress_until(
      [&] {
        rank_[1].finished_gets([&](std::uint64_t cookie, bool ok) { finished.emplace_back(cookie, ok); });
        return !finished.empty();
      },
      "the read");
  EXPECT_EQ(finished, (std::vector<std::pair<std::uint64_t, bool>>{{42, true}}));
  EXPECT_EQ(source, target);
  rank_[0].unexpose(remote);
}

TEST_F(NetTransportTest, ASleepingRankIsWokenWhenAPacketArrives) {
  std::atomic<std::uint32_t>& doorbell = segment_.rank(1).doorbell;
  // Nothing pending: rank 1 may sleep, and the watch is armed.
  progress_until([&] { return rank_[1].may_sleep(); }, "rank 1 to be allowed to sleep");
  const std::uint32_t before = doorbell.load();
  ASSERT_TRUE(send_short(7));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (doorbell.load() == before && std::chrono::steady_clock::now() < deadline) {
    poll(0);  // the sender's side, as its own progress would
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_NE(doorbell.load(), before) << "the arrival did not ring rank 1's doorbell";
  progress_until([&] { return received_[1].size() == 1; }, "the packet");
  EXPECT_EQ(received_[1][0].packet.header.tag, 7);
}

}  // namespace
}  // namespace mpf::net
