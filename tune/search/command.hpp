// `mpftune search` (and `mpftune` alone): tunes this machine and writes the
// tuning file every later job loads, with the report that explains it.
#pragma once

#include "tune/search/options.hpp"

namespace mpf::tune::search {

// Exit status: 0 when the search finished and its files were written, 1 when
// the toolkit cannot be found or a file cannot be written, 2 for a bad
// command line or a journal that cannot be resumed, 130 when interrupted
// (the journal keeps what was measured for --resume).
int run_search_command(const Options& options);

}  // namespace mpf::tune::search
