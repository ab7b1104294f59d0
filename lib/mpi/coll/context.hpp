// What every collective algorithm needs: the channel and the cells, the
// switch points, the waits they co_await, and how a blocking call drives
// its task.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "coll/channel.hpp"
#include "coll/task.hpp"
#include "common/streaming_copy.hpp"
#include "core/runtime.hpp"
#include "mpi/coll/pending.hpp"
#include "mpi/comm.hpp"

namespace mpf::mpi::coll {

inline mpf::coll::Channel& channel() { return core::Runtime::instance().channel(); }

inline mpf::coll::Cells& cells() { return core::Runtime::instance().cells(); }

inline mpf::coll::Board& board() { return core::Runtime::instance().board(); }

inline int radix() {
  return static_cast<int>(core::Runtime::instance().tunables().integer(common::Tunable::coll_radix));
}

// The largest communicator whose barrier and short allreduce exchange
// pairwise (the coll_exchange_max tunable; 0: the job's CPUs).
inline int exchange_max() {
  core::Runtime& rt = core::Runtime::instance();
  const auto max = static_cast<int>(rt.tunables().integer(common::Tunable::coll_exchange_max));
  return max > 0 ? max : static_cast<int>(rt.transport().ncpus());
}

// True when `c` is small enough for the pairwise exchanges (dissemination,
// recursive doubling, staggered all-to-all): never on the board.
inline bool exchanges_fit(const Communicator& c) { return c.size() <= exchange_max(); }

// True when `c`'s collectives go through the board (board.cpp): on
// MPI_COMM_WORLD (context 0) when the world has more ranks than
// coll_exchange_max (the runtime decides once, Board::in_use()).
inline bool on_board(const Communicator& c) { return c.context == 0 && board().in_use(); }

// co_await slot_free(): this rank's slot may be written (its last step taken).
inline auto slot_free() {
  return mpf::coll::until(-1, [] { return channel().drained(); });
}

// co_await post(to, ...): step `step` of `key`, `bytes` at `data`, is in a
// cell for world rank `to`. co_await take(from, ..., out, bytes): the
// message from world rank `from` is copied to `out`.
inline auto post(std::uint32_t to, mpf::coll::Key key, std::uint32_t step, const void* data, std::uint32_t bytes) {
  return mpf::coll::until(static_cast<std::int32_t>(to),
                          [=] { return cells().try_post(to, key, step, data, bytes); });
}
inline auto take(std::uint32_t from, mpf::coll::Key key, std::uint32_t step, void* out, std::uint32_t bytes) {
  return mpf::coll::until(static_cast<std::int32_t>(from),
                          [=] { return cells().try_take_into(from, key, step, out, bytes); });
}

// True when collective data of `bytes` per block moves by single-copy
// reads (the coll_single_copy tunable; never when rndv_mode is copy). Both
// are job-wide, so every rank decides the same.
inline bool single_copy(std::uint64_t bytes) {
  const common::Tunables& t = core::Runtime::instance().tunables();
  const auto threshold = static_cast<std::uint64_t>(t.integer(common::Tunable::coll_single_copy));
  return threshold > 0 && bytes >= threshold && t.text(common::Tunable::rndv_mode) != "copy";
}
// True when collectives may read each other's buffers at all.
inline bool single_copy_on() { return single_copy(std::numeric_limits<std::uint64_t>::max()); }

// True when the world's Alltoall of `bytes` blocks on the board goes by
// single copy (each rank reads its block from every rank; two board calls
// expose the buffers and keep them until all have read) instead of the
// board's rows: blocks of more than half a row, whatever coll_single_copy
// says unless it is 0 (or rndv_mode is copy): smaller blocks measured
// faster through the rows, larger ones by single copy.
inline bool board_alltoall_single(std::uint64_t bytes) {
  return bytes > mpf::coll::Board::capacity() / 2 && single_copy_on();
}

// Bytes of the pieces a single-copy reduction combines at once: both
// operands stay in the CPU's cache.
inline constexpr std::size_t kReduceChunk = std::size_t{64} << 10;

// Bytes of the pieces of a board sum (board.cpp) that a rank holds while
// it adds its input: a few per CPU even for a vector of 64 KiB, so that
// ranks with a CPU each seldom wait for one another, and each long enough
// that taking and giving one back is a small part of adding it.
inline constexpr std::size_t kSumPieceBytes = std::size_t{16} << 10;

// True when a Reduce or Allreduce of `bytes` on `c` with a commutative
// operation goes through the board's sums (reduce_board_sum_task): above
// the rows' capacity, and with a stage (coll_board_stage: the sums are its
// size) that holds an element.
inline bool board_sum(const Communicator& c, std::uint64_t bytes, std::size_t element) {
  return on_board(c) && bytes > mpf::coll::Board::capacity() && board().stage_capacity() >= element;
}

// True when a reduction of `bytes` on `c` whose operation is not exact
// (floating point) goes through the board's sums, in rank order. Each
// rank's turn on a piece comes after that of the rank before it: a wake-up, or a
// turn on a CPU among the ranks that yield, and those turns take longer
// the more ranks share a CPU. So a rank's share must grow with the ranks
// per CPU: at least 512 bytes per rank per CPU, and 4 KiB, where it
// measured faster than the paths taken otherwise (slot trees, single copy).
inline bool board_sum_in_order(const Communicator& c, std::uint64_t bytes) {
  const auto n = static_cast<std::uint64_t>(c.size());
  const std::uint64_t cpus = std::max<std::uint64_t>(1, core::Runtime::instance().transport().ncpus());
  const std::uint64_t per_rank = std::max<std::uint64_t>(4096, 512 * n / cpus);
  return bytes >= per_rank * n;
}

// The piece of a board reduction of `bytes` by single copy (board.cpp)
// that one rank takes at a time: at least coll_single_copy, and small
// enough that every CPU gets two, up to kReduceChunk; 0 when the
// reduction is too small for that (a reduction in one piece measured slower
// than the reduce tree). Job-wide, so every rank decides the same.
inline std::uint64_t board_piece(std::uint64_t bytes) {
  const common::Tunables& t = core::Runtime::instance().tunables();
  const auto threshold = static_cast<std::uint64_t>(t.integer(common::Tunable::coll_single_copy));
  const std::uint64_t per_cpu = bytes / (2 * std::uint64_t{core::Runtime::instance().transport().ncpus()});
  if (!single_copy(bytes) || per_cpu < threshold) return 0;
  return std::max(threshold, std::min<std::uint64_t>(per_cpu, kReduceChunk));
}

// True when `bytes` that every rank receives whole on the board (a Bcast's
// message, an Allgather's blocks in all) go through its stage (board.cpp)
// rather than its entries (or, without a stage, single-copy reads from the
// root): from half the smallest entries' ring (64 KiB), where the stage
// measured faster than the entries (and single-copy reads from the root
// slower than both).
inline bool board_stage(std::uint64_t bytes) {
  return bytes >= std::uint64_t{mpf::coll::kBoardEntriesMin} / 2 * mpf::coll::Board::capacity() &&
         board().stage_capacity() > 0;
}

// True when an Allgather on `c` whose largest block is `largest` goes
// through the board's stage (allgather_board_task): blocks that would make
// a staged Bcast together, larger ones in rounds of the stage's size. Each
// rank copies its block in once and every block out once, from a source
// that stays cached, with streaming stores when the copies outgrow the
// cache (stream_copy_out): measured several times faster than every rank
// reading every block by single copy.
inline bool board_allgather(const Communicator& c, std::uint64_t largest) {
  return on_board(c) && board_stage(largest * static_cast<std::uint64_t>(c.size()));
}

// True when each rank's copy of `bytes` out of shared memory into its own
// buffer (board stage reads, a board sum's result) uses streaming stores
// (common/streaming_copy.hpp): when the node's ranks together write at
// least coll_stream_copy bytes, by default half the last-level cache (the
// ranks' inputs and the stage share it with the destinations). Local to
// the rank: how it copies changes nothing for the others. Streaming pays
// once the ranks' copies outgrow the cache (many ranks, large data) and
// makes no difference below that.
inline bool stream_copy_out(std::uint64_t bytes) {
  const common::Tunables& t = core::Runtime::instance().tunables();
  const auto configured = static_cast<std::uint64_t>(t.integer(common::Tunable::coll_stream_copy));
  return bytes * core::Runtime::instance().transport().size() >= common::stream_threshold(configured);
}

// Copies `bytes` at address `remote` of world rank `peer` (this rank's own
// memory when it is this rank) to `local`, with Cross Memory Attach. A
// kernel that refuses CMA ends the job with a message naming the tunable
// that avoids it (`what` names the collective's algorithm).
void read_peer(std::uint32_t peer, void* local, std::uint64_t remote, std::size_t bytes, const char* what);
// Copies `bytes` at `local` to address `remote` of world rank `peer`, the
// same way.
void write_peer(std::uint32_t peer, std::uint64_t remote, const void* local, std::size_t bytes, const char* what);

inline std::uint32_t world_of(const Communicator& c, int rank) { return c.world[static_cast<std::size_t>(rank)]; }

inline std::vector<std::uint32_t> worlds_of(const Communicator& c, const std::vector<int>& ranks) {
  std::vector<std::uint32_t> out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(world_of(c, r));
  return out;
}

// A blocking collective: drives `task` to its end, shown to mpfinspect as
// `call` on `c` (with its root, if any) while it waits, after the
// nonblocking collectives this rank started before it (pending.hpp).
inline void run(mpf::coll::Task task, const Communicator& c, const char* call, int root) {
  finish_pending(call);
  progress::BlockedCall blocked = collective_wait(c, root, call);
  blocked.crowd = on_board(c);
  core::Runtime& rt = core::Runtime::instance();
  task.run(rt.engine(), blocked);
  rt.transport().flush_wakes();  // the task's last posts may have deferred theirs
}

}  // namespace mpf::mpi::coll
