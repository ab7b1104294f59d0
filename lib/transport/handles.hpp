// The names a transport gives to what it lends the progress engine: its
// eager buffers and the memory a rank exposes for a rendezvous. Packets
// carry them and the matching queues store them, but only the transport
// that made one reads it (transport/interface.hpp).
#pragma once

#include <cstdint>

namespace mpf::transport {

// An eager buffer of the sending rank's transport, which carries one
// message's data to its receiver. `id` means something to that transport
// only (the shared-memory transport: a cell of the sender's pool).
struct EagerRef {
  std::uint32_t id;
};

// Memory a rank exposed so that a peer may read or write it (rendezvous):
// an address in the exposing process and the transport's key for it (0 for
// the shared-memory transport, which reaches any address of a peer's with
// Cross Memory Attach; a registration key for a network transport).
struct RemoteMemory {
  std::uint64_t address;
  std::uint64_t key;
};

// Where a message's data waits until a receive takes it: the eager buffer
// the sender's transport lent, or the memory the sender exposed. Which one
// the message's kind says.
union DataRef {
  EagerRef eager;
  RemoteMemory remote;
};

}  // namespace mpf::transport
