// Unit tests of the wait records (progress/wait_record.hpp): each factory
// fills in what its kind of wait needs, and CollectiveLog keeps a rank's
// table of communicators (shm::CommRecord) as the inspector reads it.
#include "progress/wait_record.hpp"

#include <gtest/gtest.h>

namespace mpf::progress {
namespace {

TEST(BlockedCall, FactoriesFillTheTypedFields) {
  const BlockedCall r = BlockedCall::receive(WaitApi::mpi, 3, 7, 2, "MPI_Recv");
  EXPECT_EQ(r.kind, WaitKind::receive);
  EXPECT_EQ(r.api, WaitApi::mpi);
  EXPECT_EQ(r.peer, 3);
  EXPECT_EQ(r.tag, 7);
  EXPECT_EQ(r.context, 2u);
  EXPECT_STREQ(r.function, "MPI_Recv");

  const BlockedCall c = BlockedCall::collective(WaitApi::mpi, {4, 9, 2, CollKind::bcast, false}, 1, "MPI_Bcast");
  EXPECT_EQ(c.kind, WaitKind::collective);
  EXPECT_EQ(c.coll, CollKind::bcast);
  EXPECT_EQ(c.context, 4u);
  EXPECT_EQ(c.epoch, 9u);
  EXPECT_EQ(c.seq, 2u);
  EXPECT_EQ(c.root, 1);
  EXPECT_EQ(c.peer, kAnySource);

  const BlockedCall w = BlockedCall::request(BlockedCall::send(WaitApi::mpi, 5, 1, 0, "MPI_Wait"), "MPI_Wait");
  EXPECT_EQ(w.kind, WaitKind::request);
  EXPECT_EQ(w.of, WaitKind::send);
  EXPECT_EQ(w.peer, 5);

  EXPECT_EQ(BlockedCall::request_unknown(WaitApi::mpi, "MPI_Wait").of, WaitKind::none);
  EXPECT_EQ(BlockedCall::finalize(WaitApi::runtime, "MPI_Finalize").kind, WaitKind::finalize);
  EXPECT_EQ(BlockedCall::shmem_wait("shmem_wait_until").api, WaitApi::shmem);
  EXPECT_EQ(BlockedCall::conversation(2, 11, 0, "mpf_recv").tag, 11);
  const BlockedCall lock = BlockedCall::rma_sync(WaitApi::mpi, 4, 3, shm::RmaWait::lock, "MPI_Win_lock");
  EXPECT_EQ(lock.kind, WaitKind::rma_sync);
  EXPECT_EQ(lock.peer, 4);
  EXPECT_EQ(lock.tag, static_cast<std::int32_t>(shm::RmaWait::lock)) << "what it waits for travels in the tag";
}

TEST(CollectiveLog, CountsCallsAndShowsThemWhenTheRankPublishesAWait) {
  shm::Introspection block{};
  CollectiveLog log;
  log.init(block);
  CollectiveTrack world;
  log.show(world, 0, 0, 4, 2);
  EXPECT_EQ(block.comms[0].size.load(), 4u);
  EXPECT_EQ(block.comms[0].rank.load(), 2);
  EXPECT_EQ(CollectiveLog::started(world, CollKind::bcast, false), 1u);
  CollectiveLog::completed(world);
  EXPECT_EQ(CollectiveLog::started(world, CollKind::barrier, true), 2u);
  EXPECT_EQ(block.comms[0].started.load(), 0u) << "the data path writes nothing shared";
  log.publish(nullptr);
  EXPECT_EQ(block.comms[0].started.load(), 2u);
  EXPECT_EQ(block.comms[0].completed.load(), 1u);
  const std::uint32_t kinds = block.comms[0].kinds.load();
  EXPECT_EQ((kinds >> 8) & 0xff, static_cast<std::uint32_t>(CollKind::bcast));
  EXPECT_EQ((kinds >> 16) & 0xff, static_cast<std::uint32_t>(CollKind::barrier) | shm::kNonblockingKind);
}

TEST(CollectiveLog, TheEntryShownLongestAgoGivesWayAndAWaitedCommunicatorIsShownAgain) {
  shm::Introspection block{};
  CollectiveLog log;
  log.init(block);
  CollectiveTrack tracks[shm::kCommRecords + 1];
  for (std::uint32_t i = 0; i < shm::kCommRecords; ++i) log.show(tracks[i], 10 + i, 0, 2, 0);
  log.show(tracks[0], 10, 0, 2, 0);  // communicator 10 is shown again: 11 is the oldest
  log.show(tracks[shm::kCommRecords], 99, 5, 3, 1);
  EXPECT_EQ(tracks[shm::kCommRecords].slot, 1u);
  EXPECT_EQ(block.comms[1].context.load(), 99u);
  EXPECT_EQ(block.comms[1].epoch.load(), 5u);
  EXPECT_EQ(tracks[1].log, nullptr) << "communicator 11 lost its entry";
  // A wait in communicator 11 shows it again, with its count.
  CollectiveLog::started(tracks[1], CollKind::allreduce, false);
  CollectiveLog::started(tracks[1], CollKind::allreduce, false);
  log.publish(&tracks[1]);
  bool found = false;
  for (const shm::CommRecord& r : block.comms) {
    if (r.size.load() != 0 && r.context.load() == 11) {
      found = true;
      EXPECT_EQ(r.started.load(), 2u);
    }
  }
  EXPECT_TRUE(found);
}

TEST(CollectiveLog, AFreedCommunicatorLeavesTheTable) {
  shm::Introspection block{};
  CollectiveLog log;
  log.init(block);
  {
    CollectiveTrack gone;
    log.show(gone, 7, 1, 3, 0);
    EXPECT_EQ(block.comms[0].size.load(), 3u);
  }
  EXPECT_EQ(block.comms[0].size.load(), 0u) << "its entry is free";
  log.publish(nullptr);  // and nothing reads the track that went away
  CollectiveTrack copy_source;
  log.show(copy_source, 8, 1, 2, 1);
  const CollectiveTrack copy(copy_source);
  EXPECT_EQ(copy.log, nullptr) << "a copy is not in the log";
}

}  // namespace
}  // namespace mpf::progress
