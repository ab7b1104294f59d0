#include "wireup/launchers.hpp"

#include <cstdlib>
#include <string>

namespace mpf::wireup {
namespace {

const char* env(const char* name) { return std::getenv(name); }

long number(const char* text) {
  if (text == nullptr) return 0;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  return end != text && *end == '\0' ? n : 0;
}

}  // namespace

void refuse_other_launchers() {
  if (PmixClient::launched_by_pmix_server()) return;
  const std::string use =
      "; start it with mpfrun, or with a PMIx launcher: srun --mpi=pmix (Slurm) or Open MPI's mpirun";
  if (env("PMI_RANK") != nullptr || env("PMI_SIZE") != nullptr || env("PMI_FD") != nullptr ||
      env("PMI_PORT") != nullptr) {
    const long size = number(env("PMI_SIZE"));
    throw WireupError("this process was started by a launcher that speaks PMI-1/PMI-2 only (PMI_RANK=" +
                      std::string(env("PMI_RANK") != nullptr ? env("PMI_RANK") : "?") +
                      (size > 0 ? ", PMI_SIZE=" + std::to_string(size) : std::string()) +
                      ": MPICH's mpiexec.hydra, or srun --mpi=pmi2); the MPF Toolkit wires up through PMIx" + use);
  }
  if (number(env("SLURM_NTASKS")) > 1 && env("SLURM_PROCID") != nullptr && env("SLURM_STEP_ID") != nullptr) {
    throw WireupError("this process is task " + std::string(env("SLURM_PROCID")) + " of " + env("SLURM_NTASKS") +
                      " of a Slurm step started without PMIx (srun's --mpi is not pmix here)" + use +
                      " (srun --mpi=pmix, or MpiDefault=pmix in slurm.conf)");
  }
}

std::optional<std::vector<std::uint32_t>> virtual_nodes(const JobInfo& job) {
  const char* text = env(kEnvVirtualNodes);
  if (text == nullptr) return std::nullopt;
  std::vector<std::uint32_t> node_of;
  const char* p = text;
  while (*p != '\0') {
    char* end = nullptr;
    const unsigned long n = std::strtoul(p, &end, 10);
    if (end == p || (*end != ',' && *end != '\0') || n >= job.size) {
      throw WireupError(std::string(kEnvVirtualNodes) + "='" + text +
                        "' is not a list of node numbers; it is set by mpfrun --virtual-nodes and must not be changed");
    }
    node_of.push_back(static_cast<std::uint32_t>(n));
    p = *end == ',' ? end + 1 : end;
  }
  if (node_of.size() != job.size) {
    throw WireupError(std::string(kEnvVirtualNodes) + " names the nodes of " + std::to_string(node_of.size()) +
                      " ranks but the job has " + std::to_string(job.size));
  }
  return node_of;
}

void apply_nodes(JobInfo& job, const std::vector<std::uint32_t>& node_of) {
  job.node_id = node_of[job.rank];
  job.hostname += "/node" + std::to_string(job.node_id);
  job.local_peers.clear();
  for (std::uint32_t r = 0; r < node_of.size(); ++r) {
    if (node_of[r] != job.node_id) continue;
    if (r == job.rank) job.local_rank = static_cast<std::uint32_t>(job.local_peers.size());
    job.local_peers.push_back(r);
  }
  job.local_size = static_cast<std::uint32_t>(job.local_peers.size());
}

}  // namespace mpf::wireup
