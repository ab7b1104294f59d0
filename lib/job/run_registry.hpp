// The run directory: every running job registers itself there so that
// mpfinspect can list and open it (SPEC §2 Introspection, §7). One JSON file
// per job, written by its mpfrun and removed when the job ends. A job that
// another launcher started (srun, Open MPI's mpirun) has no mpfrun: each
// node's first rank registers the node's part of it, in that node's run
// directory. An entry whose process died without cleaning up (SIGKILL) is
// recognised as dead and its leftovers are removed by the next mpfrun or by
// `mpfrun --cleanup`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpf::job {

struct RankEntry {
  std::uint32_t rank = 0;
  pid_t pid = 0;
  std::string program;
};

// One node's part of a job that mpfrun split into virtual nodes: its
// segment (a descriptor of mpfrun's) and the world ranks on it, in their
// order in that segment.
struct NodeEntry {
  std::string name;
  int segment_fd = -1;
  std::vector<std::uint32_t> ranks;
};

struct JobEntry {
  std::string jobid;     // mpfrun's pid; "JOB.STEP" under srun; the PMIx namespace under another launcher
  std::string launcher = "mpfrun";  // "mpfrun", "srun" or "pmix" (another PMIx launcher)
  pid_t launcher_pid = 0;  // mpfrun, or the node's first rank for a node's part
  std::uint64_t launcher_start_ticks = 0;  // /proc/<pid>/stat starttime: guards against pid reuse
  int segment_fd = -1;                     // the segment is /proc/<launcher_pid>/fd/<segment_fd>
  std::string pmix_tmpdir;                 // the embedded PMIx server's private directory
  std::string host;
  std::vector<std::string> command;        // mpfrun's own command line
  std::int64_t start_unix_ms = 0;
  std::vector<RankEntry> ranks;
  // Several nodes (mpfrun --virtual-nodes): each node's segment; empty for
  // one node, whose segment is segment_fd.
  std::vector<NodeEntry> nodes;
  // A node's part of a job another launcher started: nodes holds this node
  // alone; these say what the whole job is.
  std::vector<std::string> job_nodes;  // every node of the job, in the order of their first ranks
  std::uint32_t job_ranks = 0;
  std::string launch_tag;  // MPFRUN_LAUNCH_TAG: the mpfrun that started the job through srun

  bool is_node_part() const { return launcher != "mpfrun"; }
  // The entry's file: the job id, with the node's name for a node's part
  // (the virtual nodes of a test cluster may share a run directory).
  std::string file_name() const { return is_node_part() ? jobid + "+" + host : jobid; }
};

nlohmann::json to_json(const JobEntry& entry);
JobEntry job_entry_from_json(const nlohmann::json& j);

// Start time of a process in clock ticks since boot, or nothing if it is gone.
std::optional<std::uint64_t> process_start_ticks(pid_t pid);

class RunRegistry {
 public:
  explicit RunRegistry(std::string directory);
  const std::string& directory() const { return directory_; }

  // Writes (or rewrites) the job's entry atomically: readers see the old or
  // the new file, never a partial one. A jobid must be a plain file name.
  void publish(const JobEntry& entry) const;
  void remove(const JobEntry& entry) const;
  // Every registered job, live or dead; unreadable entries are skipped.
  std::vector<JobEntry> list() const;
  // The same, each with the file it was read from.
  std::vector<std::pair<std::string, JobEntry>> list_files() const;
  // The job's mpfrun is still the process that registered it.
  static bool alive(const JobEntry& entry);
  // Removes what dead jobs left behind (entry and PMIx directory) and returns
  // the jobs it cleaned.
  std::vector<JobEntry> clean_dead() const;
  // Removes the dead node parts of jobs other launchers started on node
  // `host` (a node's first rank does, before registering its own part; the
  // processes of other nodes are not this machine's to judge).
  void clean_dead_parts_of(const std::string& host) const;
  // clean_dead(), reported on standard output as `program` ("mpfrun").
  void clean_dead_and_report(const char* program) const;

 private:
  std::string path_of(const std::string& file_name) const;
  std::string directory_;
};

}  // namespace mpf::job
