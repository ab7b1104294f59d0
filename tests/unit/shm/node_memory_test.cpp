// Unit tests of node memory created after launch (lib/shm/node_memory.hpp):
// the directory, ids that go stale, and mapping from another process.
#include "shm/node_memory.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/test_segment.hpp"

namespace mpf::shm {
namespace {

using ::testing::HasSubstr;

TEST(NodeMemory, CreatedMemoryIsZeroedListedAndMappedByIdInAnotherProcess) {
  Segment segment = testing::small_segment(2);
  NodeMemory mine = NodeMemory::create(segment, 1, "unit.heap", 3 * 4096);
  ASSERT_EQ(mine.bytes(), 3u * 4096);
  EXPECT_TRUE(mine.owner());
  EXPECT_NE(mine.id(), 0u);
  for (std::size_t i = 0; i < mine.bytes(); ++i) ASSERT_EQ(mine.data()[i], std::byte{0}) << i;

  const std::vector<NodeMemoryListing> listed = NodeMemory::list(segment);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].id, mine.id());
  EXPECT_EQ(listed[0].name, "unit.heap");
  EXPECT_EQ(listed[0].owner_rank, 1u);
  EXPECT_EQ(listed[0].owner_pid, ::getpid());
  EXPECT_EQ(listed[0].bytes, 3u * 4096);

  std::memcpy(mine.data() + 4096, "from the creator", 17);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Another process, as another rank: it maps the memory by id alone.
    int status = 0;
    try {
      NodeMemory theirs = NodeMemory::open(segment, mine.id());
      if (theirs.owner() || std::strcmp(reinterpret_cast<char*>(theirs.data() + 4096), "from the creator") != 0) {
        status = 1;
      }
      std::memcpy(theirs.data() + 2 * 4096, "from the opener", 16);
    } catch (...) {
      status = 2;
    }
    ::_exit(status);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_STREQ(reinterpret_cast<char*>(mine.data() + 2 * 4096), "from the opener");
}

TEST(NodeMemory, AFreedPiecesIdIsStaleAndItsEntryIsReused) {
  Segment segment = testing::small_segment(2);
  std::uint64_t old_id = 0;
  {
    NodeMemory piece = NodeMemory::create(segment, 0, "unit.window", 4096);
    old_id = piece.id();
  }
  EXPECT_TRUE(NodeMemory::list(segment).empty());
  try {
    NodeMemory::open(segment, old_id);
    FAIL() << "a freed piece was opened";
  } catch (const NodeMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("was freed by its creator"));
  }
  NodeMemory next = NodeMemory::create(segment, 0, "unit.window", 4096);
  EXPECT_NE(next.id(), old_id) << "a new use of the entry has a new id";
  EXPECT_EQ(next.id() & 0xffff, old_id & 0xffff) << "the free entry is reused";
  EXPECT_THROW(NodeMemory::open(segment, 0), NodeMemoryError);
  EXPECT_THROW(NodeMemory::open(segment, (std::uint64_t{1} << 16) | 0xffff), NodeMemoryError);
}

TEST(NodeMemory, BadNamesAndAFullDirectoryAreRefusedByName) {
  Segment segment = testing::small_segment(1);
  EXPECT_THROW(NodeMemory::create(segment, 0, "", 64), NodeMemoryError);
  EXPECT_THROW(NodeMemory::create(segment, 0, std::string(32, 'n'), 64), NodeMemoryError);
  std::vector<NodeMemory> pieces;
  for (std::uint32_t i = 0; i < kNodeMemoryEntries; ++i) pieces.push_back(NodeMemory::create(segment, 0, "unit.many", 0));
  EXPECT_EQ(NodeMemory::list(segment).size(), kNodeMemoryEntries);
  try {
    NodeMemory::create(segment, 0, "unit.one-more", 64);
    FAIL() << "the directory took more pieces than it has entries";
  } catch (const NodeMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("directory of shared memory is full"));
  }
  pieces.pop_back();
  EXPECT_NO_THROW(NodeMemory::create(segment, 0, "unit.one-more", 64));
}

TEST(NodeMemory, MoveKeepsOneOwner) {
  Segment segment = testing::small_segment(1);
  NodeMemory a = NodeMemory::create(segment, 0, "unit.moved", 4096);
  const std::uint64_t id = a.id();
  NodeMemory b = std::move(a);
  EXPECT_FALSE(a.owner());
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.id(), id);
  EXPECT_EQ(NodeMemory::list(segment).size(), 1u);
  b = NodeMemory();
  EXPECT_TRUE(NodeMemory::list(segment).empty());
}

}  // namespace
}  // namespace mpf::shm
