// The collective cells' region of the segment ("coll.cells"): per ordered
// pair of ranks, two cells for small collective messages (coll/cells.hpp),
// and per receiver a row of counts of the cells it has taken.
//
//   [CellsHeader]                  the region's geometry
//   [acks nranks x nranks]         pair (s -> r) at acks + r*row + s*8: cells of s
//                                  that r has taken (written by r)
//   [cells nranks x nranks x 2]    pair (s -> r): MailCell i of cell_bytes at
//                                  cells + ((r*nranks + s)*2 + i)*cell_bytes
//
// Only the header is written at creation: all-zero cells and counts are a
// pair that has exchanged nothing.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm/region.hpp"
#include "shm/segment_layout.hpp"

namespace mpf::coll {

using shm::kCacheLine;

// A collective cell (seed 002 §3.3's per-pair protocol slots): small
// collective messages go from one rank to another through a pair of cells
// that only the sender writes and only the receiver reads, so a message
// costs one cache-line transfer, where the slot's table, version and
// counter cost several. Messages of a pair are numbered from 1; message n
// goes in cell n % 2, and the sender writes it only after the receiver has
// taken message n - 2. The receiver's count of taken messages is in the
// cell acks, and also in every message it posts back (`taken`): when
// messages go both ways, as in a barrier, the sender learns it from the
// cells it reads anyway, without a cache miss on the ack. `stamp` is
// stored last (release): a cell holds message n once its stamp reads n.
inline constexpr std::uint32_t kCellsPerPair = 2;

struct alignas(kCacheLine) MailCell {
  std::atomic<std::uint64_t> stamp;
  std::uint32_t context;  // which collective (coll::Key) and step:
  std::uint32_t seq;      // a receiver takes only the message it expects,
  std::int32_t root;      // so mismatched calls wait (and mpfinspect names
  std::uint32_t step;     // them) instead of mixing their data
  std::uint16_t kind;
  std::uint16_t bytes;    // of data, which starts at `data`
  // The low 32 bits of the count of messages of the pair (receiver ->
  // sender) that the sender had taken: the receiver has at most
  // kCellsPerPair messages of its own not yet taken, so it finds the rest.
  std::uint32_t taken;
  std::byte data[kCacheLine - 32];
  // the rest of the cell's data follows (cell_bytes - sizeof(MailCell))
};
static_assert(sizeof(MailCell) == kCacheLine && offsetof(MailCell, data) == 32);

class CellsLayout {
 public:
  static constexpr std::string_view kName = "coll.cells";
  static constexpr std::uint32_t kVersion = 1;
  static shm::RegionSpec spec();

  CellsLayout() = default;
  CellsLayout(const shm::Region& region, std::uint32_t nranks);

  // Bytes of one cell (MailCell and its data).
  std::uint32_t cell_bytes() const { return h_.cell_bytes; }
  // Bytes of a cell laid out for `cell_data_bytes` of data (the
  // coll_short_limit tunable): whole cache lines, so a little more.
  static std::uint32_t cell_bytes_for(std::uint32_t cell_data_bytes) {
    return static_cast<std::uint32_t>(shm::round_up(offsetof(MailCell, data) + cell_data_bytes, kCacheLine));
  }
  // Cell `i` (< kCellsPerPair) of the pair (sender -> receiver), and how
  // many of the sender's cells the receiver has taken.
  MailCell& cell(std::uint32_t sender, std::uint32_t receiver, std::uint32_t i) const {
    const std::uint64_t pair = std::uint64_t{receiver} * h_.nranks + sender;
    return *reinterpret_cast<MailCell*>(base_ + h_.cells_offset + (pair * kCellsPerPair + i) * h_.cell_bytes);
  }
  std::atomic<std::uint64_t>& ack(std::uint32_t sender, std::uint32_t receiver) const {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(base_ + h_.acks_offset + receiver * h_.ack_row +
                                                          std::uint64_t{sender} * sizeof(std::uint64_t));
  }

 private:
  struct Header {
    std::uint32_t nranks, cell_bytes;
    std::uint64_t acks_offset, ack_row, cells_offset;
  };
  static_assert(sizeof(Header) == 32, "the region's header is a wire format: change kVersion with it");
  static Header header_for(std::uint32_t nranks, std::uint32_t cell_data_bytes);
  static Header header_of(const shm::RegionGeometry& g);
  std::byte* base_ = nullptr;
  Header h_{};
};

}  // namespace mpf::coll
