// What a rank learns from its launcher beyond PMIx: launchers it cannot
// work with, and the virtual nodes of `mpfrun --virtual-nodes`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "wireup/pmix_client.hpp"

namespace mpf::wireup {

// mpfrun's private protocol (like MPFRUN_SEGMENT_FD): the node of every
// world rank, "0,0,1,1", when mpfrun splits one machine into virtual nodes
// that talk only through the network transport.
inline constexpr const char* kEnvVirtualNodes = "MPFRUN_NODES";

// Throws WireupError when this process, with no PMIx server to talk to,
// was started as one of several ranks by a launcher that speaks only PMI-1
// or PMI-2 (MPICH's hydra mpiexec, srun --mpi=pmi2) or none at all (srun
// without --mpi=pmix): run as a one-rank job it would compute alone and
// exit 0, N times over. The message says which launcher and what to use.
void refuse_other_launchers();

// The node of each world rank when mpfrun runs virtual nodes, or nothing.
// Throws WireupError when the list is malformed or does not fit the job.
std::optional<std::vector<std::uint32_t>> virtual_nodes(const JobInfo& job);

// Makes `job`'s node facts those of its virtual node: local rank and size,
// local peers, node id, and its name ("host/node1": what
// MPI_Get_processor_name says).
void apply_nodes(JobInfo& job, const std::vector<std::uint32_t>& node_of);

}  // namespace mpf::wireup
