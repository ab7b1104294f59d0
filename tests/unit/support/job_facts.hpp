// The job facts a collective plan is built from (coll/default_rules.hpp),
// for unit tests of the rules and the plan.
#pragma once

#include <cstdint>

#include "coll/default_rules.hpp"

namespace mpf::testing {

// A node of `node_ranks` ranks on `cpus` CPUs with the default tunables: a
// cell carries 2080 bytes (coll_short_limit 2 KiB, rounded to the cell's
// lines), the board is in use when the ranks outnumber the CPUs, a 1 MiB
// stage, single copy from 64 KiB, streaming from 16 MiB across the node.
inline coll::JobFacts node_facts(std::uint32_t node_ranks, std::uint32_t cpus) {
  constexpr std::uint64_t kKiB = 1024;
  coll::JobFacts f;
  f.node_ranks = node_ranks;
  f.cpus = cpus;
  f.exchange_max = cpus;
  f.radix = 4;
  f.cell_bytes = 2080;
  f.board = node_ranks > cpus;
  f.stage_bytes = 1024 * kKiB;
  f.single_copy = 64 * kKiB;
  f.stream_bytes = 16 * 1024 * kKiB;
  return f;
}

}  // namespace mpf::testing
