// What the network transport sends: a message per packet of the engine's,
// with the data of an eager message or a rendezvous chunk right behind it,
// or a credit message of the transport's own. Every message starts with
// the sender's credits for the receiver, so that traffic in either
// direction carries them (net/transport.hpp, "Credits").
//
//   [WireHeader 32 bytes][progress::Packet 120 bytes][data, up to eager_bytes]   packet
//   [WireHeader 32 bytes]                                                       credit
//
// The libfabric tag of each message is its kind and source rank, so a
// completion says whose it is before its bytes are read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "progress/packet.hpp"

namespace mpf::net {

enum class WireKind : std::uint32_t { packet = 1, credit = 2 };

struct WireHeader {
  // Of the receiver's messages to the sender: how many packets the sender
  // has taken (frees the receiver's window), and how much of their data it
  // has matched, in the engine's units (frees the receiver's share of its
  // unexpected pool). Both only grow.
  std::uint64_t consumed;
  std::uint64_t matched;
  std::uint32_t source;  // the sender's world rank
  WireKind kind;
  // packet: its number among the sender's packets to the receiver, from 0.
  // The endpoint delivers a pair's messages in order but may report their
  // completions out of order (ofi_rxm: a large message's later than a
  // small one's behind it); the receiver puts them back in order by it.
  std::uint64_t seq;
};
static_assert(sizeof(WireHeader) == 32);

struct WireMessage {
  WireHeader wire;
  progress::Packet packet;
  std::byte* data() { return reinterpret_cast<std::byte*>(this + 1); }
};
static_assert(sizeof(WireMessage) == 152);

inline std::uint64_t wire_tag(WireKind kind, std::uint32_t source) {
  return static_cast<std::uint64_t>(kind) << 32 | source;
}
inline WireKind tag_kind(std::uint64_t tag) { return static_cast<WireKind>(tag >> 32); }
inline std::uint32_t tag_source(std::uint64_t tag) { return static_cast<std::uint32_t>(tag); }

// Whether a packet of this kind carries data behind it (an eager message,
// a rendezvous chunk): its ChunkFields name the buffer.
inline bool carries_data(progress::PacketKind kind) {
  return kind == progress::PacketKind::eager || kind == progress::PacketKind::data;
}

}  // namespace mpf::net
