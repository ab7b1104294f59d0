// How bad input ends: one line naming the call, the PE and what is wrong.
#include <cstdio>
#include <string>

#include "core/runtime.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {
namespace {

std::string pe_label() {
  const core::Runtime& rt = core::Runtime::instance();
  return rt.initialized() ? std::to_string(rt.job().rank) : std::string("?");
}

std::string hex(const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", address);
  return text;
}

}  // namespace

// Exit status of a job that bad input ended.
constexpr int kFailStatus = 1;

void fail(const char* call, const std::string& what) {
  const std::string text = std::string(call) + " (PE " + pe_label() + "): " + what;
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  core::Runtime& rt = core::Runtime::instance();
  if (rt.initialized()) rt.abort(kFailStatus, text);
  std::_Exit(kFailStatus);
}

void warn(const char* call, const std::string& what) {
  std::fprintf(stderr, "%s (PE %s): %s\n", call, pe_label().c_str(), what.c_str());
  std::fflush(stderr);
}

void require_initialized(const char* call) {
  if (g_state.initialized) [[likely]]
    return;
  fail(call, g_state.finalized ? "called after shmem_finalize" : "called before shmem_init (or start_pes)");
}

void fail_pe(const char* call, int pe, std::uint32_t npes, const char* of) {
  require_initialized(call);
  fail(call, "PE " + std::to_string(pe) + " is out of range: " + of + " has PEs 0 to " + std::to_string(npes - 1));
}

void fail_not_symmetric(const char* call, const void* address, std::uint64_t bytes, const char* what) {
  require_initialized(call);
  fail(call, std::string(what) + " at " + hex(address) + " (" + std::to_string(bytes) +
                 " bytes) is not symmetric: it must lie in memory from shmem_malloc (or its kin) or in a global "
                 "or static variable");
}

}  // namespace mpf::shmem
