// The packets of the progress engine's protocols (seeds 000, 002: envelopes
// in per-pair slots). Every transport carries packets as they are, in order
// per pair; what they mean is the engine's. A packet is a 32-byte header
// (the envelope and the protocol step) and 88 bytes of payload, which hold
// a short message's data or the step's own fields. Where data waits, the
// payload names it by the transport's handles (transport/handles.hpp).
//
//   kind       sender -> receiver                    receiver -> sender
//   short      envelope + data inline
//   eager      envelope + eager buffer
//   rts        envelope + sender's exposed buffer (get/put)
//   cts                                              receiver's exposed buffer (put, split) or "send in chunks" (copy)
//   data       one chunk in an eager buffer (copy)
//   fin        "written" (put), "done with             "read" (get)
//              the split copy" (split)
//   ack                                              "matched" (synchronous send)
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/tunables_table.hpp"
#include "transport/handles.hpp"

namespace mpf::progress {

// cancel asks the receiver to drop an unmatched message of the sender's
// (MPI_Cancel of a send; cookie: the send), cancel_reply answers (bytes: 1
// dropped, 0 matched already).
enum class PacketKind : std::uint8_t { short_msg = 1, eager, rts, cts, data, fin, ack, cancel, cancel_reply };

enum PacketFlags : std::uint8_t {
  kSynchronous = 1,  // the sender's request completes only when the receive matches
  kCopyMode = 2,     // cts: the receiver asks for the two-copy pipeline (no get or put)
  kSplitMode = 4,    // cts, fin: a split copy (both ends copy chunks; transport::SplitCopy)
  kFailed = 8,       // fin: this end could not move the data (reported where it failed); the request fails
};

// The envelope and the protocol step: cache-line friendly, fixed layout.
struct PacketHeader {
  PacketKind kind;
  std::uint8_t flags;
  std::uint16_t signature;  // the data's type signature, 0: not checked (datatype_check)
  std::uint32_t context;  // communicator context id
  std::int32_t tag;
  std::uint32_t source;   // sender's rank in the job (world rank)
  std::uint64_t bytes;    // the whole message's size
  std::uint64_t cookie;   // the request this packet is about, at the side that will get the reply
};
static_assert(sizeof(PacketHeader) == 32);

struct RendezvousFields {  // rts (sender's buffer) and cts (receiver's buffer)
  transport::RemoteMemory memory;
  std::uint64_t peer_cookie;  // rts: unused; cts: the receiver's request
  std::uint32_t split;        // cts and fin with kSplitMode: which SplitCopy of the pair
  std::uint32_t chunk_bytes;  // cts with kSplitMode: bytes of each chunk (the last may be shorter)
};

struct ChunkFields {  // eager and data: where the bytes are
  transport::EagerRef buffer;
  std::uint32_t chunk_bytes;
  std::uint64_t offset;  // data: offset of this chunk in the message
};

// A packet fills the payload of a 128-byte ring slot (an 8-byte sequence
// word, common/spsc_ring.hpp).
inline constexpr std::size_t kPacketBytes = 120;

struct Packet {
  PacketHeader header;
  union {
    std::byte inline_data[kPacketBytes - sizeof(PacketHeader)];
    RendezvousFields rendezvous;
    ChunkFields chunk;
  };
};
static_assert(sizeof(Packet) == kPacketBytes);
inline constexpr std::size_t kShortCapacity = sizeof(Packet::inline_data);
static_assert(kShortCapacity == static_cast<std::size_t>(common::kMaxShortLimit),
              "the short_limit tunable's range must match the packet layout");

}  // namespace mpf::progress
