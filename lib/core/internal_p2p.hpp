// Point-to-point messages the runtime and the APIs send for themselves
// (the context agreement of new groups, block exchanges), in matching
// contexts no group has (context_space.hpp), so they never match the
// program's messages. They go straight to the engine: contiguous bytes to
// or from a world rank, no datatype, no MPI request.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/runtime.hpp"
#include "progress/request.hpp"

namespace mpf::core {

// Starts a send (or receive) of `bytes` at `data` to (from) world rank
// `peer`; the caller waits for done() and frees the request with the
// engine's free_request().
inline progress::Request* start_internal(bool is_send, std::int32_t peer, std::uint32_t context, std::int32_t tag,
                                         void* data, std::uint64_t bytes, std::uint16_t signature = 0) {
  progress::Engine& engine = Runtime::instance().engine();
  progress::Request* r = engine.new_request();
  r->peer = peer;
  r->tag = tag;
  r->context = context;
  r->buffer = static_cast<std::byte*>(data);
  r->bytes = bytes;
  r->signature = signature;
  r->mode = progress::SendMode::standard;
  if (is_send) {
    engine.start_send(r);
  } else {
    engine.start_recv(r);
  }
  return r;
}

}  // namespace mpf::core
