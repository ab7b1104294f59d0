// One message of a collective that goes by point-to-point messages
// (messages.cpp, hierarchical.cpp): an internal message (core/internal_p2p.hpp)
// in the group's context | kCollMessagesContextBit, tagged with the
// collective's number and its step, so that a group's overlapping
// nonblocking collectives never take each other's messages.
#pragma once

#include <cstdint>

#include "coll/algorithms/context.hpp"
#include "core/context_space.hpp"
#include "core/internal_p2p.hpp"

namespace mpf::coll {

inline std::uint32_t context_of(Key key) { return key.context | core::kCollMessagesContextBit; }

// The tag of step `step` of collective `key`: its number's low 23 bits and
// the step's 8 (tags are non-negative).
inline std::int32_t tag_of(Key key, std::uint32_t step) {
  return static_cast<std::int32_t>((key.seq & 0x7fffffu) << 8 | (step & 0xffu));
}

// A started message of the collective, freed when it is done.
class Message {
 public:
  Message(bool send, const Group& c, Key key, std::uint32_t step, int peer, const void* data, std::uint64_t bytes)
      : request_(core::start_internal(send, static_cast<std::int32_t>(c.world_of(peer)), context_of(key),
                                      tag_of(key, step), const_cast<void*>(data), bytes)) {}
  ~Message() { core::Runtime::instance().engine().free_request(request_); }
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;
  bool done() const { return request_->done(); }
  std::int32_t peer() const { return request_->peer; }

 private:
  progress::Request* request_;
};

inline auto arrived(const Message& m) {
  return until(m.peer(), [&m] { return m.done(); });
}

}  // namespace mpf::coll
