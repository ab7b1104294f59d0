// Collective data movement over the ranks' collective slots (seed 002 §3.3):
// the layer every API's collectives stand on (MPI today; SHMEM and MPF
// later). Each rank publishes steps in its own slot (CollSlot); a step
// is a table of pieces, each addressed to one consumer or to all of them,
// and the pieces' data. Consumers copy their pieces out and count themselves
// done; the owner waits for that before it rewrites the slot, and only then.
//
// A step is named by (context, seq, step): the communicator's context id,
// how many collectives it has run, and the step within this one, so a rank
// that belongs to several communicators never takes one's data for
// another's. Waits go through the progress engine: a waiting rank keeps
// point-to-point traffic moving and sleeps on its futex when it has nothing
// to do; a publisher wakes its consumers and a consumer wakes the publisher.
// The collectives themselves are coroutines (coll/task.hpp) that wait for
// try_take() and drained().
//
// Slot data is copied in (one copy) and out (one copy); a publication is
// never more than the slot's data area (the coll_buffer tunable), so larger
// collectives move in several steps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "coll/slots_layout.hpp"
#include "shm/transport.hpp"

namespace mpf::coll {

inline constexpr std::int32_t kEveryConsumer = -1;

// Which collective a step belongs to: the communicator's context, its
// collective count, and what the call is (an algorithm id of the API's
// choosing and the root). Ranks that disagree on the last two (a program
// that calls MPI_Bcast on one rank and MPI_Barrier on another) never take
// each other's steps: they wait, and mpfinspect names the mismatch.
struct Key {
  std::uint32_t context;
  std::uint32_t seq;
  std::uint32_t kind = 0;  // below 65536: a cell (MailCell) carries 16 bits of it
  std::int32_t root = -1;
};

// A piece to publish: `bytes` at `data`, for consumer `dest` (a world rank,
// or kEveryConsumer), to land at `offset` in that consumer's block.
struct Piece {
  std::int32_t dest;
  std::uint64_t offset;
  const void* data;
  std::uint32_t bytes;
};

// A piece as a consumer receives it: valid until it returns from its take().
struct Received {
  std::uint64_t offset;
  const std::byte* data;
  std::uint32_t bytes;
};

class Channel {
 public:
  void init(shm::Transport& transport);

  // Data bytes and pieces one step can carry. Pieces' data are laid out at
  // 64-byte boundaries; bytes_fitting() says how much fits after `used`.
  std::uint32_t capacity() const { return capacity_; }
  static std::uint32_t aligned(std::uint32_t bytes) { return (bytes + 63u) & ~63u; }

  // Publishes `pieces` as `step` of collective `key` for the world ranks in
  // `consumers` (each must take the step exactly once if a piece is for it
  // or for every consumer), and wakes them. The previous step must have
  // been taken by all its consumers (drained()): collectives wait for that
  // first (coll/task.hpp). Fails (std::logic_error) when the pieces do not
  // fit: callers split their data with capacity().
  void publish(Key key, std::uint32_t step, std::span<const Piece> pieces, std::span<const std::uint32_t> consumers);

  // Takes step >= `step` of `key` from `publisher` (a world rank) if it is
  // there: calls take(seen_step, pieces for this rank) while the data is
  // valid, counts this rank done if there was any piece for it (waking the
  // publisher if it sleeps for room), and
  // returns true with the step seen in *seen. A step with no piece for this
  // rank comes with an empty span (the caller then asks for a later step).
  // False when the publisher has not got that far.
  template <class Take>
  bool try_take(std::uint32_t publisher, Key key, std::uint32_t step, Take&& take, std::uint32_t* seen);

  // True when every consumer has taken this rank's last step, so the slot
  // may be written again. When not, this rank wants room
  // (Transport::want_room): the last consumer's take wakes it from a sleep.
  bool drained() const;
  // True when `publisher` shows a step >= `step` of `key` (for wait predicates).
  bool has_step(std::uint32_t publisher, Key key, std::uint32_t step) const;

 private:
  // The step `publisher` shows for `key` (consistent copy of its table), or
  // false while it shows an earlier one or is writing.
  bool read_step(std::uint32_t publisher, Key key, std::uint32_t step, std::uint32_t& seen, std::uint32_t& npieces,
                 CollPiece* table) const;

  shm::Transport* transport_ = nullptr;
  SlotsLayout layout_;
  std::uint32_t me_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint64_t expected_ = 0;  // consumers of all this rank's steps so far
};

template <class Take>
bool Channel::try_take(std::uint32_t publisher, Key key, std::uint32_t step, Take&& take, std::uint32_t* seen) {
  std::uint32_t npieces = 0;
  CollPiece table[kCollPieces];
  if (!read_step(publisher, key, step, *seen, npieces, table)) return false;
  // Our pieces, if any: the owner keeps them intact until we count ourselves
  // done, so they need no further validation.
  Received mine[kCollPieces];
  std::size_t n = 0;
  const std::byte* data = layout_.data(transport_->local_of(publisher));
  for (std::uint32_t i = 0; i < npieces; ++i) {
    if (table[i].dest == kEveryConsumer || table[i].dest == static_cast<std::int32_t>(me_)) {
      mine[n++] = {table[i].offset, data + table[i].data_at, table[i].bytes};
    }
  }
  take(*seen, std::span<const Received>(mine, n));
  if (n > 0) {
    layout_.slot(transport_->local_of(publisher)).consumed.fetch_add(1, std::memory_order_acq_rel);
    transport_->wake_for_room(publisher);
  }
  return true;
}

}  // namespace mpf::coll
