// The benchmark kernels (tune/kernels/*.c): their names, what they measure
// and how many ranks they run with. The kernels' sizes, units and batches
// are their own (see kernel_util.h); this table is what the command needs to
// plan runs.
#pragma once

#include <string_view>
#include <vector>

namespace mpf::tune::bench {

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
  // Uses an interface only the toolkit has (MPF conversations): the other
  // MPIs do not build it.
  bool toolkit_only = false;
};

// In the order runs and reports use.
const std::vector<KernelInfo>& catalogue();
const KernelInfo* find_kernel(std::string_view name);

// The process counts `kernel` runs with, given those of --np.
std::vector<int> process_counts(const KernelInfo& kernel, const std::vector<int>& np);

}  // namespace mpf::tune::bench
