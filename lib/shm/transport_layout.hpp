// The shared-memory transport's region of the segment ("shm.transport"):
//
//   [TransportHeader]            the region's geometry (offsets from the region's start)
//   [inbox x nranks]             per receiver: which senders have packets pending
//   [credits nranks x nranks]    pair (s -> r) at credits + r*row + s*8: data messages
//                                of s that r has matched (written by r);
//                                row = nranks*8 rounded up to a cache line
//   [rings nranks x nranks]      ring (s -> r) at rings + (r*nranks + s)*ring_stride
//   [split copies n x n x 4]     pair (s -> r): SplitCopy i at splits + ((r*n + s)*4 + i)*64
//   [eager pools x nranks]       per sender: eager_cells buffers of eager_cell_bytes,
//                                then eager_small_cells buffers of kSmallCellBytes
//
// Only the header is written when the segment is created: the rest is
// valid as zeros, and a pair's pages are allocated when it first talks.
// Memory per pair with the defaults (32 ring slots): 4.2 KiB of ring, 256
// bytes of split copies, 8 bytes of credits.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "common/spsc_ring.hpp"
#include "shm/region.hpp"
#include "shm/segment_layout.hpp"
#include "transport/interface.hpp"

namespace mpf::shm {

// A ring's slot holds one packet of the progress engine and the ring's
// sequence word.
inline constexpr std::size_t kSlotBytes = 128;
using PacketRing = common::SpscRing<kSlotBytes>;
static_assert(PacketRing::kPayloadBytes == progress::kPacketBytes, "a packet fills a ring slot");

// Per receiver, a bitmap of inbox_words(nranks) atomic 64-bit words. Sender
// s sets bit s after it publishes a packet in ring (s -> r), so a poll looks
// only at rings with packets instead of scanning every peer.
inline constexpr std::size_t inbox_words(std::uint32_t nranks) { return (nranks + 63) / 64; }

// The pairs' split copies (transport::SplitCopy), kSplitsPerPair each.
using transport::kSplitsPerPair;
using transport::SplitCopy;
static_assert(sizeof(SplitCopy) == kCacheLine);

// Header of an eager cell, in its own cache line; the payload follows.
// The sending rank owns the cell: it sets `busy` when it fills the cell and
// the receiver clears it (release) once it has copied the data out.
struct alignas(kCacheLine) EagerCell {
  std::atomic<std::uint32_t> busy;
};
static_assert(sizeof(EagerCell) == kCacheLine);
// A rank's eager pool: eager_cells cells of eager_cell_bytes, then
// eager_small_cells cells of kSmallCellBytes for messages that fit.
inline constexpr std::uint32_t kSmallCellBytes = 1024;
inline constexpr std::uint64_t kSmallCellStride = sizeof(EagerCell) + kSmallCellBytes;

// One receiver's row of per-sender counters, padded to whole cache lines:
// with few ranks the rows of two receivers would share a line that both
// write on every message.
inline constexpr std::size_t counter_row_bytes(std::uint64_t nranks) {
  return round_up(nranks * sizeof(std::uint64_t), kCacheLine);
}

// One cell of eager_cell_bytes (the eager_limit) in a rank's eager pool.
inline constexpr std::uint64_t eager_cell_stride(std::uint64_t eager_cell_bytes) {
  return sizeof(EagerCell) + round_up(eager_cell_bytes, kCacheLine);
}

// The transport's sizes, from the tunables (ring_slots, eager_limit,
// eager_cells, eager_small_cells).
struct TransportGeometry {
  std::uint32_t nranks;
  std::uint32_t ring_slots;
  std::uint32_t eager_cells;
  std::uint32_t eager_cell_bytes;
  std::uint32_t eager_small_cells;
};

class TransportLayout {
 public:
  static constexpr std::string_view kName = "shm.transport";
  static constexpr std::uint32_t kVersion = 1;
  static RegionSpec spec();
  static TransportGeometry geometry_of(const RegionGeometry& g);

  TransportLayout() = default;
  // Checks the region's geometry: every offset and stride fits the region.
  TransportLayout(const Region& region, std::uint32_t nranks);

  std::uint32_t nranks() const { return h_.nranks; }
  std::uint32_t ring_slots() const { return h_.ring_slots; }
  std::uint32_t eager_cells() const { return h_.eager_cells; }
  std::uint32_t eager_cell_bytes() const { return h_.eager_cell_bytes; }
  std::uint32_t eager_small_cells() const { return h_.eager_small_cells; }

  // Receiver r's pending-senders bitmap (inbox_words(nranks) words).
  std::atomic<std::uint64_t>* inbox(std::uint32_t r) const {
    return reinterpret_cast<std::atomic<std::uint64_t>*>(at(h_.inbox_offset + r * h_.inbox_stride));
  }
  // The ring that carries packets from rank `sender` to rank `receiver`.
  void* ring(std::uint32_t sender, std::uint32_t receiver) const {
    return at(h_.rings_offset + (std::uint64_t{receiver} * h_.nranks + sender) * h_.ring_stride);
  }
  std::uint64_t ring_bytes() const { return h_.ring_stride; }
  // Cell `cell` of rank `owner`'s eager pool, and its payload: cells from
  // eager_cells() on are the small ones.
  EagerCell& eager_cell(std::uint32_t owner, std::uint32_t cell) const {
    const std::uint64_t offset = cell < h_.eager_cells
                                     ? cell * h_.cell_stride
                                     : h_.eager_cells * h_.cell_stride + (cell - h_.eager_cells) * kSmallCellStride;
    return *reinterpret_cast<EagerCell*>(at(h_.eager_offset + owner * h_.eager_pool_stride + offset));
  }
  std::byte* eager_data(std::uint32_t owner, std::uint32_t cell) const {
    return reinterpret_cast<std::byte*>(&eager_cell(owner, cell)) + sizeof(EagerCell);
  }
  // Data messages of `sender` that `receiver` has matched (flow control).
  std::atomic<std::uint64_t>& matched(std::uint32_t sender, std::uint32_t receiver) const {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(
        at(h_.credits_offset + receiver * h_.credit_row + std::uint64_t{sender} * sizeof(std::uint64_t)));
  }
  // Split copy `i` (< kSplitsPerPair) of the pair (sender -> receiver).
  SplitCopy& split_copy(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const {
    const std::uint64_t pair = std::uint64_t{receiver} * h_.nranks + sender;
    return *reinterpret_cast<SplitCopy*>(at(h_.splits_offset + (pair * kSplitsPerPair + i) * sizeof(SplitCopy)));
  }

 private:
  struct Header {
    std::uint32_t nranks, ring_slots, eager_cells, eager_cell_bytes, eager_small_cells, reserved;
    std::uint64_t inbox_offset, inbox_stride, credits_offset, credit_row, rings_offset, ring_stride, splits_offset,
        eager_offset, eager_pool_stride, cell_stride;
  };
  static_assert(sizeof(Header) == 104, "the region's header is a wire format: change kVersion with it");
  static Header header_for(const TransportGeometry& g);
  static std::uint64_t bytes_for(const Header& h);
  std::byte* at(std::uint64_t offset) const { return base_ + offset; }

  std::byte* base_ = nullptr;
  Header h_{};  // a copy: the data path reads it without another indirection
};

}  // namespace mpf::shm
