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

// A SHMEM wait as read_job() writes it: the engine's record, with what
// the PE's heap says it waits for.
json shmem_word(const char* function, std::uint64_t offset, const char* cmp, long value, long current) {
  json b = p2p("shmem_wait", function, -1, -1);
  b["api"] = "shmem";
  b["shmem"] = {{"what", "wait_until"}, {"area", "heap"},  {"offset", offset},   {"address", "0x7f0000000040"},
                {"comparison", cmp},    {"value", value},  {"words", 1},         {"current", current}};
  return b;
}

json shmem_lock(int holder, std::uint64_t ticket) {
  json b = p2p("shmem_wait", "shmem_set_lock", -1, -1);
  b["api"] = "shmem";
  b["shmem"] = {{"what", "lock"},   {"area", "static data"}, {"offset", 680}, {"address", "0x55000000a8"},
                {"ticket", ticket}, {"serving", 0},          {"held_by", holder}};
  return b;
}

json shmem_barrier(std::uint32_t seq) {
  json b = collective("shmem_barrier_all", "barrier", 2, seq);
  b["api"] = "shmem";
  return b;
}

TEST(Deadlock, ShmemWordsNobodyCanWrite) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", shmem_word("shmem_long_wait_until", 8, "==", 7, 0)),
      rank("initialized", shmem_word("shmem_long_wait_until", 8, "==", 7, 0)),
  }));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_EQ(verdict["waits_for"]["0"], json({1}));
  EXPECT_THAT(lines(verdict), Contains("every unfinished rank waits in SHMEM for a word of its own to change: none of "
                                       "them can write the others'"));
}

TEST(Deadlock, ShmemBarrierAPeNeverReaches) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", shmem_barrier(5), json::array({comm(2, 3, 0, 5, 4)})),
      rank("initialized", shmem_word("shmem_int_wait_until", 16, ">", 0, 0), json::array({comm(2, 3, 1, 4, 4)})),
      rank("initialized", shmem_barrier(5), json::array({comm(2, 3, 2, 5, 4)})),
  }));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), Contains("ranks 0,2 wait in shmem_barrier_all, collective #5 on SHMEM_TEAM_WORLD, for "
                                       "rank 1, which has not entered it"));
  EXPECT_THAT(lines(verdict), Contains("rank 1 waits in shmem_int_wait_until(the word at offset 16 of the heap > 0; "
                                       "it holds 0), and every other unfinished rank is blocked too: none of them "
                                       "can write it"));
}

TEST(Deadlock, ShmemLockHeldByAPeThatWaits) {
  const json verdict = analyse_deadlock(job({
      rank("initialized", shmem_word("shmem_long_wait_until", 0, "!=", 0, 0)),
      rank("initialized", shmem_lock(0, 1)),
  }));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_EQ(verdict["waits_for"]["1"], json({0}));
  EXPECT_THAT(lines(verdict),
              Contains("rank 1 waits in shmem_set_lock(the lock at offset 680 of the static data, held by rank 0): "
                       "rank 0 holds it and waits in shmem_long_wait_until(the word at offset 0 of the heap != 0; it "
                       "holds 0)"));
}

TEST(Deadlock, ShmemLockHeldByAFinishedPe) {
  const json verdict = analyse_deadlock(job({rank("finalized", nullptr), rank("initialized", shmem_lock(0, 1))}));
  EXPECT_TRUE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), Contains(HasSubstr("but rank 0 has finished without releasing it")));
}

TEST(Deadlock, ShmemWaitForAComputingPeIsNoDeadlock) {
  const json verdict = analyse_deadlock(
      job({rank("initialized", shmem_word("shmem_long_wait_until", 0, "==", 1, 0)), rank("initialized", nullptr)}));
  EXPECT_FALSE(verdict["deadlocked"].get<bool>());
}

TEST(Deadlock, NoBlockedRankIsNoDeadlock) {
  const json verdict = analyse_deadlock(job({rank("initialized", nullptr), rank("finalized", nullptr)}));
  EXPECT_FALSE(verdict["deadlocked"].get<bool>());
  EXPECT_THAT(lines(verdict), ElementsAre("no rank is blocked in a communication call"));
}

}  // namespace
}  // namespace mpf::inspect
