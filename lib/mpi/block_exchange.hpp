// Collectives that run as point-to-point messages between chosen peers:
// each block of a send buffer goes to one rank, each block of a receive
// buffer comes from one. The neighbourhood collectives (neighbor.cpp: the
// peers are a topology's neighbours) and every collective on an
// intercommunicator (intercomm_coll.cpp: the peers are the remote group)
// are such exchanges.
//
// One task (lib/coll/task.hpp) posts a receive per block, then a send per
// block, and waits for all of them. It uses no collective slot, so a
// nonblocking one is independent of the queue of collectives (pending.hpp)
// and a blocking one does not wait for the nonblocking collectives started
// before it. The messages travel in a matching context no communicator has
// (kContextBit) with a tag from the communicator's count of such exchanges,
// so they never match the program's messages nor another exchange's.
// Blocks of a non-contiguous datatype are packed when the call starts and
// unpacked when it ends, as point-to-point does.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/pending.hpp"
#include "core/context_ids.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"

namespace mpf::mpi::exchange {

// The matching context: the communicator's with the exchange bit set
// (core/context_space.hpp).
inline constexpr std::uint32_t kContextBit = core::kExchangeContextBit;

// The tag of a block: the communicator's count of exchanges (every member
// runs them in the same order, so all agree on it) and one bit the caller
// may use to tell apart blocks between the same two ranks (the side of a
// grid a block arrives on, neighbor.cpp).
inline std::int32_t tag_of(std::uint32_t seq, unsigned side) {
  return static_cast<std::int32_t>(((seq & 0x3fffffffu) << 1) | side);
}

// One side of the call as the program describes it: block k is counts[k]
// elements of types[k] at byte displacement displs[k] from buf.
struct Blocks {
  const void* buf = nullptr;
  std::vector<int> counts;
  std::vector<std::int64_t> displs;
  std::vector<MPI_Datatype> types;
  bool shared = false;  // every block is the same data (a broadcast's send): packed once
};

// Blocks of `count` elements of `type`, block k at k blocks from buf (or
// every one at buf when `shared`). The type is valid.
Blocks equal_blocks(const void* buf, std::size_t n, int count, MPI_Datatype type, bool shared);
// Blocks of counts[k] elements of `type` at displs[k] elements from buf.
Blocks varying_blocks(const void* buf, std::size_t n, const int counts[], const int displs[], MPI_Datatype type);

// `type` is usable; else MPI_ERR_TYPE naming `what` ("send", "receive").
int check_type(const char* call, MPI_Comm comm, const char* what, MPI_Datatype type);
// The error of a NULL array argument named `what`.
int null_array(const char* call, MPI_Comm comm, const char* what);

// Checks one side's blocks (`ranks[k]` is block k's peer, for messages;
// MPI_PROC_NULL's blocks are not touched but must still be valid).
// MPI_IN_PLACE is refused: these collectives have no in-place form.
int check_blocks(const char* call, MPI_Comm comm, const char* what, const Blocks& b, const std::vector<int>& ranks);

// One message of the exchange, as the engine moves it.
struct Transfer {
  std::int32_t peer;  // world rank
  std::int32_t tag;
  std::byte* data;    // contiguous bytes: the program's buffer, or packed in staging
  std::uint64_t bytes;
  std::uint16_t signature;
  int rank;           // the peer's rank, and
  std::size_t block;  // the block's index, for error messages
  // A receive into a non-contiguous layout: unpacked to `user` at the end.
  std::shared_ptr<const TypeInfo> layout;
  void* user = nullptr;
};

// Everything a call's task needs, owned by the task, so the nonblocking
// call returns at once and the program may free the datatypes.
struct Exchange {
  std::string what;  // "MPI_Ialltoall: " in a nonblocking call's errors, else empty
  std::uint32_t context = 0;
  std::vector<Transfer> recvs, sends;
  std::vector<std::vector<std::byte>> staging;  // the packed blocks (Transfer::data points in)
  std::shared_ptr<coll::CollectiveError> error = std::make_shared<coll::CollectiveError>();
  // Runs when every message has arrived without error (a reduction
  // combines the received blocks).
  std::function<void(Exchange&)> then;
};

// An exchange on `c` (its next count: every member must start one);
// `nonblocking` names the call in errors its request reports.
Exchange begin(const char* call, bool nonblocking, Communicator& c, std::uint32_t* seq);

// Adds one side's messages: block k to (from) rank ranks[k] of `group`
// (world ranks by rank), tag tag(k); MPI_PROC_NULL blocks are skipped.
// Sends are packed now; receives of a non-contiguous layout get staging
// to unpack from, or, `keep_packed`, every receive lands packed in staging
// for `then` to read (Transfer::data) and nothing is unpacked.
void add_transfers(Exchange& x, bool is_send, const Blocks& b, const std::vector<int>& ranks,
                   const std::vector<std::uint32_t>& group, const std::function<std::int32_t(std::size_t)>& tag,
                   bool keep_packed = false);

// Runs the exchange to its end (request == nullptr) or starts it as the
// nonblocking request *request.
int run(const char* call, MPI_Comm comm, Exchange x, MPI_Request* request);

}  // namespace mpf::mpi::exchange
