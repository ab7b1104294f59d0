// What the shared-memory transport keeps per peer on its node (see
// transport.hpp): found by world rank, everything a send, a poll or a wake
// of that peer touches in one place.
#pragma once

#include <atomic>
#include <cstdint>

#include "shm/ranks_layout.hpp"
#include "shm/transport_layout.hpp"
#include "transport/interface.hpp"

namespace mpf::shm {

// A world rank that is not on this node has no local index.
inline constexpr std::uint32_t kOffNode = ~0U;

// What a deferred wake of a peer is for: room only, or work.
enum WakeDue : std::uint8_t { kNoWakeDue = 0, kRoomWakeDue = 1, kWorkWakeDue = 2 };

struct Endpoint {
  PacketRing::Producer out;                          // ring to the peer
  PacketRing::Consumer in;                           // ring from the peer
  // `in.taken()` at the last publish to it: unchanged at the next one
  // means we stream to it (publish()).
  std::uint64_t taken_at_publish = ~std::uint64_t{0};
  RankControl* control = nullptr;                    // its control block: doorbell, sleeping, pid
  std::atomic<std::uint64_t>* inbox_word = nullptr;  // the word of its inbox that holds my bit
  std::uint32_t local = kOffNode;                    // its place in the segment
  std::uint32_t idle_polls = 0;                      // polls that found its ring empty
  std::uint32_t split_busy = 0;                      // bit i: split copy i (peer -> me) in use
  transport::RmaPath rma_path = transport::RmaPath::direct;
  std::uint8_t rma_proven = 0;         // a CMA copy with it succeeded
  std::uint8_t wake_due = kNoWakeDue;  // a WakeDue, until flush_wakes()
};
static_assert(transport::kSplitsPerPair <= 32, "split_busy holds one bit per split copy of a pair");

}  // namespace mpf::shm
