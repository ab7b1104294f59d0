// A communication request: one send or receive in flight, from the call that
// starts it to the wait that completes it. Requests live in a pool so that
// the data path never allocates; a packet names its request by cookie
// (index and generation), so a late packet for a recycled request is seen
// for what it is.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "transport/handles.hpp"

namespace mpf::progress {

inline constexpr std::int32_t kAnySource = -1;
inline constexpr std::int32_t kAnyTag = -1;

enum class SendMode : std::uint8_t { standard, synchronous, ready };

// What a completed request reports (MPI_Status, before rank translation).
struct Completion {
  std::int32_t source = kAnySource;  // world rank of the sender
  std::int32_t tag = kAnyTag;
  std::int32_t error = 0;            // 0, or one of the engine's kError* values (engine.hpp)
  std::uint64_t bytes = 0;           // bytes received (or sent)
  std::uint64_t message_bytes = 0;   // receive: the whole message's size (> bytes when truncated)
  bool cancelled = false;
};

enum class Stage : std::uint8_t {
  inactive,      // persistent and not started, or back in the pool
  backlogged,    // send: waiting for ring space or an eager buffer
  awaiting_ack,  // send: short/eager synchronous, waiting for the match
  awaiting_fin,  // send: rendezvous, waiting for the receiver: its read done (get), or a cts (put, copy)
  streaming,     // send: pushing chunks (two-copy path)
  posted,        // receive: in the posted queue
  receiving,     // receive: matched a rendezvous, data on its way
  complete,
};

struct Request {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;
  bool is_send = false;
  bool persistent = false;
  bool rendezvous = false;  // send: went by request-to-send (counted in the engine's rendezvous_out_)
  SendMode mode = SendMode::standard;
  Stage stage = Stage::inactive;

  // Envelope. Send: destination (world rank), tag, context. Receive: source
  // (world rank or kAnySource), tag (or kAnyTag), context.
  std::int32_t peer = 0;
  std::int32_t tag = 0;
  std::uint32_t context = 0;
  std::byte* buffer = nullptr;  // contiguous bytes (the datatype layer packs)
  std::uint64_t bytes = 0;      // send: message size; receive: capacity
  std::uint16_t signature = 0;  // the datatype's signature; 0: not checked

  // Protocol state.
  std::uint64_t offset = 0;          // bytes moved so far (two-copy path)
  std::uint64_t transfer_bytes = 0;  // bytes the receiver accepted (rendezvous)
  std::uint64_t peer_cookie = 0;     // the other side's request
  transport::RemoteMemory remote{};  // get, split copy: the other side's exposed buffer
  std::int32_t split = -1;           // split copy: which SplitCopy of the pair, -1: none
  std::uint32_t chunk_bytes = 0;     // split copy: bytes of each chunk
  std::uint32_t peer_rank = 0;       // receive: the matched sender
  std::uint64_t posted_ns = 0;       // receive: posted at or before this time (introspection; 0: not yet shown)

  // send: MPI_Cancel asked the receiver to drop the message; done() waits
  // for its answer (status.cancelled says which).
  bool cancel_pending = false;

  Completion status;
  Request* next = nullptr;  // intrusive links: posted queue
  Request* prev = nullptr;

  std::uint64_t cookie() const { return (std::uint64_t{generation} << 32) | index; }
  // A fresh request in the same place, under a new generation.
  void reset() {
    const std::uint32_t keep_index = index;
    const std::uint32_t next_generation = generation + 1;
    *this = Request{};
    index = keep_index;
    generation = next_generation;
  }
  bool done() const { return stage == Stage::complete && !cancel_pending; }
};

// Requests by index, allocated in blocks that never move.
class RequestPool {
 public:
  Request* acquire() {
    if (free_.empty()) [[unlikely]] grow();
    Request* r = free_.back();
    free_.pop_back();
    r->reset();
    return r;
  }
  void release(Request* r) {
    r->stage = Stage::inactive;
    free_.push_back(r);
  }
  // The live request a cookie names, or null if it was recycled.
  Request* find(std::uint64_t cookie) const {
    const auto index = static_cast<std::uint32_t>(cookie);
    if (index >= all_.size()) return nullptr;
    Request* r = all_[index];
    return r->generation == static_cast<std::uint32_t>(cookie >> 32) && r->stage != Stage::inactive ? r : nullptr;
  }

 private:
  void grow() {
    constexpr std::size_t kBlock = 256;
    blocks_.push_back(std::make_unique<Request[]>(kBlock));
    Request* block = blocks_.back().get();
    for (std::size_t i = kBlock; i-- > 0;) {
      block[i].index = static_cast<std::uint32_t>(all_.size() + i);
      free_.push_back(&block[i]);
    }
    for (std::size_t i = 0; i < kBlock; ++i) all_.push_back(&block[i]);
  }
  std::vector<std::unique_ptr<Request[]>> blocks_;
  std::vector<Request*> all_;
  std::vector<Request*> free_;
};

}  // namespace mpf::progress
