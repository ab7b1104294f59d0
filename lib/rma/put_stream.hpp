// One-sided puts into memory reached directly (an MPI window in node
// memory, an OpenSHMEM heap): from a size on, the copy stores around the
// cache. The target reads such data later, by when it would have left the
// cache anyway, and streaming stores skip reading each destination line
// first (1.5x the rate of a 4 MiB put here).
#pragma once

#include <cstdint>

namespace mpf::rma {

// The size from which a put streams: the rma_stream_copy tunable, or when
// that is 0, an eighth of the last-level cache. Read once.
std::uint64_t put_stream_threshold();

}  // namespace mpf::rma
