// A job another launcher started (srun, Open MPI's mpirun) has no mpfrun
// that knows all of it: each node's first rank registered the node's part
// in that node's run directory (job/run_registry.hpp). The parts found here
// are read here; a Slurm job's other nodes are read by mpfinspect itself
// on them, through one `srun --jobid=JOB --overlap` step that runs
// `mpfinspect --node-parts` once per node, and the job is assembled from
// all the parts. A node that does not answer fails the inspection, named
// with what srun said: a job is never shown without some of its ranks.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/run_registry.hpp"

namespace mpf::inspect {

// How to reach a Slurm job's nodes from here.
struct SlurmReach {
  std::string helper;     // the program srun runs on each node with --node-parts (this one)
  std::string slurm_job;  // the allocation, when the caller knows it (mpfrun inside salloc)
  std::string nodelist;   // its nodes and how many, likewise; otherwise squeue says
  int node_count = 0;
  double timeout_seconds = 30;
};

// Whether `selector` names the job of entry `e`: its id ("57.0"), its Slurm
// job ("57", for its only step) or the tag of the mpfrun that started it.
bool selects(const std::string& selector, const job::JobEntry& e);

// What `mpfinspect --node-parts SELECTOR` prints on one node: the parts of
// the selected job registered in this run directory, on node `node` only
// when it is not empty (the virtual nodes of a test cluster may share a run
// directory), as {"nodes": [part...], "problems": [{"node", "why"}...]}.
nlohmann::json read_parts_here(const job::RunRegistry& registry, const std::string& selector, const std::string& node);

// The whole job `selector` names, as read_job gives an mpfrun job; nothing
// when no job another launcher started has that name, here or (for a
// Slurm job id) in Slurm. Throws InspectError naming nodes not reached.
std::optional<nlohmann::json> read_launched_job(const job::RunRegistry& registry, const std::string& selector,
                                                const SlurmReach& reach);

// The program running now (/proc/self/exe), to run on a Slurm job's nodes.
std::string this_program();

}  // namespace mpf::inspect
