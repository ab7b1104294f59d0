// Library setup, exit and query: joining the runtime (which MPI and MPF
// may share), mapping the node's heaps, and what a PE may reach.
#include <shmem.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "coll/algorithms.hpp"
#include "common/version.hpp"
#include "core/runtime.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {
namespace {

using common::Tunable;

void print_start_up_notes() {
  const common::Tunables& t = core::Runtime::instance().tunables();
  if (t.boolean(Tunable::shmem_version)) {
    std::printf("OpenSHMEM %d.%d, %s %s\n", SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING,
                std::string(common::kVersion).c_str());
  }
  if (t.boolean(Tunable::shmem_info)) {
    std::printf("OpenSHMEM environment variables (each is also a tunable: mpfrun --list-params):\n");
    for (const Tunable id :
         {Tunable::shmem_symmetric_size, Tunable::shmem_debug, Tunable::shmem_version, Tunable::shmem_info}) {
      const common::TunableSpec& row = common::spec(id);
      std::printf("  %-22s %-10s %s (tunable %s, from %s)\n", std::string(row.standard_env).c_str(),
                  t.value_text(id).c_str(), std::string(row.doc).c_str(), std::string(row.name).c_str(),
                  t.origin(id).c_str());
    }
  }
  std::fflush(stdout);
}

// Maps the node's heaps: PE 0 creates the piece and tells the others its id.
void map_heaps(const char* call) {
  State& s = g_state;
  core::Runtime& rt = core::Runtime::instance();
  const std::uint64_t asked = static_cast<std::uint64_t>(rt.tunables().integer(Tunable::shmem_symmetric_size));
  std::uint64_t id = 0;
  try {
    if (s.me == 0) {
      s.piece.emplace(shm::NodeMemory::create(rt.segment(), s.me, symmetric::kPieceName,
                                              symmetric::Layout::piece_bytes(s.npes, asked)));
      symmetric::Layout::format(s.piece->data(), s.npes, asked);
      id = s.piece->id();
    }
  } catch (const std::exception& e) {
    fail(call, std::string("cannot create the symmetric heaps (") + std::to_string(s.npes) + " of " +
                   std::to_string(asked) +
                   " bytes, the tunable shmem_symmetric_size or SHMEM_SYMMETRIC_SIZE): " + e.what());
  }
  {
    const coll::CollectiveScope scope(mpf_shmem_team_world.group, progress::CollKind::bcast, false);
    coll::bcast(mpf_shmem_team_world.group, &id, sizeof id, 0, call);
  }
  try {
    if (s.me != 0) s.piece.emplace(shm::NodeMemory::open(rt.segment(), id));
    s.layout = symmetric::Layout(s.piece->data(), s.piece->bytes());
  } catch (const std::exception& e) {
    fail(call, std::string("cannot map the symmetric heaps: ") + e.what());
  }
  s.heaps = s.layout.heaps();
  s.my_heap = s.layout.heap(s.me);
  s.heap_bytes = s.layout.heap_bytes();
  s.allocator = symmetric::Allocator(s.layout.heap_bytes());
  // Published here, read by the others after the barrier below.
  symmetric::PeState& mine = s.layout.pe(s.me);
  mine.static_base = s.statics.base;
  mine.static_bytes = s.statics.bytes;
  mine.pid = static_cast<std::int32_t>(::getpid());
}

void init(const char* call, int requested) {
  State& s = g_state;
  if (s.initialized) return;  // again: nothing to do
  if (s.finalized) fail(call, "OpenSHMEM was finalized and cannot be initialised again");
  core::Runtime& rt = core::Runtime::instance();
  try {
    rt.join(core::Api::shmem);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", call, e.what());
    std::exit(1);
  }
  s.me = rt.job().rank;
  s.npes = rt.job().size;
  s.counters = &rt.control()->counters;
  s.transport = &rt.transport();
  s.thread_level = std::min(requested, SHMEM_THREAD_SERIALIZED);
  s.debug = rt.tunables().boolean(Tunable::shmem_debug);
  s.statics = symmetric::find_static_data();
  init_teams();
  map_heaps(call);
  s.initialized = true;
  team_barrier(call, mpf_shmem_team_world);
  s.statics_symmetric = true;
  for (std::uint32_t p = 0; p < s.npes; ++p) {
    s.statics_symmetric = s.statics_symmetric && s.layout.pe(p).static_bytes == s.statics.bytes;
  }
  if (s.debug) {
    warn(call, "heap of " + std::to_string(s.layout.heap_bytes()) + " bytes at " +
                   std::to_string(reinterpret_cast<std::uintptr_t>(s.my_heap)) + ", static data of " +
                   std::to_string(s.statics.bytes) + " bytes at " + std::to_string(s.statics.base) +
                   (s.statics_symmetric ? "" : "; the PEs' static data differ: another PE's globals are unreachable"));
  }
  if (s.me == 0) print_start_up_notes();
  // A program that returns from main without shmem_finalize (start_pes
  // never had one) is finalized at exit, as the standard says.
  static bool registered = false;
  if (!registered) {
    registered = std::atexit([] {
                   if (g_state.initialized) shmem_finalize();
                 }) == 0;
  }
}

}  // namespace
}  // namespace mpf::shmem

using namespace mpf::shmem;

extern "C" {

void pshmem_init(void) { init("shmem_init", SHMEM_THREAD_SINGLE); }
MPF_SHMEM_WEAK(init)

int pshmem_init_thread(int requested, int* provided) {
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    warn("shmem_init_thread", "requested level " + std::to_string(requested) +
                                  " is none of SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED, _MULTIPLE");
    return -1;
  }
  init("shmem_init_thread", requested);
  if (provided != nullptr) *provided = g_state.thread_level;
  return 0;
}
MPF_SHMEM_WEAK(init_thread)

void pshmem_query_thread(int* provided) {
  require_initialized("shmem_query_thread");
  if (provided != nullptr) *provided = g_state.thread_level;
}
MPF_SHMEM_WEAK(query_thread)

void pshmem_finalize(void) {
  const char* call = "shmem_finalize";
  State& s = g_state;
  if (!s.initialized) return;
  // Collective: nobody unmaps the heaps while another PE may still use them.
  team_barrier(call, mpf_shmem_team_world);
  s.initialized = false;
  s.finalized = true;
  finalize_teams();
  s.heap_bytes = 0;
  s.my_heap = nullptr;
  s.heaps = nullptr;
  s.layout = {};
  s.piece.reset();
  try {
    mpf::core::Runtime::instance().leave(mpf::core::Api::shmem, call);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", call, e.what());
  }
}
MPF_SHMEM_WEAK(finalize)

void pshmem_global_exit(int status) {
  std::fflush(stdout);
  mpf::core::Runtime& rt = mpf::core::Runtime::instance();
  if (rt.initialized()) {
    rt.abort(status, "shmem_global_exit(" + std::to_string(status) + ") on PE " + std::to_string(rt.job().rank));
  }
  std::_Exit(status);
}
MPF_SHMEM_WEAK(global_exit)

int pshmem_my_pe(void) {
  require_initialized("shmem_my_pe");
  return static_cast<int>(g_state.me);
}
MPF_SHMEM_WEAK(my_pe)

int pshmem_n_pes(void) {
  require_initialized("shmem_n_pes");
  return static_cast<int>(g_state.npes);
}
MPF_SHMEM_WEAK(n_pes)

int pshmem_pe_accessible(int pe) {
  require_initialized("shmem_pe_accessible");
  return pe >= 0 && static_cast<std::uint32_t>(pe) < g_state.npes ? 1 : 0;
}
MPF_SHMEM_WEAK(pe_accessible)

int pshmem_addr_accessible(const void* addr, int pe) {
  require_initialized("shmem_addr_accessible");
  if (pe < 0 || static_cast<std::uint32_t>(pe) >= g_state.npes) return 0;
  if (heap_copy(addr, 1, static_cast<std::uint32_t>(pe)) != nullptr) return 1;
  return g_state.statics.holds(addr, 1) && (g_state.statics_symmetric || static_cast<std::uint32_t>(pe) == g_state.me)
             ? 1
             : 0;
}
MPF_SHMEM_WEAK(addr_accessible)

void* pshmem_ptr(const void* dest, int pe) {
  require_initialized("shmem_ptr");
  if (pe < 0 || static_cast<std::uint32_t>(pe) >= g_state.npes) return nullptr;
  if (std::byte* copy = heap_copy(dest, 1, static_cast<std::uint32_t>(pe))) return copy;
  // Another process's global or static variables cannot be loaded from.
  return static_cast<std::uint32_t>(pe) == g_state.me && g_state.statics.holds(dest, 1) ? const_cast<void*>(dest)
                                                                                        : nullptr;
}
MPF_SHMEM_WEAK(ptr)

void* pshmem_team_ptr(shmem_team_t team, const void* dest, int pe) {
  require_initialized("shmem_team_ptr");
  if (team == SHMEM_TEAM_INVALID || team->magic != kTeamMagic || pe < 0 || pe >= team->group.size()) return nullptr;
  return shmem_ptr(dest, static_cast<int>(team->group.world_of(pe)));
}
MPF_SHMEM_WEAK(team_ptr)

void pshmem_info_get_version(int* major, int* minor) {
  if (major != nullptr) *major = SHMEM_MAJOR_VERSION;
  if (minor != nullptr) *minor = SHMEM_MINOR_VERSION;
}
MPF_SHMEM_WEAK(info_get_version)

void pshmem_info_get_name(char* name) {
  if (name == nullptr) return;
  const std::string text = std::string(SHMEM_VENDOR_STRING) + " " + std::string(mpf::common::kVersion);
  std::snprintf(name, SHMEM_MAX_NAME_LEN, "%s", text.c_str());
}
MPF_SHMEM_WEAK(info_get_name)

// The toolkit has no profiling levels of its own: a tool that replaces the
// shmem_ names gets the call, and the library ignores it.
void pshmem_pcontrol(int, ...) {}
MPF_SHMEM_WEAK(pcontrol)

}  // extern "C"
