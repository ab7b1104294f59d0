// The packets ranks exchange through their rings (seeds 000, 002: envelopes
// in per-pair slots). A packet is one ring slot: a 32-byte header (the
// envelope and the protocol step) and 88 bytes of payload, which hold a short
// message's data or the step's own fields.
//
//   kind       sender -> receiver (ring s->r)        receiver -> sender (ring r->s)
//   short      envelope + data inline
//   eager      envelope + eager cell index
//   rts        envelope + sender's buffer (get/put)
//   cts                                              receiver's buffer (put, split) or "send in chunks" (copy)
//   data       one chunk in an eager cell (copy)
//   fin        "written" (put), "done with             "read" (get)
//              the split copy" (split)
//   ack                                              "matched" (synchronous send)
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/spsc_ring.hpp"
#include "common/tunables_table.hpp"

namespace mpf::shm {

inline constexpr std::size_t kSlotBytes = 128;
using PacketRing = common::SpscRing<kSlotBytes>;

// cancel asks the receiver to drop an unmatched message of the sender's
// (MPI_Cancel of a send; cookie: the send), cancel_reply answers (bytes: 1
// dropped, 0 matched already).
enum class PacketKind : std::uint8_t { short_msg = 1, eager, rts, cts, data, fin, ack, cancel, cancel_reply };

enum PacketFlags : std::uint8_t {
  kSynchronous = 1,  // the sender's request completes only when the receive matches
  kCopyMode = 2,     // cts: the receiver asks for the two-copy pipeline (no CMA)
  kSplitMode = 4,    // cts, fin: a split copy (both ends copy chunks; segment_layout.hpp SplitCopy)
};

// The envelope and the protocol step: cache-line friendly, fixed layout.
struct PacketHeader {
  PacketKind kind;
  std::uint8_t flags;
  std::uint16_t signature;  // the data's type signature, 0: not checked (datatype_check)
  std::uint32_t context;  // communicator context id
  std::int32_t tag;
  std::uint32_t source;   // sender's rank in MPI_COMM_WORLD
  std::uint64_t bytes;    // the whole message's size
  std::uint64_t cookie;   // the request this packet is about, at the side that will get the reply
};
static_assert(sizeof(PacketHeader) == 32);

struct RendezvousFields {  // rts (sender's buffer) and cts (receiver's buffer)
  std::uint64_t address;
  std::uint64_t peer_cookie;  // rts: unused; cts: the receiver's request
  std::uint32_t split;        // cts and fin with kSplitMode: which SplitCopy of the pair
  std::uint32_t chunk_bytes;  // cts with kSplitMode: bytes of each chunk (the last may be shorter)
};

struct ChunkFields {  // eager and data: where the bytes are
  std::uint32_t cell;
  std::uint32_t chunk_bytes;
  std::uint64_t offset;  // data: offset of this chunk in the message
};

struct Packet {
  PacketHeader header;
  union {
    std::byte inline_data[PacketRing::kPayloadBytes - sizeof(PacketHeader)];
    RendezvousFields rendezvous;
    ChunkFields chunk;
  };
};
static_assert(sizeof(Packet) == PacketRing::kPayloadBytes);
inline constexpr std::size_t kShortCapacity = sizeof(Packet::inline_data);
static_assert(kShortCapacity == static_cast<std::size_t>(common::kMaxShortLimit),
              "the short_limit tunable's range must match the packet layout");

}  // namespace mpf::shm
