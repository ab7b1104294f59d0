// The benchmark kernels (tune/kernels/*.c): their names, what they measure,
// the interface they are written to and how many ranks they run with. The
// kernels' sizes, units and batches are their own (see kernel_core.h); this
// table is what the command needs to plan runs.
#pragma once

#include <string_view>
#include <vector>

namespace mpf::tune::bench {

// The interface a kernel is written to, and that an implementation
// compared with the toolkit builds kernels for (its compiler wrapper's).
enum class Api {
  mpi,    // mpi.h
  mpf,    // mpf.h, MPF conversations: the toolkit's own
  shmem,  // shmem.h, OpenSHMEM
};

// "MPI (mpi.h)", "MPF conversations (mpf.h)", "OpenSHMEM (shmem.h)".
std::string_view api_name(Api api);

// The interface of the implementations a kernel of `api` is compared with:
// its own, but the MPIs for an MPF kernel (they run its MPI counterpart,
// `patterns`, and report the MPF kernel as one they cannot build).
Api compared_with(Api api);

enum class Ranks {
  pair,     // exactly 2 ranks
  scaling,  // each process count of --np
};

struct KernelInfo {
  std::string_view name;       // kernel_<name>, from kernels/<name>.c
  std::string_view summary;    // one line, for --list-kernels and reports
  Ranks ranks;
  int min_ranks;               // process counts below are skipped
  bool timed_by_bench;         // startup: the command times whole jobs
  Api api = Api::mpi;
};

// In the order runs and reports use.
const std::vector<KernelInfo>& catalogue();
const KernelInfo* find_kernel(std::string_view name);

// The process counts `kernel` runs with, given those of --np.
std::vector<int> process_counts(const KernelInfo& kernel, const std::vector<int>& np);

}  // namespace mpf::tune::bench
