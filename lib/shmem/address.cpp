// Where a symmetric address lies on another PE, and which contexts exist.
#include <string>

#include "shmem/state.hpp"

namespace mpf::shmem {

State g_state;

std::uint64_t symmetric_ref_of(const void* address, std::uint64_t bytes) {
  const State& s = g_state;
  if (heap_copy(address, bytes, s.me) != nullptr) {
    return symmetric::symmetric_ref(
        symmetric::Area::heap, reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(s.my_heap));
  }
  if (s.statics.holds(address, bytes)) {
    return symmetric::symmetric_ref(symmetric::Area::statics,
                                    reinterpret_cast<std::uintptr_t>(address) - s.statics.base);
  }
  return 0;
}

Place locate(const char* call, const void* address, std::uint64_t bytes, std::uint32_t pe, const char* what) {
  require_initialized(call);  // after shmem_finalize nothing is symmetric
  const State& s = g_state;
  if (std::byte* copy = heap_copy(address, bytes, pe)) {
    return {copy, 0};
  }
  if (!s.statics.holds(address, bytes)) fail_not_symmetric(call, address, bytes, what);
  const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(address) - s.statics.base;
  if (pe == s.me) return {const_cast<std::byte*>(static_cast<const std::byte*>(address)), 0};
  if (!s.statics_symmetric) {
    fail(call, std::string(what) + " is a global or static variable, and PE " + std::to_string(pe) +
                   " runs a program whose static data differs from this PE's: every PE must run the same program");
  }
  return {nullptr, s.layout.pe(pe).static_base + offset};
}

void check_context(const char* call, shmem_ctx_t ctx) {
  require_initialized(call);
  if (ctx == SHMEM_CTX_INVALID) fail(call, "the context is SHMEM_CTX_INVALID");
  if (ctx->magic != kContextMagic) {
    fail(call, "the context is not one shmem_ctx_create or shmem_team_create_ctx made, or it was destroyed");
  }
}

}  // namespace mpf::shmem
