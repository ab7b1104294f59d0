// Unit tests of reading a job another launcher started
// (inspect/cluster_job.hpp): which registered node parts a job id names,
// and what a node reports of parts it cannot read.
#include "inspect/cluster_job.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace mpf::inspect {
namespace {

job::JobEntry part(const std::string& jobid, const std::string& launcher, const std::string& host) {
  job::JobEntry e;
  e.jobid = jobid;
  e.launcher = launcher;
  e.host = host;
  e.launcher_pid = 1;
  e.nodes = {{host, 5, {0}}};
  e.job_nodes = {"n1", "n2"};
  e.job_ranks = 2;
  return e;
}

TEST(ClusterJob, AJobIdSelectsItsParts) {
  const job::JobEntry step = part("57.0", "srun", "n1");
  EXPECT_TRUE(selects("57.0", step));
  EXPECT_TRUE(selects("57", step));  // the Slurm job, for its step
  EXPECT_FALSE(selects("5", step));
  EXPECT_FALSE(selects("57.1", step));
  EXPECT_FALSE(selects("570", step));
  job::JobEntry tagged = step;
  tagged.launch_tag = "login:4242";
  EXPECT_TRUE(selects("login:4242", tagged));
  EXPECT_FALSE(selects("", step));  // an empty tag selects nothing
  // Another launcher's job: by its namespace only.
  const job::JobEntry open_mpi = part("prterun-vm-100@1", "pmix", "n1");
  EXPECT_TRUE(selects("prterun-vm-100@1", open_mpi));
  EXPECT_FALSE(selects("prterun-vm-100", open_mpi));
  // An mpfrun job is not a node part.
  job::JobEntry mpfrun;
  mpfrun.jobid = "4242";
  EXPECT_FALSE(selects("4242", mpfrun));
}

TEST(ClusterJob, APartWhoseFirstRankEndedIsNamedNotSkipped) {
  const std::string dir = ::testing::TempDir() + "mpf-cluster-job-" + std::to_string(::getpid());
  const job::RunRegistry registry(dir);
  job::JobEntry gone = part("58.0", "srun", "n2");
  gone.launcher_pid = 999999999;  // no such process
  registry.publish(gone);
  const nlohmann::json answer = read_parts_here(registry, "58.0", "n2");
  EXPECT_TRUE(answer["nodes"].empty());
  ASSERT_EQ(answer["problems"].size(), 1u);
  EXPECT_EQ(answer["problems"][0]["node"], "n2");
  EXPECT_NE(answer["problems"][0]["why"].get<std::string>().find("has ended"), std::string::npos);
  // Another node's parts are not this node's to read.
  EXPECT_TRUE(read_parts_here(registry, "58.0", "n1")["problems"].empty());
  std::filesystem::remove_all(dir);
}

TEST(ClusterJob, EveryStepsUnreadablePartIsNamed) {
  // Two steps of job 59 on this node, both running (this process stands
  // for both leaders), neither with a segment to read: "59" selects both,
  // and each is a problem, not a crash or a silent skip.
  const std::string dir = ::testing::TempDir() + "mpf-cluster-steps-" + std::to_string(::getpid());
  const job::RunRegistry registry(dir);
  for (const char* id : {"59.0", "59.1"}) {
    job::JobEntry e = part(id, "srun", "n1");
    e.launcher_pid = ::getpid();
    e.launcher_start_ticks = job::process_start_ticks(::getpid()).value_or(0);
    e.job_nodes = {"n1"};
    e.nodes = {{"n1", -1, {0}}};
    registry.publish(e);
  }
  const nlohmann::json answer = read_parts_here(registry, "59", "");
  EXPECT_EQ(answer["problems"].size(), 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mpf::inspect
