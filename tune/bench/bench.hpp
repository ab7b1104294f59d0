// `mpftune bench`: runs the chosen kernels with the toolkit (and with --compare
// the other MPIs installed), then prints the table and writes the reports.
#pragma once

#include "tune/bench/options.hpp"

namespace mpf::tune::bench {

// Exit status: 0 when every run finished, 1 when one did not (the reports
// say which, and still hold everything measured) or the toolkit cannot be
// found, 2 for a bad command line, 130 when interrupted.
int run_bench(const Options& options);

}  // namespace mpf::tune::bench
