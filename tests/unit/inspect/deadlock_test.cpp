// Unit tests of the deadlock analysis (inspect/deadlock.cpp) on synthetic
// jobs: each rank's state, typed wait record and table of communicators,
// as read_job() writes them.
#include "inspect/deadlock.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mpf::inspect {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

json p2p(const char* kind, const char* function, int peer, int tag) {
  return {{"function", function}, {"api", "mpi"}, {"kind", kind}, {"peer", peer},  {"tag", tag},
          {"context", 0},         {"epoch", 0},   {"root", -1},   {"seconds", 3.0}};
}

json collective(const char* function, const char* operation, std::uint32_t context, std::uint32_t seq, int root = -1) {
  return {{"function", function},
          {"api", "mpi"},
          {"kind", "collective"},
          {"peer", -1},
          {"tag", -1},
          {"context", context},
          {"epoch", 0},
          {"root", root},
          {"seconds", 3.0},
          {"collective", {{"operation", operation}, {"seq", seq}}}};
}

json finalize() {
  return {{"function", "MPI_Finalize"},
          {"api", "runtime"},
          {"kind", "finalize"},
          {"peer", -1},
          {"tag", -1},
          {"context", 0},
          {"epoch", 0},
          {"root", -1},
          {"seconds", 3.0}};
}

// A communicator in a rank's table; `recent` lists (seq, operation, nonblocking).
json comm(std::uint32_t context, std::uint32_t size, int rank, std::uint32_t started, std::uint32_t completed,
          std::vector<std::tuple<std::uint32_t, const char*, bool>> recent = {}) {
  json r = json::array();
  for (const auto& [seq, op, nonblocking] : recent)
    r.push_back({{"seq", seq}, {"operation", op}, {"nonblocking", nonblocking}});
  return {{"context", context},     {"epoch", 0}, {"size", size}, {"rank", rank}, {"started", started},
          {"completed", completed}, {"recent", r}};
}

json rank(const char* state, json blocked_in, json communicators = json::array()) {
  return {{"state", state},
          {"blocked_in", std::move(blocked_in)},
          {"communicators", std::move(communicators)},
          {"queues", {{"unexpected", json::array()}}},
          {"packets_in_flight_to", json::object()}};
}

json job(std::vector<json> ranks) { return {{"ranks", ranks}}; }

std::vector<std::string> lines(const json& verdict) {
  return verdict.at("explanation").get<std::vector<std::string>>();
}

TEST(Deadlock, SubCommunicatorCollectiveWaitsOnlyForItsMembers) {
  // Ranks 0-2 share communicator 5; 0 and 1 are in its first barrier, 2
  // and 3 wait for each other.
  const json verdict = analyse_deadlock(job({
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {comm(5, 3, 0, 1, 0, {{1, "barrier", false}})}),
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {comm(5, 3, 1, 1, 0, {{1, "barrier", false}})}),
      rank("initialized", p2p("receive", "MPI_Recv", 3, 1), {comm(5, 3, 2, 0, 0)}),
      rank("initialized", p2p("receive", "MPI_Recv", 2, 2)),
  }));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_EQ(verdict["waits_for"]["0"], json({2}));
  EXPECT_EQ(verdict["waits_for"]["1"], json({2}));
  EXPECT_EQ(verdict["waits_for"]["2"], json({3}));
  EXPECT_THAT(lines(verdict),
              Contains("ranks 0-1 wait in MPI_Barrier, collective #1 on the communicator with context 5 "
                       "(ranks 0-2), for rank 2, which has not entered it"));
  EXPECT_THAT(lines(verdict), Contains("rank 2 waits in MPI_Recv(source 3, tag 1) while rank 3 waits in "
                                       "MPI_Recv(source 2, tag 2)"));
  const json& group = verdict["collectives"][0];
  EXPECT_EQ(group["members"], json({0, 1, 2}));
  EXPECT_EQ(group["not_entered"], json({2}));
  EXPECT_EQ(group["seq"], 1);
  EXPECT_EQ(group["operation"], "barrier");
}

TEST(Deadlock, CollectiveCompletedAsAnotherOperationIsNamed) {
  // Rank 0 ran two broadcasts; the others one broadcast, then a barrier.
  const json world0 = comm(0, 4, 0, 2, 2, {{1, "bcast", false}, {2, "bcast", false}});
  auto other = [](int r) {
    return rank("initialized", collective("MPI_Barrier", "barrier", 0, 2),
                {comm(0, 4, r, 2, 1, {{1, "bcast", false}, {2, "barrier", false}})});
  };
  const json verdict = analyse_deadlock(job({rank("initialized", finalize(), {world0}), other(1), other(2), other(3)}));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict),
              Contains("ranks 1-3 are in MPI_Barrier on MPI_COMM_WORLD while rank 0 waits in MPI_Finalize"));
  EXPECT_THAT(lines(verdict), Contains("rank 0 completed collective #2 on MPI_COMM_WORLD as MPI_Bcast, which ranks 1-3 "
                                       "entered as MPI_Barrier"));
  EXPECT_EQ(verdict["waits_for"]["1"], json({0}));
  EXPECT_EQ(verdict["waits_for"]["0"], json({1, 2, 3}));
  const json& entered = verdict["collectives"][0]["entered_otherwise"][0];
  EXPECT_EQ(entered["rank"], 0);
  EXPECT_EQ(entered["operation"], "bcast");
  EXPECT_TRUE(entered["completed"].get<bool>());
}

TEST(Deadlock, NonblockingCollectiveStartedButNotCompletedIsNamed) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", p2p("receive", "MPI_Recv", 1, 4),
           {comm(0, 2, 0, 2, 1, {{1, "bcast", false}, {2, "bcast", true}})}),
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 2),
           {comm(0, 2, 1, 2, 1, {{1, "bcast", false}, {2, "barrier", false}})}),
  }));
  EXPECT_THAT(lines(verdict), Contains("rank 0 started collective #2 on MPI_COMM_WORLD as MPI_Ibcast and has not "
                                       "completed it, which rank 1 entered as MPI_Barrier"));
}

TEST(Deadlock, MismatchedCallsOfTheSameNumberWaitForEachOther) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", collective("MPI_Bcast", "bcast", 0, 1, 1)),
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 1)),
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 1)),
  }));
  EXPECT_THAT(lines(verdict),
              Contains("rank 0 is in MPI_Bcast(root 1) on MPI_COMM_WORLD while ranks 1-2 are in MPI_Barrier on "
                       "MPI_COMM_WORLD"));
  EXPECT_EQ(verdict["waits_for"]["0"], json({1, 2}));
  EXPECT_EQ(verdict["waits_for"]["1"], json({0}));
}

TEST(Deadlock, SameOperationWithADifferentNumberIsToldApart) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 3)),
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 2)),
  }));
  EXPECT_THAT(lines(verdict), Contains("rank 0 is in MPI_Barrier on MPI_COMM_WORLD (collective #3 there) while rank 1 "
                                       "is in MPI_Barrier on MPI_COMM_WORLD (collective #2 there)"));
  EXPECT_EQ(verdict["waits_for"]["0"], json({1}));
}

TEST(Deadlock, RequestWaitIsAnalysedAsItsOldestRequest) {
  json wait = p2p("request", "MPI_Wait", 1, 7);
  wait["request_of"] = "receive";
  const json verdict = analyse_deadlock(job({rank("initialized", wait), rank("initialized", finalize())}));
  EXPECT_THAT(lines(verdict), Contains("rank 0 waits in MPI_Wait(source 1, tag 7) but rank 1 is in MPI_Finalize: that "
                                       "message was never sent"));
  EXPECT_EQ(verdict["waits_for"]["0"], json({1}));
}

TEST(Deadlock, RequestOfUnknownKindWaitsForEveryone) {
  json wait = p2p("request", "MPI_Wait", -1, -1);
  wait["request_of"] = "none";
  const json verdict = analyse_deadlock(
      job({rank("initialized", wait), rank("initialized", finalize()), rank("initialized", finalize())}));
  EXPECT_EQ(verdict["waits_for"]["0"], json({1, 2}));
}

TEST(Deadlock, RanksWaitOnlyForTheComputingRanksOfTheirCommunicator) {
  // Rank 3 computes but is not in communicator 5: ranks 0 and 1 do not
  // wait for it; rank 2, a member, computes too.
  const json sub = comm(5, 3, 0, 1, 0, {{1, "barrier", false}});
  json verdict = analyse_deadlock(job({
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {sub}),
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {sub}),
      rank("initialized", nullptr, {comm(5, 3, 2, 0, 0)}),
      rank("initialized", nullptr),
  }));
  EXPECT_FALSE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), ElementsAre("ranks 2-3 are computing; ranks 0-1 wait for rank 2 in MPI_Barrier on the "
                                          "communicator with context 5"));
  verdict = analyse_deadlock(job({
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {sub}),
      rank("initialized", collective("MPI_Barrier", "barrier", 5, 1), {sub}),
      rank("initialized", p2p("receive", "MPI_Recv", 0, 1), {comm(5, 3, 2, 0, 0)}),
      rank("initialized", nullptr),
  }));
  EXPECT_FALSE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict)[0], Not(HasSubstr("ranks 0-1 wait")));
}

json rma_wait(const char* function, const char* what, int peer, std::uint32_t context) {
  json b = p2p("rma_sync", function, peer, -1);
  b["context"] = context;
  b["rma_wait"] = what;
  return b;
}

// A window on `context` whose member `target` has `holders` and `queued`
// (world ranks, exclusive requests).
json window_locked(std::uint32_t context, int members, int target, std::vector<int> holders, std::vector<int> queued) {
  json ms = json::array();
  for (int m = 0; m < members; ++m) {
    json h = json::array(), q = json::array();
    if (m == target) {
      for (int r : holders) h.push_back({{"rank", r}, {"type", "exclusive"}, {"seconds", 2.0}});
      for (int r : queued) q.push_back({{"rank", r}, {"type", "exclusive"}, {"seconds", 1.0}});
    }
    ms.push_back({{"rank", m}, {"lock", {{"holders", h}, {"queued", q}}}});
  }
  return {{"context", context}, {"members", ms}};
}

TEST(Deadlock, LockRequestWaitsForTheHoldersNotTheTarget) {
  // Rank 1 holds the lock at rank 2 and waits for rank 0, queued behind it.
  json j = job({
      rank("initialized", rma_wait("MPI_Win_lock", "lock", 2, 7)),
      rank("initialized", p2p("receive", "MPI_Recv", 0, 5)),
      rank("initialized", collective("MPI_Barrier", "barrier", 0, 1)),
  });
  j["windows"] = json::array({window_locked(7, 3, 2, {1}, {0})});
  const json verdict = analyse_deadlock(j);
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_EQ(verdict["waits_for"]["0"], json({1}));
  EXPECT_THAT(lines(verdict), Contains("rank 0 waits in MPI_Win_lock(for the lock at rank 2, held by rank 1) while "
                                       "rank 1 waits in MPI_Recv(source 0, tag 5)"));
}

TEST(Deadlock, LockRequestWithNoHolderWaitsForThoseQueuedBeforeIt) {
  json j = job({
      rank("initialized", rma_wait("MPI_Win_lock", "lock", 2, 7)),
      rank("initialized", rma_wait("MPI_Win_lock", "lock", 2, 7)),
      rank("initialized", p2p("receive", "MPI_Recv", 1, 0)),
  });
  j["windows"] = json::array({window_locked(7, 3, 2, {}, {1, 0})});
  const json verdict = analyse_deadlock(j);
  EXPECT_EQ(verdict["waits_for"]["0"], json({1}));
}

TEST(Deadlock, ActiveTargetWaitsNameWhatTheyWaitFor) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", rma_wait("MPI_Win_wait", "complete", 1, 7)),
      rank("initialized", rma_wait("MPI_Win_start", "post", 0, 7)),
  }));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), Contains("rank 0 waits in MPI_Win_wait(for rank 1's MPI_Win_complete) while rank 1 "
                                       "waits in MPI_Win_start(for rank 0's MPI_Win_post)"));
}

TEST(Deadlock, NoBlockedRankIsNoDeadlock) {
  const json verdict = analyse_deadlock(job({rank("initialized", nullptr), rank("finalized", nullptr)}));
  EXPECT_FALSE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), ElementsAre("no rank is blocked in a communication call"));
}

}  // namespace
}  // namespace mpf::inspect
