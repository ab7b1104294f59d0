// mpfrun inside a Slurm allocation (SPEC §6): the ranks are started by
// srun --mpi=pmix on the allocation's nodes, Slurm's PMIx server wires them
// up, and each node's ranks make their node's shared memory. mpfrun keeps
// what it can do from outside: the tunables (--set, --tuning, as MPF_*
// variables of the ranks), --timeout, --tag-output and
// --timestamp-output, --output-filename, standard input to rank 0, and
// the exit status naming the rank that failed and its node. Where ranks
// run (hosts, mapping, binding) is Slurm's to decide: those options are
// refused, naming srun's own.
#pragma once

#include <string>

#include "common/tunables.hpp"
#include "launcher/job.hpp"
#include "launcher/options.hpp"

namespace mpf::launcher {

// Whether this process runs inside a Slurm allocation (SLURM_JOB_ID), and
// of how many nodes (SLURM_JOB_NUM_NODES; 0 outside one).
int slurm_allocation_nodes();

// Whether `options` launch through srun: asked for, or automatic inside an
// allocation of several nodes. Throws UsageError when srun is asked for
// outside an allocation or with options Slurm decides instead.
bool launches_through_srun(const Options& options);

// Runs the job through srun and records it for --report; returns mpfrun's
// exit status.
int run_through_srun(const Options& options, const common::Tunables& tunables, JobRecord& job);

}  // namespace mpf::launcher
