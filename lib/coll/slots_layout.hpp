// The collective slots' region of the segment ("coll.slots"): per rank, the
// slot it publishes collective steps in (coll/channel.hpp).
//
//   [SlotsHeader]            the region's geometry
//   [slot x nranks]          at slots_offset + r * stride: CollSlot, then coll_bytes of data
//
// Only the header is written at creation: an all-zero slot is an empty one.
#pragma once

#include <atomic>
#include <cstdint>

#include "shm/region.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::coll {

using shm::kCacheLine;

// A rank's collective slot (seed 002 §3.3: collectives over dedicated slots,
// not over point-to-point messages). The owner publishes a step of a
// collective in it: a table of pieces, each addressed to one consumer (or to
// every consumer), and their data; consumers copy their pieces out and
// count themselves in `consumed`. The owner rewrites the slot only when every
// consumer of the previous step has done so, and readers validate what they
// read with `version` (a seqlock: odd while the owner writes), because a rank
// that is not a consumer may look at a step before it knows that.
inline constexpr std::uint32_t kCollPieces = 64;

struct CollPiece {
  std::int32_t dest;      // the consumer's world rank, or -1 for every consumer
  std::uint32_t bytes;
  std::uint64_t offset;   // where the piece goes in the consumer's block
  std::uint32_t data_at;  // where its data is in the slot's data area
  std::uint32_t reserved;
};

struct alignas(kCacheLine) CollSlot {
  std::atomic<std::uint32_t> version;
  std::uint32_t context;  // which collective: the communicator's context id,
  std::uint32_t seq;      // its collective call count,
  std::uint32_t step;     // and the step within the call;
  std::uint32_t kind;     // what the call is (coll::Key)
  std::int32_t root;
  std::uint32_t pieces;
  alignas(kCacheLine) std::atomic<std::uint64_t> consumed;  // written by consumers
  alignas(kCacheLine) CollPiece piece[kCollPieces];
  // the data area follows (coll_bytes)
};
static_assert(sizeof(CollSlot) % kCacheLine == 0);

class SlotsLayout {
 public:
  static constexpr std::string_view kName = "coll.slots";
  static constexpr std::uint32_t kVersion = 1;
  static shm::RegionSpec spec();

  SlotsLayout() = default;
  SlotsLayout(const shm::Region& region, std::uint32_t nranks);

  // Data bytes of one slot (the coll_buffer tunable).
  std::uint32_t capacity() const { return h_.coll_bytes; }
  CollSlot& slot(std::uint32_t r) const {
    return *reinterpret_cast<CollSlot*>(base_ + h_.slots_offset + r * h_.stride);
  }
  std::byte* data(std::uint32_t r) const { return reinterpret_cast<std::byte*>(&slot(r)) + sizeof(CollSlot); }

 private:
  struct Header {
    std::uint32_t nranks, coll_bytes;
    std::uint64_t slots_offset, stride;
  };
  static_assert(sizeof(Header) == 24, "the region's header is a wire format: change kVersion with it");
  static Header header_for(std::uint32_t nranks, std::uint32_t coll_bytes);
  static Header header_of(const shm::RegionGeometry& g);
  std::byte* base_ = nullptr;
  Header h_{};
};

}  // namespace mpf::coll
