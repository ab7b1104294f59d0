// Unit tests of the run directory (lib/job/run_registry.{hpp,cpp}): the JSON of an
// entry, publishing and listing, telling a live job from a dead one (pid reuse
// included), and cleaning up after dead jobs without touching anything else.
#include "job/run_registry.hpp"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mpf::job {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::string>;

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it.
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/mpf-unit-registry-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The pid of a child that has exited and been reaped: no process has it now
// (pids are not reused that quickly on a machine that is not exhausting them).
pid_t reaped_child_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  EXPECT_GT(child, 0) << "fork: " << std::strerror(errno);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  return child;
}

JobEntry sample_entry(const std::string& jobid) {
  JobEntry e;
  e.jobid = jobid;
  e.launcher_pid = 4242;
  e.launcher_start_ticks = 123456789012ULL;
  e.segment_fd = 7;
  e.pmix_tmpdir = "/tmp/mpf-pmix-" + jobid;
  e.host = "node-a";
  e.command = {"mpfrun", "-n", "2", "./ring", "--size", "1 MiB"};
  e.start_unix_ms = 1700000000123;
  e.ranks = {{0, 5001, "./ring"}, {1, 5002, "/usr/bin/env"}};
  return e;
}

// An entry for a job whose mpfrun is this process: alive by every test.
JobEntry live_entry(const std::string& jobid, const fs::path& pmix_tmpdir) {
  JobEntry e = sample_entry(jobid);
  e.launcher_pid = ::getpid();
  e.launcher_start_ticks = process_start_ticks(::getpid()).value_or(0);
  e.pmix_tmpdir = pmix_tmpdir.string();
  return e;
}

// An entry for a job whose mpfrun has gone.
JobEntry dead_entry(const std::string& jobid, const fs::path& pmix_tmpdir) {
  JobEntry e = sample_entry(jobid);
  e.launcher_pid = reaped_child_pid();
  e.pmix_tmpdir = pmix_tmpdir.string();
  return e;
}

void make_dir_with_file(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "contents") << "left behind\n";
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

std::vector<std::string> jobids(const std::vector<JobEntry>& entries) {
  std::vector<std::string> ids;
  for (const JobEntry& e : entries) ids.push_back(e.jobid);
  std::sort(ids.begin(), ids.end());  // list() follows the directory's order
  return ids;
}

void expect_equal(const JobEntry& a, const JobEntry& b) {
  EXPECT_EQ(a.jobid, b.jobid);
  EXPECT_EQ(a.launcher_pid, b.launcher_pid);
  EXPECT_EQ(a.launcher_start_ticks, b.launcher_start_ticks);
  EXPECT_EQ(a.segment_fd, b.segment_fd);
  EXPECT_EQ(a.pmix_tmpdir, b.pmix_tmpdir);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.start_unix_ms, b.start_unix_ms);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (std::size_t i = 0; i < a.ranks.size(); ++i) {
    EXPECT_EQ(a.ranks[i].rank, b.ranks[i].rank) << "rank entry " << i;
    EXPECT_EQ(a.ranks[i].pid, b.ranks[i].pid) << "rank entry " << i;
    EXPECT_EQ(a.ranks[i].program, b.ranks[i].program) << "rank entry " << i;
  }
}

// --- JSON ---------------------------------------------------------------------

TEST(RunRegistryJson, RoundTrip) {
  const JobEntry original = sample_entry("job-1");
  const nlohmann::json j = to_json(original);
  expect_equal(job_entry_from_json(j), original);
  // Through text as well, the way the file is read back.
  expect_equal(job_entry_from_json(nlohmann::json::parse(j.dump(2))), original);
}

TEST(RunRegistryJson, FieldNames) {
  const nlohmann::json j = to_json(sample_entry("job-2"));
  for (const char* key : {"jobid", "launcher_pid", "launcher_start_ticks", "segment_fd", "pmix_tmpdir", "host",
                          "command", "start_unix_ms", "ranks"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j.at("jobid"), "job-2");
  EXPECT_EQ(j.at("ranks").at(1).at("program"), "/usr/bin/env");
  EXPECT_EQ(j.at("ranks").at(1).at("pid"), 5002);
}

// A node's part of a job srun started: what the whole job is travels with
// it, and each node's part has its own file, so that the virtual nodes of a
// test cluster can share a run directory.
JobEntry node_part(const std::string& host) {
  JobEntry e = sample_entry("57.0");
  e.launcher = "srun";
  e.host = host;
  e.ranks.clear();
  e.nodes = {{host, 9, host == "n1" ? std::vector<std::uint32_t>{0, 1} : std::vector<std::uint32_t>{2}}};
  e.job_nodes = {"n1", "n2"};
  e.job_ranks = 3;
  e.launch_tag = "login:4242";
  return e;
}

TEST(RunRegistryJson, NodePartRoundTrip) {
  const JobEntry part = node_part("n2");
  EXPECT_TRUE(part.is_node_part());
  EXPECT_FALSE(sample_entry("1").is_node_part());
  const JobEntry back = job_entry_from_json(nlohmann::json::parse(to_json(part).dump()));
  expect_equal(back, part);
  EXPECT_EQ(back.launcher, "srun");
  EXPECT_EQ(back.job_nodes, part.job_nodes);
  EXPECT_EQ(back.job_ranks, 3u);
  EXPECT_EQ(back.launch_tag, "login:4242");
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].ranks, (std::vector<std::uint32_t>{2}));
  // An mpfrun job's entry says nothing of launchers.
  EXPECT_FALSE(to_json(sample_entry("1")).contains("launcher"));
  EXPECT_EQ(job_entry_from_json(to_json(sample_entry("1"))).launcher, "mpfrun");
}

TEST(RunRegistry, NodePartsOfOneJobShareADirectory) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());
  registry.publish(node_part("n1"));
  registry.publish(node_part("n2"));
  EXPECT_TRUE(fs::exists(tmp.path() / "run" / "57.0+n1.json"));
  EXPECT_TRUE(fs::exists(tmp.path() / "run" / "57.0+n2.json"));
  EXPECT_EQ(jobids(registry.list()), (Ids{"57.0", "57.0"}));
  registry.remove(node_part("n1"));
  const std::vector<JobEntry> left = registry.list();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].host, "n2");
}

TEST(RunRegistryJson, EmptyRanksAndCommand) {
  JobEntry e = sample_entry("job-3");
  e.ranks.clear();
  e.command.clear();
  const JobEntry back = job_entry_from_json(to_json(e));
  EXPECT_TRUE(back.ranks.empty());
  EXPECT_TRUE(back.command.empty());
}

TEST(RunRegistryJson, MissingOrMistypedFieldThrows) {
  nlohmann::json j = to_json(sample_entry("job-4"));
  j.erase("launcher_start_ticks");
  EXPECT_THROW(job_entry_from_json(j), nlohmann::json::exception);

  nlohmann::json k = to_json(sample_entry("job-4"));
  k["launcher_pid"] = "not a pid";
  EXPECT_THROW(job_entry_from_json(k), nlohmann::json::exception);
}

// --- Directory ----------------------------------------------------------------

TEST(RunRegistry, PublishListRemove) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());  // created by the first publish
  EXPECT_TRUE(registry.list().empty()) << "a missing directory lists no jobs";

  registry.publish(sample_entry("a"));
  registry.publish(sample_entry("b"));
  EXPECT_TRUE(fs::exists(tmp.path() / "run" / "a.json"));
  EXPECT_EQ(fs::status(tmp.path() / "run").permissions() & fs::perms::all, fs::perms::owner_all)
      << "the run directory is private to its user";

  std::vector<JobEntry> jobs = registry.list();
  EXPECT_EQ(jobids(jobs), (Ids{"a", "b"}));
  for (const JobEntry& job : jobs) expect_equal(job, sample_entry(job.jobid));

  // Publishing again rewrites the entry in place; no temporary file stays behind.
  JobEntry updated = sample_entry("a");
  updated.ranks.push_back({2, 5003, "./late"});
  registry.publish(updated);
  jobs = registry.list();
  ASSERT_EQ(jobids(jobs), (Ids{"a", "b"}));
  for (const JobEntry& job : jobs) {
    if (job.jobid == "a") expect_equal(job, updated);
  }
  for (const auto& file : fs::directory_iterator(tmp.path() / "run")) {
    EXPECT_EQ(file.path().extension(), ".json") << file.path();
  }

  registry.remove(sample_entry("a"));
  EXPECT_EQ(jobids(registry.list()), (Ids{"b"}));
  EXPECT_FALSE(fs::exists(tmp.path() / "run" / "a.json"));
  registry.remove(sample_entry("a"));  // removing twice is harmless
  registry.remove(sample_entry("b"));
  EXPECT_TRUE(registry.list().empty());
}

TEST(RunRegistry, ListSkipsMalformedAndForeignFiles) {
  TempDir tmp;
  const RunRegistry registry(tmp.path().string());
  registry.publish(sample_entry("good"));
  write_file(tmp.path() / "garbage.json", "{ this is not json");
  write_file(tmp.path() / "empty.json", "");
  write_file(tmp.path() / "array.json", "[1, 2, 3]");
  nlohmann::json partial = to_json(sample_entry("partial"));
  partial.erase("ranks");
  write_file(tmp.path() / "partial.json", partial.dump());
  write_file(tmp.path() / "notes.txt", to_json(sample_entry("txt")).dump());
  write_file(tmp.path() / "half.json.tmp", to_json(sample_entry("tmp")).dump());
  fs::create_directory(tmp.path() / "dir.json");

  EXPECT_EQ(jobids(registry.list()), (Ids{"good"}));
  // Nor does clean_dead() trip over them (or delete them: they are not entries).
  EXPECT_NO_THROW(registry.clean_dead());
  EXPECT_TRUE(fs::exists(tmp.path() / "garbage.json"));
}

// --- Liveness -----------------------------------------------------------------

TEST(ProcessStartTicks, PresentAndStableForThisProcess) {
  const auto first = process_start_ticks(::getpid());
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(process_start_ticks(::getpid()), first);
  // A process started later than its parent does not have an earlier start time.
  const auto parent = process_start_ticks(::getppid());
  ASSERT_TRUE(parent.has_value());
  EXPECT_LE(*parent, *first);
}

TEST(ProcessStartTicks, AbsentForAReapedChild) {
  EXPECT_EQ(process_start_ticks(reaped_child_pid()), std::nullopt);
  EXPECT_EQ(process_start_ticks(0), std::nullopt);
  EXPECT_EQ(process_start_ticks(-1), std::nullopt);
}

// /proc/<pid>/stat puts the command name in parentheses, and the name may itself
// hold spaces and parentheses: the fields must be counted from the last ')'.
TEST(ProcessStartTicks, CommandNameWithSpacesAndParentheses) {
  int go[2], done[2];
  ASSERT_EQ(::pipe(go), 0);
  ASSERT_EQ(::pipe(done), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);  // so that the read below sees EOF when the parent closes its end
    ::close(done[0]);
    char byte = 0;
    if (::read(go[0], &byte, 1) != 1) ::_exit(1);
    ::prctl(PR_SET_NAME, "a) b (c) d e f");
    if (::write(done[1], &byte, 1) != 1) ::_exit(1);
    // Stay alive until the parent closes the pipe.
    while (::read(go[0], &byte, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(go[0]);
  ::close(done[1]);
  const auto before = process_start_ticks(child);
  char byte = 'x';
  ASSERT_EQ(::write(go[1], &byte, 1), 1);
  ASSERT_EQ(::read(done[0], &byte, 1), 1);
  std::string comm;
  std::getline(std::ifstream("/proc/" + std::to_string(child) + "/comm"), comm);
  const auto after = process_start_ticks(child);
  ::close(go[1]);
  ::close(done[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);

  EXPECT_EQ(comm, "a) b (c) d e f");
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(after, before);
}

TEST(RunRegistryAlive, OurOwnEntryIsAlive) {
  TempDir tmp;
  EXPECT_TRUE(RunRegistry::alive(live_entry("me", tmp.path() / "mpf-pmix-me")));
}

TEST(RunRegistryAlive, DeadPidIsNotAlive) {
  TempDir tmp;
  JobEntry e = live_entry("gone", tmp.path() / "mpf-pmix-gone");
  e.launcher_pid = reaped_child_pid();
  EXPECT_FALSE(RunRegistry::alive(e));
}

// The pid exists but belongs to another process than the one that registered:
// the pid was reused after the job's mpfrun died.
TEST(RunRegistryAlive, LivePidWithOtherStartTicksIsNotAlive) {
  TempDir tmp;
  JobEntry e = live_entry("reused", tmp.path() / "mpf-pmix-reused");
  e.launcher_start_ticks += 1;
  EXPECT_FALSE(RunRegistry::alive(e));
  e.launcher_start_ticks = 0;
  EXPECT_FALSE(RunRegistry::alive(e));
}

// --- Cleaning -----------------------------------------------------------------

TEST(RunRegistryClean, RemovesDeadJobsAndKeepsLiveOnes) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());
  const fs::path live_dir = tmp.path() / "mpf-pmix-live";
  const fs::path dead_dir = tmp.path() / "mpf-pmix-dead";
  const fs::path dead_dir2 = tmp.path() / "mpf-pmix-dead2";
  make_dir_with_file(live_dir);
  make_dir_with_file(dead_dir);
  make_dir_with_file(dead_dir2);
  registry.publish(live_entry("live", live_dir));
  registry.publish(dead_entry("dead", dead_dir));
  registry.publish(dead_entry("dead2", dead_dir2));

  EXPECT_EQ(jobids(registry.clean_dead()), (Ids{"dead", "dead2"}));
  EXPECT_EQ(jobids(registry.list()), (Ids{"live"}));
  EXPECT_TRUE(fs::exists(live_dir / "contents"));
  EXPECT_FALSE(fs::exists(dead_dir));
  EXPECT_FALSE(fs::exists(dead_dir2));
  EXPECT_FALSE(fs::exists(tmp.path() / "run" / "dead.json"));

  // Nothing left to clean the second time.
  EXPECT_TRUE(registry.clean_dead().empty());
  EXPECT_EQ(jobids(registry.list()), (Ids{"live"}));
}

TEST(RunRegistryClean, DeadJobWhosePmixDirectoryIsAlreadyGone) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());
  registry.publish(dead_entry("dead", tmp.path() / "mpf-pmix-never-made"));
  EXPECT_EQ(jobids(registry.clean_dead()), (Ids{"dead"}));
  EXPECT_TRUE(registry.list().empty());
}

// Whatever a (damaged) entry says, only a directory named mpf-pmix-* is removed.
TEST(RunRegistryClean, NeverRemovesADirectoryNotNamedMpfPmix) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());
  const fs::path precious = tmp.path() / "precious";
  const fs::path lookalike = tmp.path() / "not-mpf-pmix-x";
  const fs::path inside = tmp.path() / "mpf-pmix-outer" / "data";
  make_dir_with_file(precious);
  make_dir_with_file(lookalike);
  make_dir_with_file(inside);
  registry.publish(dead_entry("plain", precious));
  registry.publish(dead_entry("lookalike", lookalike));
  registry.publish(dead_entry("inside", inside));  // a child of an mpf-pmix-* directory: not one itself
  registry.publish(dead_entry("dotdot", tmp.path() / "mpf-pmix-outer" / ".."));
  registry.publish(dead_entry("slash", precious.string() + "/"));
  registry.publish(dead_entry("empty", ""));

  EXPECT_EQ(jobids(registry.clean_dead()), (Ids{"dotdot", "empty", "inside", "lookalike", "plain", "slash"}));
  EXPECT_TRUE(registry.list().empty()) << "the entries of dead jobs go, whatever their directory";
  EXPECT_TRUE(fs::exists(precious / "contents"));
  EXPECT_TRUE(fs::exists(lookalike / "contents"));
  EXPECT_TRUE(fs::exists(inside / "contents"));
  EXPECT_TRUE(fs::exists(tmp.path() / "run"));
}

// clean_dead() must remove the file it read, not the file its (damaged) jobid
// names: a stale copy of a live job's entry, or a jobid with "../" in it, must
// not be able to delete another job's entry or a file outside the run directory.
TEST(RunRegistryClean, RemovesTheEntryFileItReadNotTheOneItsJobidNames) {
  TempDir tmp;
  const RunRegistry registry((tmp.path() / "run").string());
  registry.publish(live_entry("live", tmp.path() / "mpf-pmix-live"));

  // A dead entry whose jobid is that of the live job, in a file of another name.
  write_file(tmp.path() / "run" / "stale.json", to_json(dead_entry("live", tmp.path() / "mpf-pmix-x")).dump());
  // A dead entry whose jobid climbs out of the run directory.
  write_file(tmp.path() / "outside.json", "not an entry, but not the registry's to delete\n");
  write_file(tmp.path() / "run" / "climber.json",
             to_json(dead_entry("../outside", tmp.path() / "mpf-pmix-y")).dump());

  registry.clean_dead();
  EXPECT_TRUE(fs::exists(tmp.path() / "run" / "live.json")) << "a live job's entry was deleted";
  EXPECT_FALSE(fs::exists(tmp.path() / "run" / "stale.json")) << "the dead entry's own file was left";
  EXPECT_TRUE(fs::exists(tmp.path() / "outside.json")) << "a file outside the run directory was deleted";
  EXPECT_FALSE(fs::exists(tmp.path() / "run" / "climber.json")) << "the dead entry's own file was left";
}

}  // namespace
}  // namespace mpf::job
