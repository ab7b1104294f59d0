// Unit tests of the words mpfrun uses for people (launcher/messages.{hpp,cpp}).
#include "launcher/messages.hpp"

#include <signal.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mpf::launcher {
namespace {

using ::testing::StartsWith;

TEST(Messages, SignalDescription) {
  EXPECT_EQ(signal_description(SIGSEGV), "signal 11 (Segmentation fault)");
  EXPECT_EQ(signal_description(SIGKILL), "signal 9 (Killed)");
  EXPECT_EQ(signal_description(SIGTERM), "signal 15 (Terminated)");
  EXPECT_EQ(signal_description(SIGABRT), "signal 6 (Aborted)");
  // A number that is no signal still gets a description, never a crash.
  EXPECT_THAT(signal_description(200), StartsWith("signal 200 ("));
}

TEST(Messages, RankList) {
  EXPECT_EQ(rank_list({0, 1, 2, 3, 5, 7, 8}), "0-3,5,7-8");
  EXPECT_EQ(rank_list({}), "none");
  EXPECT_EQ(rank_list({4}), "4");
  EXPECT_EQ(rank_list({0, 1}), "0-1");
  EXPECT_EQ(rank_list({0, 2, 4}), "0,2,4");
  EXPECT_EQ(rank_list({9, 10, 11, 100}), "9-11,100");
  EXPECT_EQ(rank_list({4294967294u, 4294967295u}), "4294967294-4294967295");
}

TEST(Messages, FormatSeconds) {
  EXPECT_EQ(format_seconds(5), "5 s");
  EXPECT_EQ(format_seconds(0.5), "0.5 s");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(2.25), "2.25 s");
  EXPECT_EQ(format_seconds(120), "120 s");
  EXPECT_EQ(format_seconds(0.001), "0.001 s");
  EXPECT_EQ(format_seconds(3600), "3600 s");
}

TEST(Messages, EveryRankStateIsDescribedDifferently) {
  std::set<std::string> texts;
  for (shm::RankState s : {shm::RankState::launched, shm::RankState::initialized, shm::RankState::finalized,
                           shm::RankState::aborted}) {
    const std::string text = describe_rank_state(s);
    EXPECT_FALSE(text.empty());
    texts.insert(text);
  }
  EXPECT_EQ(texts.size(), 4u);
  EXPECT_EQ(describe_rank_state(shm::RankState::finalized), "finalized, exiting");
  // A value written by a rank of another build, or by a stray write.
  EXPECT_EQ(describe_rank_state(static_cast<shm::RankState>(99)), "in an unknown state");
}

TEST(Messages, ThisHostName) {
  char name[256] = {};
  ASSERT_EQ(::gethostname(name, sizeof name - 1), 0);
  EXPECT_EQ(this_host_name(), name);
  EXPECT_FALSE(this_host_name().empty());
}

}  // namespace
}  // namespace mpf::launcher
