// The collective algorithms, neutral to the API: over a Group (coll/group.hpp:
// members as world ranks, context, plan), on contiguous bytes, through the
// collective slots (coll/channel.hpp), the cells (coll/cells.hpp) and the
// board (coll/board.hpp). The API checks its arguments, resolves its
// datatypes and in-place buffers, and calls these: MPI from
// mpi/collectives.cpp; SHMEM from shmem/collectives.cpp. A reduction takes
// its operation as a Combine (coll/combine.hpp: an element type and an
// operation, or the program's own function). Each algorithm is a task
// (coll/task.hpp) that the blocking call runs to its end and the
// nonblocking call keeps in its request (coll/pending.hpp). The caller
// takes the group's next collective key (in call order, so every member
// agrees on it even when the call has nothing to move) and passes it in;
// the blocking functions at the end do both. The files are in
// coll/algorithms/, one per family.
//
// Which algorithm a call takes is its group's plan's choice
// (Group::plan, coll/plan.hpp), from the tuning file's rules and the
// default ones (coll/default_rules.cpp, where the switch points and their
// reasons are). By default: on MPI_COMM_WORLD with more ranks than
// coll_exchange_max, Barrier, Reduce and Allreduce of up to the board's
// row, Alltoall of up to half of it, Allgather of 64 KiB in all or more
// (in rounds of the stage's size) and Bcast of any size go through the
// board (board.cpp: flat, one wait per rank and call; a large Bcast or
// Allgather through its stage), and so do larger Reduce and Allreduce:
// with a commutative operation every rank adds its input into one of the
// board's sums (as it runs, or in rank order unless the operation is
// exact), else, when large enough for two single-copy pieces per CPU,
// whichever rank has a CPU combines the next piece. Larger Alltoall blocks
// go by single copy, exposed through the board. Data of at most
// coll_short_limit bytes per rank goes through the cells (cells.cpp: one
// cache-line transfer per message, and dissemination or recursive
// doubling on up to coll_exchange_max ranks); blocks of at least
// coll_single_copy bytes of Bcast, Reduce, Allreduce, Alltoall and
// Allgather are read straight from the peers' buffers (single_copy.cpp);
// the rest goes through the slots:
//
//   barrier, bcast, reduce   k-nomial trees (radix: the rule's, by default coll_radix)
//   allreduce                the reduce tree, then its bcast, chunk by chunk
//   reductions               always rooted at rank 0 and combined in rank
//                            order, so the result does not depend on the
//                            root and non-commutative operations see
//                            x0 op x1 op ... (seed 002 §3.3); on the cells,
//                            exact operations (Combine::exact) at the root
//   gatherv, scatterv        straight to and from the root
//   alltoallv                every rank publishes its blocks, staggered by
//                            rank, and takes its own from every other (a
//                            pair's blocks of up to coll_short_limit bytes
//                            go through the pair's cells)
//   scan, exscan             a chain in rank order
//
// The cells' algorithms are step lists (algorithms/steps.hpp): the *_by_steps
// functions below run them for a blocking call without a coroutine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "coll/combine.hpp"
#include "coll/group.hpp"
#include "coll/plan.hpp"
#include "coll/task.hpp"

namespace mpf::coll {

// Which algorithm a collective step belongs to (coll::Key::kind).
enum Kind : std::uint32_t { kBarrier = 1, kBcast, kReduce, kAllreduce, kScan, kExscan, kGatherv, kScatterv, kAlltoallv };

Task barrier_task(const Group& c, Key key);
Task bcast_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root);
// `root` < 0: every rank gets the result (allreduce).
Task reduce_task(const Group& c, Key key, const void* send, void* recv, int count,
                            Combine combine, int root);
// The plan's choice for a Reduce (root >= 0) or Allreduce (root < 0) of
// `count` (> 0) elements of `type` with `op`.
Choice reduce_choice(const Group& c, int count, Combine combine, int root);
// The cell algorithms (cells.cpp), for data of at most cells().capacity()
// bytes per rank; the functions above choose them. Trees of `radix`.
Task bcast_cells_task(const Group& c, Key key, void* buffer, std::uint32_t bytes,
                                 int root, int radix);
Task reduce_cells_task(const Group& c, Key key, const void* send, void* recv, int count,
                                  Combine combine, int root, int radix);
// Allreduce by recursive doubling, on a power-of-two communicator.
Task allreduce_doubling_task(const Group& c, Key key, const void* send, void* recv,
                                        int count, Combine combine);
// Every rank's block (bytes[i] at displs[i] of recv; this rank's from
// `send`) to every rank; each block fits a cell.
Task allgatherv_cells_task(const Group& c, Key key, const void* send, void* recv,
                                      std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs);
Task alltoall_cells_task(const Group& c, Key key, const void* send, void* recv,
                                    std::uint32_t bytes);
// Bruck's algorithm: (size + 1) / 2 blocks must fit a cell.
Task alltoall_bruck_task(const Group& c, Key key, const void* send, void* recv,
                                    std::uint32_t bytes);
Task scan_task(const Group& c, Key key, const void* send, void* recv, int count,
                          Combine combine, bool exclusive);
// Per rank: bytes and byte displacement of its block at the root.
Task gatherv_task(const Group& c, Key key, const void* send, std::uint64_t send_bytes,
                             void* recv, std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs, int root);
Task scatterv_task(const Group& c, Key key, const void* send,
                              std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs, void* recv,
                              std::uint64_t recv_bytes, int root);
Task alltoallv_task(const Group& c, Key key, const void* send,
                               std::vector<std::uint64_t> send_bytes, std::vector<std::uint64_t> send_displs,
                               void* recv, std::vector<std::uint64_t> recv_bytes,
                               std::vector<std::uint64_t> recv_displs);
// The single-copy algorithms (single_copy.cpp); the functions here choose
// them.
Task bcast_single_task(const Group& c, Key key, void* buffer, std::uint64_t bytes,
                                  int root);
// `root` < 0: every rank gets the result (allreduce). Combines pieces of
// `piece_bytes` at once (whole elements, at least one).
Task reduce_single_task(const Group& c, Key key, const void* send, void* recv, int count,
                                   Combine combine, int root, std::uint64_t piece_bytes);
// Where a rank's buffers are, as its peers read and write them by single
// copy.
struct Exposed {
  std::uint64_t in = 0;
  std::uint64_t out = 0;
};
inline std::uint64_t address(const void* p) { return reinterpret_cast<std::uint64_t>(p); }
// Combines `elements` of `type` at byte `offset` of every rank's input
// (rank j's at peers[j].in; `own`, when not null, is this rank's, read in
// place) in rank order, x0 op x1 op ... op xn-1, reading each by single
// copy. `a` and `b` are scratch for that many bytes; the result lands in
// `last` when given, else in one of them: returns where.
const std::byte* reduce_span(const Group& c, const std::vector<Exposed>& peers, const std::byte* own,
                             std::size_t offset, int elements, Combine combine, std::byte* a,
                             std::byte* b, std::byte* last);
Task alltoall_single_task(const Group& c, Key key, const void* send, void* recv,
                                     std::uint64_t bytes);
Task allgatherv_single_task(const Group& c, Key key, const void* send, void* recv,
                                       std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs);

// The message algorithms (messages.cpp): point-to-point messages through
// the engine, flat; any group, one across nodes too (Plan::across_nodes).
Task barrier_messages_task(const Group& c, Key key);
Task bcast_messages_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root);
Task reduce_messages_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
                          int root);
Task gatherv_messages_task(const Group& c, Key key, const void* send, std::uint64_t send_bytes, void* recv,
                           std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs, int root);
Task scatterv_messages_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> bytes,
                            std::vector<std::uint64_t> displs, void* recv, std::uint64_t recv_bytes, int root);
Task alltoallv_messages_task(const Group& c, Key key, const void* send, std::vector<std::uint64_t> send_bytes,
                             std::vector<std::uint64_t> send_displs, void* recv, std::vector<std::uint64_t> recv_bytes,
                             std::vector<std::uint64_t> recv_displs);
Task scan_messages_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
                        bool exclusive);

// The hierarchical algorithms (hierarchical.cpp): messages within each
// node, then between one leader per node, for a group across nodes.
Task barrier_hierarchical_task(const Group& c, Key key);
Task bcast_hierarchical_task(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root);
// Commutative operations only.
Task reduce_hierarchical_task(const Group& c, Key key, const void* send, void* recv, int count, Combine combine,
                              int root);

// The board algorithms (board.cpp), for the group of all the job's ranks
// (MPI_COMM_WORLD) when its plan is on the board (Plan::on_board).
// Each takes the numbers of its row calls or broadcast entries when it
// starts to run (Board::reserve_rows, reserve_entries): a rank runs its
// collectives one at a time in the order it called them, so every rank
// numbers them alike, nonblocking ones included.
Task barrier_board_task(const Group& c, Key key);
// The blocking Barrier, and Bcast of up to one entry, driven as steps
// (steps.hpp) without a task; bcast_board_by_steps is false, doing
// nothing, for larger data.
bool barrier_board_by_steps(const Group& c, Key key, const char* call);
bool bcast_board_by_steps(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root,
                          const char* call);
// The same for Reduce (root >= 0) and Allreduce (root < 0) of up to a row.
bool reduce_board_by_steps(const Group& c, Key key, const void* send, void* recv, int count,
                           Combine combine, int root, const char* call);
// The single-copy shapes' exchanges on the board (single_copy.cpp): every
// rank's Exposed to every rank, and a barrier, as board row calls `call`
// (reserved by the caller when it starts) instead of n² cell messages.
Task exposed_board_task(const Group& c, Key key, std::uint64_t call, Exposed mine,
                                   std::vector<Exposed>& all);
Task arrive_board_task(const Group& c, Key key, std::uint64_t call);
// Through the entries, or the stage when `staged`.
Task bcast_board_task(const Group& c, Key key, void* buffer, std::uint64_t bytes,
                                 int root, bool staged);
// count * size of type <= Board::capacity().
Task reduce_board_task(const Group& c, Key key, const void* send, void* recv, int count,
                                  Combine combine, int root);
// Any count, a commutative operation, with a stage: each rank adds its input
// into the board's sums, as it runs (an exact operation, Combine::exact) or in
// rank order (`in_order`, board.cpp), in pieces of about `piece_bytes`
// (whole elements; at least 2 x kSumPieceMin, which rules.cpp checks).
Task reduce_board_sum_task(const Group& c, Key key, const void* send, void* recv,
                                      int count, Combine combine, int root, bool in_order,
                                      std::uint64_t piece_bytes);
// Any count, by single copy: the ranks share the work (board.cpp), in
// pieces of board_single_copy_piece(sizes, ...).
Task reduce_board_single_task(const Group& c, Key key, const void* send, void* recv,
                                         int count, Combine combine, int root,
                                         Parameters sizes);
// Blocks of at most Board::capacity() bytes.
// Blocks packed in rank order, at most the stage's size in all: each rank
// copies its block into the stage and every rank copies them all out.
Task allgather_board_task(const Group& c, Key key, const void* send, void* recv,
                                     std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs);
Task alltoall_board_task(const Group& c, Key key, const void* send, void* recv,
                                    std::uint64_t bytes);

// MPI_Alltoall's equal blocks of `bytes`, rank i's at i * bytes (send and
// recv distinct), as the plan chooses: through the board, the cells, by
// single-copy reads, or alltoallv_task.
Task alltoall_task(const Group& c, Key key, const void* send, void* recv,
                              std::uint64_t bytes);

// Allgatherv: every rank's block (bytes[i] at displs[i] of recv; this
// rank's `send_bytes` from `send`, which may be its own place in recv) to
// every rank, as the plan chooses for the largest block: each rank sends
// its block to every other (through the cells, or as an all-to-all of the
// same block), or every rank reads every other's by single copy
// (gather_key only); or the blocks are gathered at rank 0 and broadcast
// (a tree: few wake-ups when ranks outnumber CPUs), or on the board go
// through its stage (allgather_board_task): those two need the blocks
// packed in rank order (allgather_packed). Every rank knows every block's
// size, so all choose alike.
bool allgather_packed(const Group& c, std::uint64_t largest);
Task allgatherv_task(const Group& c, Key gather_key, Key bcast_key,
                                const void* send, std::uint64_t send_bytes, void* recv,
                                std::vector<std::uint64_t> bytes, std::vector<std::uint64_t> displs);

// Blocking runs of the short exchanges on up to coll_exchange_max ranks,
// driven without a coroutine (steps.hpp): the same algorithms the tasks
// above choose there. False, doing nothing, when the collective is not one
// of them: then the caller runs the task.
bool barrier_by_steps(const Group& c, Key key, const char* call);
// Any size of communicator off the board: the bcast tree through the cells.
bool bcast_by_steps(const Group& c, Key key, void* buffer, std::uint64_t bytes, int root,
                    const char* call);
// Any size of communicator off the board: Reduce (root >= 0) or
// Allreduce (root < 0) of `count` elements of `type`, as reduce_task.
bool reduce_by_steps(const Group& c, Key key, const void* send, void* recv, int count,
                     Combine combine, int root, const char* call);
// MPI_Alltoall's equal blocks of `bytes`, as alltoall_task.
bool alltoall_by_steps(const Group& c, Key key, const void* send, void* recv, std::uint64_t bytes,
                       const char* call);

// Blocking forms: take the key, run the task.
void barrier(Group& c, const char* call);
void bcast(Group& c, void* buffer, std::uint64_t bytes, int root, const char* call);
// `root` < 0: every rank gets the result (allreduce).
void reduce(Group& c, const void* send, void* recv, int count, Combine combine, int root,
            const char* call);
void scan(Group& c, const void* send, void* recv, int count, Combine combine, bool exclusive,
          const char* call);
// Per rank: bytes and byte displacement of its block at the root.
void gatherv(Group& c, const void* send, std::uint64_t send_bytes, void* recv,
             const std::vector<std::uint64_t>& bytes, const std::vector<std::uint64_t>& displs, int root,
             const char* call);
void scatterv(Group& c, const void* send, const std::vector<std::uint64_t>& bytes,
              const std::vector<std::uint64_t>& displs, void* recv, std::uint64_t recv_bytes, int root,
              const char* call);
void alltoallv(Group& c, const void* send, const std::vector<std::uint64_t>& send_bytes,
               const std::vector<std::uint64_t>& send_displs, void* recv, const std::vector<std::uint64_t>& recv_bytes,
               const std::vector<std::uint64_t>& recv_displs, const char* call);
// Allgatherv of blocks packed in rank order in `recv` (rank i's bytes[i]
// after those of ranks below it; this rank's from `send`, distinct from
// recv).
void allgather_in_order(Group& c, const void* send, void* recv, const std::vector<std::uint64_t>& bytes,
                        const char* call);
// Equal blocks of `bytes`, rank i's at i * bytes (send and recv distinct).
void alltoall(Group& c, const void* send, void* recv, std::uint64_t bytes, const char* call);

}  // namespace mpf::coll
