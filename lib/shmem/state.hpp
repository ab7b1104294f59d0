// The process's OpenSHMEM state, and the paths every put, get and atomic
// takes: where a symmetric address lies on a PE, and waking a PE that may
// sleep waiting for what was written.
//
// A symmetric address is in the caller's heap (symmetric/layout.hpp: every
// PE's heap is mapped here, so PE p's copy is a pointer) or in the
// program's static data (symmetric/static_data.hpp: PE p's copy is at the
// same offset from where PE p loaded the program, reached by Cross Memory
// Attach). Anything else is not symmetric, and the call ends the job
// saying so (errors.hpp).
#pragma once

#include <shmem.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "coll/group.hpp"
#include "shm/counters.hpp"
#include "shm/node_memory.hpp"
#include "shm/transport.hpp"
#include "symmetric/allocator.hpp"
#include "symmetric/layout.hpp"
#include "symmetric/static_data.hpp"

// The handles of shmem.h: a team is a group of PEs that runs collectives
// (a coll::Group), a context names the team whose PE numbers its
// operations take.
struct mpf_shmem_team {
  std::uint32_t magic = 0;            // kTeamMagic while the team exists
  mpf::coll::Group group;             // members as world ranks (PE numbers), in team order
  std::vector<std::int32_t> team_pe;  // world PE -> its number in the team, -1 for none
  shmem_team_config_t config{};
  long config_mask = 0;
  std::string label;  // for messages: "SHMEM_TEAM_WORLD", "a team of 4 PEs"
};

struct mpf_shmem_ctx {
  std::uint32_t magic = 0;  // kContextMagic while the context exists
  shmem_team_t team = nullptr;
  long options = 0;
};

namespace mpf::shmem {

inline constexpr std::uint32_t kTeamMagic = 0x7465616d;     // "team"
inline constexpr std::uint32_t kContextMagic = 0x63747874;  // "ctxt"

struct State {
  // What the data paths read, first.
  std::byte* my_heap = nullptr;  // this PE's heap, in this process's mapping
  std::byte* heaps = nullptr;    // PE 0's heap; PE p's is heap_bytes further on per PE
  std::uint64_t heap_bytes = 0;  // 0 outside shmem_init .. shmem_finalize: nothing is symmetric
  std::uint32_t npes = 0;
  std::uint32_t me = 0;
  symmetric::StaticData statics;  // this PE's
  symmetric::Layout layout;
  shm::RankCounters* counters = nullptr;
  shm::Transport* transport = nullptr;

  bool initialized = false;
  bool finalized = false;
  int thread_level = SHMEM_THREAD_SINGLE;
  // Every PE runs a program whose static data has this PE's size: a
  // static variable of one is then at the same offset in each.
  bool statics_symmetric = false;
  bool debug = false;
  std::optional<shm::NodeMemory> piece;  // the heaps (PE 0 created it)
  symmetric::Allocator allocator;
  std::uint64_t allocations = 0;  // symmetric allocations made: AllocationRequest::sequence
  // Teams this PE made (split, active sets) and contexts: never freed, so
  // that a destroyed handle is seen for what it is (magic 0), not reused.
  std::deque<mpf_shmem_team> teams;
  std::deque<mpf_shmem_ctx> contexts;
  std::map<std::tuple<int, int, int>, mpf_shmem_team*> active_sets;  // (start, log stride, size)
};

extern State g_state;

// ---- errors (errors.cpp) ----------------------------------------------------

// Ends the job: "<call> (PE <me>): <what>" on stderr, and through the
// launcher. The one way bad input ends.
[[noreturn]] void fail(const char* call, const std::string& what);
// A line "<call> (PE <me>): <what>" on stderr; the call goes on.
void warn(const char* call, const std::string& what);
// Fails unless shmem_init has run (and shmem_finalize has not).
void require_initialized(const char* call);
[[noreturn]] void fail_pe(const char* call, int pe, std::uint32_t npes, const char* of);
[[noreturn]] void fail_not_symmetric(const char* call, const void* address, std::uint64_t bytes, const char* what);

// ---- where a symmetric address lies -----------------------------------------

// PE `pe`'s copy of [address, address + bytes) when it lies in this PE's
// heap, else null. The hot path of every operation: two compares.
inline std::byte* heap_copy(const void* address, std::uint64_t bytes, std::uint32_t pe) {
  const State& s = g_state;
  const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(s.my_heap);
  if (offset >= s.heap_bytes || bytes > s.heap_bytes - offset) return nullptr;
  return s.heaps + static_cast<std::uint64_t>(pe) * s.heap_bytes + offset;
}

// Where a symmetric object lies on PE `pe`: a pointer (its heap copy, or
// this PE's own static variable) or an address in PE pe's process.
struct Place {
  std::byte* direct = nullptr;  // null: reach `remote` by Cross Memory Attach
  std::uint64_t remote = 0;
};
// Checks that [address, address + bytes) is symmetric (fails naming
// `call` and `what`, "the destination"), and finds PE `pe`'s copy.
Place locate(const char* call, const void* address, std::uint64_t bytes, std::uint32_t pe, const char* what);
// The symmetric_ref of an address, 0 when it is not symmetric.
std::uint64_t symmetric_ref_of(const void* address, std::uint64_t bytes);

// ---- PE numbers ------------------------------------------------------------

// `pe` checked against the job (fails naming call), as a world PE.
inline std::uint32_t checked_pe(const char* call, int pe) {
  if (static_cast<std::uint32_t>(pe) >= g_state.npes) [[unlikely]]
    fail_pe(call, pe, g_state.npes, "the job");
  return static_cast<std::uint32_t>(pe);
}
// The context checked (SHMEM_CTX_DEFAULT, or one shmem_ctx_create or
// shmem_team_create_ctx made and shmem_ctx_destroy did not end).
void check_context(const char* call, shmem_ctx_t ctx);
// `pe` of `ctx`'s team, as a world PE: contexts made from a team take
// that team's PE numbers.
inline std::uint32_t context_pe(const char* call, shmem_ctx_t ctx, int pe) {
  if (ctx == SHMEM_CTX_DEFAULT) [[likely]]
    return checked_pe(call, pe);
  check_context(call, ctx);
  const mpf_shmem_team& team = *ctx->team;
  if (static_cast<std::uint32_t>(pe) >= team.group.world.size()) [[unlikely]]
    fail_pe(call, pe, static_cast<std::uint32_t>(team.group.world.size()), team.label.c_str());
  return team.group.world_of(pe);
}

// ---- after a write ------------------------------------------------------------

// PE `pe` may sleep waiting for what this PE wrote: wakes it if it does.
// The caller's write is ordered before the look at whether it sleeps.
inline void wake(std::uint32_t pe) { g_state.transport->wake(pe); }
// The same after a write that was itself a full fence (a locked
// read-modify-write, an exchange).
inline void wake_after_fence(std::uint32_t pe) { g_state.transport->wake_after_fence(pe); }

inline shm::RankCounters& counters() { return *g_state.counters; }
using shm::count;

// ---- data movement (transfer.cpp) -----------------------------------------------

// Copies between this process and PE pe's copy of a symmetric object,
// whichever way it is reached, and wakes the PE after a put. `what` names
// the symmetric side in errors.
void put_bytes(const char* call, std::uint32_t pe, void* dest, const void* source, std::uint64_t bytes);
void get_bytes(const char* call, std::uint32_t pe, void* dest, const void* source, std::uint64_t bytes);
// Strided: element i (of `element` bytes) of the source at source +
// i * sst * element goes to dest + i * dst * element.
void put_strided(const char* call, std::uint32_t pe, void* dest, const void* source, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element);
void get_strided(const char* call, std::uint32_t pe, void* dest, const void* source, std::ptrdiff_t dst,
                 std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element);
// Cross Memory Attach with PE pe's process (`write`: into it); fails the
// job naming `call` when the kernel refuses or the copy fails.
void cma(const char* call, std::uint32_t pe, bool write, void* local, std::uint64_t remote, std::uint64_t bytes);

// ---- teams (teams.cpp) -------------------------------------------------------------

// The team checked: a valid handle (fails naming `call` otherwise).
mpf_shmem_team& team_of(const char* call, shmem_team_t team);
// Sets up SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (shmem_init).
void init_teams();
void finalize_teams();
// The team of an active set of the deprecated collectives (PE_start,
// logPE_stride, PE_size), made (collectively over its members) on first use.
mpf_shmem_team& active_set(const char* call, int start, int log_stride, int size);

// Every PE of `team` arrives (shmem_barrier_all, shmem_sync_all, team_sync).
void team_barrier(const char* call, mpf_shmem_team& team);

}  // namespace mpf::shmem

// The profiling interface: every routine is defined as pshmem_<name>, and
// shmem_<name> is a weak alias of it that a tool may replace.
#define MPF_SHMEM_STRINGIFY(x) #x
#define MPF_SHMEM_WEAK(name) _Pragma(MPF_SHMEM_STRINGIFY(weak shmem_##name = pshmem_##name))
