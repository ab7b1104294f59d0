// The tool information interface (MPI-3.1 §14.3): what a tool (a profiler,
// an autotuner, a monitoring library) learns about the library through
// MPI_T_* without knowing it.
//
//   control variables      the tunables (common/tunables_table.hpp): cvar i is
//                          Tunable i. mpfrun resolves them once for every rank
//                          and the runtime reads them at setup, so they are
//                          constant (MPI_T_SCOPE_CONSTANT): a write fails with
//                          MPI_T_ERR_CVAR_SET_NEVER instead of pretending.
//   performance variables  this rank's counters (shm/counters.hpp): pvar i is
//                          kCounterFields[i]. Read-only: a counter is shared
//                          with mpfrun's report and mpfinspect, and readonly
//                          covers writing and resetting alike (§14.3.7).
//   categories             one per layer (kCategories below); every variable is
//                          in exactly one, which the compiler checks.
//
// Before MPI_Init the control variables read what MPI_Init will use: in a rank
// mpfrun started, the job's table in the shared segment (so `mpfrun --set`
// shows); in a program started alone, default < tuning file < MPF_*
// environment, as the runtime resolves it. The counters exist from MPI_Init
// on: a performance variable cannot be bound to a handle before (the call
// fails with MPI_T_ERR_INVALID); after MPI_Finalize the counters stay mapped
// and handles keep reading them.
//
// The interface is as thread-safe as the rest of the library,
// MPI_THREAD_SERIALIZED. Nothing here is on a hot path.
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "common/system_error.hpp"
#include "common/tunables.hpp"
#include "core/runtime.hpp"
#include "shm/counters.hpp"
#include "shm/segment.hpp"
#include "wireup/pmix_client.hpp"

extern char** environ;

namespace {

using mpf::common::Tunable;
using mpf::common::TunableKind;
using mpf::common::TunableSpec;
using mpf::common::kTunableCount;
using mpf::common::kTunableTable;
using mpf::core::Runtime;
using mpf::shm::kCounterFields;

// ---- Categories ------------------------------------------------------------
// One per layer. A category's verbosity is that of every variable in it.

struct PvarRow {
  std::string_view counter;  // a name in shm::kCounterFields
  int var_class;             // MPI_T_PVAR_CLASS_*
};

struct Category {
  std::string_view name;
  std::string_view doc;
  int verbosity;
  std::span<const Tunable> cvars;
  std::span<const PvarRow> pvars;
};

// Counters of events: read through a handle, the events while it was started.
constexpr int kCounter = MPI_T_PVAR_CLASS_COUNTER;

constexpr Tunable kJobCvars[] = {Tunable::tuning_file, Tunable::run_dir, Tunable::stop_grace_ms};
constexpr PvarRow kJobPvars[] = {
    {"pmix_puts", kCounter},
    {"pmix_gets", kCounter},
    {"pmix_fences", kCounter},
    // Durations measured once: GENERIC, read as they are.
    {"init_ns", MPI_T_PVAR_CLASS_GENERIC},
    {"finalize_ns", MPI_T_PVAR_CLASS_GENERIC},
};
constexpr Tunable kShmCvars[] = {Tunable::short_limit,       Tunable::eager_limit, Tunable::eager_cells,
                                 Tunable::eager_small_cells, Tunable::ring_slots,  Tunable::rndv_mode,
                                 Tunable::unexpected_pool};
constexpr PvarRow kShmPvars[] = {
    {"short_sent", kCounter}, {"short_bytes", kCounter}, {"eager_sent", kCounter}, {"eager_bytes", kCounter},
    {"rndv_sent", kCounter},  {"rndv_bytes", kCounter},  {"flow_stalls", kCounter},
};
constexpr Tunable kProgressCvars[] = {Tunable::wait_policy, Tunable::spin_count,       Tunable::yield_count,
                                      Tunable::yield_us,    Tunable::yielders_per_cpu, Tunable::all_yield_per_cpu};
constexpr PvarRow kProgressPvars[] = {
    {"received", kCounter},
    {"received_bytes", kCounter},
    {"unexpected", kCounter},
    // The most the pool held since MPI_Init: a handle cannot see a mark of
    // its own without the engine tracking one per handle, so it reads this.
    {"unexpected_hwm_bytes", MPI_T_PVAR_CLASS_HIGHWATERMARK},
    {"sleeps", kCounter},
    {"wakeups_sent", kCounter},
};
constexpr Tunable kCollectiveCvars[] = {Tunable::coll_buffer,       Tunable::coll_radix, Tunable::coll_short_limit,
                                        Tunable::coll_exchange_max, Tunable::coll_board, Tunable::coll_board_stage,
                                        Tunable::coll_single_copy,  Tunable::coll_stream_copy, Tunable::coll_rules};
constexpr PvarRow kCollectivePvars[] = {{"turn_sleeps", kCounter}, {"turn_timeouts", kCounter}};
constexpr Tunable kDebugCvars[] = {Tunable::datatype_check, Tunable::debug};
constexpr Tunable kRmaCvars[] = {Tunable::rma_regions, Tunable::rma_stream_copy};
constexpr PvarRow kRmaPvars[] = {{"rma_operations", kCounter},
                                 {"rma_applied", kCounter},
                                 {"rma_types_sent", kCounter},
                                 {"rma_type_cache_hits", kCounter}};

constexpr Tunable kNetCvars[] = {Tunable::net_provider};

constexpr Tunable kMpfCvars[] = {Tunable::mpf_conversations, Tunable::mpf_queue_bytes};
constexpr PvarRow kMpfPvars[] = {{"mpf_sent", kCounter},
                                 {"mpf_sent_bytes", kCounter},
                                 {"mpf_received", kCounter},
                                 {"mpf_received_bytes", kCounter},
                                 {"mpf_full_waits", kCounter}};

constexpr Tunable kShmemCvars[] = {Tunable::shmem_symmetric_size, Tunable::shmem_debug, Tunable::shmem_version,
                                   Tunable::shmem_info};
constexpr PvarRow kShmemPvars[] = {
    {"shmem_puts", kCounter},        {"shmem_put_bytes", kCounter},     {"shmem_gets", kCounter},
    {"shmem_get_bytes", kCounter},   {"shmem_amo_fetch", kCounter},     {"shmem_amo_set", kCounter},
    {"shmem_amo_swap", kCounter},    {"shmem_amo_compare_swap", kCounter}, {"shmem_amo_add", kCounter},
    {"shmem_amo_bitwise", kCounter}, {"shmem_signals", kCounter},       {"shmem_static_accesses", kCounter}};

constexpr std::array<Category, 9> kCategories{{
    {"job", "Starting and stopping the job: the tuning file, the run directory, wire-up with mpfrun",
     MPI_T_VERBOSITY_USER_BASIC, kJobCvars, kJobPvars},
    {"shm", "The shared-memory transport: message protocols by size, rings, eager buffers, the unexpected pool",
     MPI_T_VERBOSITY_TUNER_BASIC, kShmCvars, kShmPvars},
    {"progress", "The progress engine: receiving, matching, and how a waiting rank waits",
     MPI_T_VERBOSITY_TUNER_DETAIL, kProgressCvars, kProgressPvars},
    {"collectives", "Collective operations: collective slots and cells, trees, the board, single copy",
     MPI_T_VERBOSITY_TUNER_DETAIL, kCollectiveCvars, kCollectivePvars},
    {"debug", "Checks and reports for debugging programs and the library", MPI_T_VERBOSITY_USER_DETAIL,
     kDebugCvars, {}},
    {"rma", "One-sided communication: attached regions, operations issued, applied for others, datatypes cached",
     MPI_T_VERBOSITY_TUNER_DETAIL, kRmaCvars, kRmaPvars},
    {"net", "The network transport: the libfabric provider that reaches ranks on other nodes",
     MPI_T_VERBOSITY_TUNER_BASIC, kNetCvars, {}},
    {"mpf", "MPF conversations: how many may exist, their queues, messages sent and received",
     MPI_T_VERBOSITY_TUNER_DETAIL, kMpfCvars, kMpfPvars},
    {"shmem", "OpenSHMEM: the symmetric heap's size, the standard's switches, puts, gets, atomics and signals",
     MPI_T_VERBOSITY_TUNER_DETAIL, kShmemCvars, kShmemPvars},
}};

constexpr int kNoIndex = -1;

constexpr int counter_index(std::string_view name) {
  for (std::size_t i = 0; i < kCounterFields.size(); ++i) {
    if (kCounterFields[i].name == name) return static_cast<int>(i);
  }
  return kNoIndex;
}

consteval bool every_variable_in_one_category() {
  for (const TunableSpec& row : kTunableTable) {
    int seen = 0;
    for (const Category& c : kCategories) seen += static_cast<int>(std::count(c.cvars.begin(), c.cvars.end(), row.id));
    if (seen != 1) return false;
  }
  for (const mpf::shm::CounterField& field : kCounterFields) {
    int seen = 0;
    for (const Category& c : kCategories) {
      for (const PvarRow& p : c.pvars) seen += p.counter == field.name ? 1 : 0;
    }
    if (seen != 1) return false;
  }
  for (const Category& c : kCategories) {
    for (const PvarRow& p : c.pvars) {
      if (counter_index(p.counter) == kNoIndex) return false;
    }
  }
  return true;
}
static_assert(every_variable_in_one_category(),
              "kCategories must list every tunable and every counter of shm::kCounterFields exactly once");

// The category of each control variable, and the category and class of each
// performance variable, by index.
struct PvarPlace {
  int category = kNoIndex;
  int var_class = kCounter;
};

constexpr std::array<int, kTunableCount> kCvarCategory = [] {
  std::array<int, kTunableCount> out{};
  for (std::size_t c = 0; c < kCategories.size(); ++c) {
    for (Tunable t : kCategories[c].cvars) out[static_cast<std::size_t>(t)] = static_cast<int>(c);
  }
  return out;
}();

constexpr std::array<PvarPlace, kCounterFields.size()> kPvarPlace = [] {
  std::array<PvarPlace, kCounterFields.size()> out{};
  for (std::size_t c = 0; c < kCategories.size(); ++c) {
    for (const PvarRow& p : kCategories[c].pvars) {
      out[static_cast<std::size_t>(counter_index(p.counter))] = {static_cast<int>(c), p.var_class};
    }
  }
  return out;
}();

constexpr int kNumCvars = static_cast<int>(kTunableCount);
constexpr int kNumPvars = static_cast<int>(kCounterFields.size());
constexpr int kNumCategories = static_cast<int>(kCategories.size());

// ---- Control variables: how each kind of tunable looks ---------------------

// integer, boolean and choice (the word's index) are ints, sizes are bytes in
// an unsigned long long, text is its characters and a NUL.
constexpr MPI_Datatype cvar_datatype(TunableKind kind) {
  switch (kind) {
    case TunableKind::integer:
    case TunableKind::boolean:
    case TunableKind::choice:
      return MPI_INT;
    case TunableKind::size:
      return MPI_UNSIGNED_LONG_LONG;
    case TunableKind::text:
      break;
  }
  return MPI_CHAR;
}

consteval bool cvar_values_fit() {
  for (const TunableSpec& row : kTunableTable) {
    if (row.kind == TunableKind::integer && (row.min < INT_MIN || row.max > INT_MAX)) return false;
    if (row.kind == TunableKind::size && row.min < 0) return false;
  }
  return true;
}
static_assert(cvar_values_fit(), "an integer tunable's range must fit an int (MPI_INT), a size's must be >= 0");

// A choice tunable has an enumeration of its words: the handle is the
// tunable's index + 1, so that 0 stays MPI_T_ENUM_NULL.
MPI_T_enum enum_of(std::size_t tunable) { return static_cast<MPI_T_enum>(tunable + 1); }

const TunableSpec* enum_tunable(MPI_T_enum e) {
  if (e < 1 || e > kNumCvars) return nullptr;
  const TunableSpec& row = kTunableTable[static_cast<std::size_t>(e - 1)];
  return row.kind == TunableKind::choice ? &row : nullptr;
}

// ---- State -------------------------------------------------------------------

struct CvarHandle {
  std::size_t tunable;
  int count;  // elements of cvar_datatype() the value takes
};

// A counter seen through a handle counts only while the handle is started
// (the class COUNTER's starting value is 0, §14.3.7); the other classes read
// the counter as it is.
struct PvarHandle {
  MPI_T_pvar_session session;
  std::size_t pvar;
  bool started = false;
  std::uint64_t accumulated = 0;  // over the earlier started periods
  std::uint64_t started_at = 0;   // the counter when the current period began
};

struct ToolState {
  int users = 0;  // MPI_T_init_thread calls not yet matched by MPI_T_finalize
  // The tunables as MPI_Init will see them, for the calls before it; read
  // once (they cannot change) by the first MPI_T_init_thread before MPI_Init.
  std::optional<mpf::common::Tunables> early;
  // Handles and sessions take the next number and none is ever reused, so a
  // stale or foreign one (a pvar handle passed as a cvar handle) is refused.
  int last_number = 0;
  std::unordered_map<int, CvarHandle> cvar_handles;
  std::unordered_map<int, PvarHandle> pvar_handles;
  std::unordered_set<int> sessions;
};

ToolState& state() {
  static ToolState s;
  return s;
}

// The next handle or session number; 0 when all are used.
int next_number(ToolState& s) {
  if (s.last_number == INT_MAX) return 0;
  return ++s.last_number;
}

bool initialized() { return state().users > 0; }

// What MPI_Init takes from the segment mpfrun passed: the job's tunables. The
// descriptor is duplicated, since the runtime closes mpfrun's once it attaches.
mpf::common::Tunables tunables_of_segment(const char* fd_text) {
  char* end = nullptr;
  const long fd = std::strtol(fd_text, &end, 10);
  if (end == fd_text || *end != '\0' || fd < 0 || fd > INT_MAX) {
    throw std::runtime_error(std::string(mpf::core::kEnvSegmentFd) + "='" + fd_text +
                             "' is not a file descriptor; it is set by mpfrun and must not be changed");
  }
  const int copy = ::fcntl(static_cast<int>(fd), F_DUPFD_CLOEXEC, 0);
  if (copy < 0) {
    throw std::runtime_error(mpf::common::system_error_text(
        std::string("dup of the shared segment's descriptor ") + mpf::core::kEnvSegmentFd + "=" + fd_text, errno));
  }
  std::optional<mpf::shm::Segment> segment;
  try {
    segment.emplace(mpf::shm::Segment::attach_fd(copy));  // closes `copy` once mapped
  } catch (...) {
    ::close(copy);
    throw;
  }
  return mpf::common::Tunables::from_json(nlohmann::json::parse(segment->tunables_json()));
}

// Where Runtime::init will take the tunables from: a process no PMIx server
// started is a one-rank job that resolves its own; a rank of mpfrun's reads
// the job's from the segment.
int resolve_early(ToolState& s) {
  try {
    const char* fd_text = std::getenv(mpf::core::kEnvSegmentFd);
    if (!mpf::wireup::PmixClient::launched_by_pmix_server()) {
      s.early = mpf::common::Tunables::resolve(environ, {});
    } else if (fd_text != nullptr) {
      s.early = tunables_of_segment(fd_text);
    } else {
      throw std::runtime_error("this process was started by a PMIx launcher other than mpfrun, which sets up the "
                               "shared segment the ranks communicate through; start the job with mpfrun");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "MPI_T_init_thread (rank ?): cannot read the tunables MPI_Init would use: %s\n", e.what());
    std::fflush(stderr);
    return MPI_T_ERR_CANNOT_INIT;
  }
  return MPI_SUCCESS;
}

// The tunables in effect: the runtime's from MPI_Init on (and after
// MPI_Finalize), the ones read for MPI_Init before.
const mpf::common::Tunables& tunables() {
  Runtime& rt = Runtime::instance();
  return rt.initialized() ? rt.tunables() : *state().early;
}

// This rank's counters, once MPI_Init has attached them; nullptr before.
const mpf::shm::RankCounters* counters() {
  Runtime& rt = Runtime::instance();
  if (!rt.initialized() || rt.control() == nullptr) return nullptr;
  return &rt.control()->counters;
}

std::uint64_t counter_now(std::size_t pvar) {
  // Only this process writes its counters, and MPI calls (these included)
  // are serialized (MPI_THREAD_SERIALIZED): a relaxed load sees every count.
  return (counters()->*kCounterFields[pvar].member).load(std::memory_order_relaxed);
}

bool is_continuous(std::size_t pvar) { return kPvarPlace[pvar].var_class != kCounter; }

std::uint64_t pvar_value(const PvarHandle& h) {
  if (is_continuous(h.pvar)) return counter_now(h.pvar);
  return h.accumulated + (h.started ? counter_now(h.pvar) - h.started_at : 0);
}

void start(PvarHandle& h) {
  if (h.started) return;
  h.started = true;
  h.started_at = counter_now(h.pvar);
}

void stop(PvarHandle& h) {
  if (!h.started) return;
  h.accumulated += counter_now(h.pvar) - h.started_at;
  h.started = false;
}

// ---- Argument helpers -----------------------------------------------------------

// MPI-3.1 §14.3.3: at most *len - 1 characters and a NUL go into `out`, and
// *len becomes the whole string's length + 1 whether or not it was cut; a
// NULL `out` or a *len of 0 only asks for that length; a NULL `len` asks
// for nothing.
void copy_string(std::string_view text, char* out, int* len) {
  if (len == nullptr) return;
  if (out != nullptr && *len > 0) {
    const std::size_t n = std::min(text.size(), static_cast<std::size_t>(*len - 1));
    std::memcpy(out, text.data(), n);
    out[n] = '\0';
  }
  *len = static_cast<int>(text.size() + 1);
}

// The OUT arguments of the get_info calls may be NULL: a tool passes NULL
// for what it does not want (MPICH and Open MPI accept that too).
template <typename T, typename V>
void put(T* out, V value) {
  if (out != nullptr) *out = static_cast<T>(value);
}

bool valid_index(int index, int count) { return index >= 0 && index < count; }

// Every entry point: a C caller gets MPI_T_ERR_MEMORY, not an exception.
template <typename Body>
int guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return MPI_T_ERR_MEMORY;
  }
}

// Looks up a pvar handle of `session`, or says which error it is.
int find_pvar_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, PvarHandle** out) {
  ToolState& s = state();
  if (!s.sessions.contains(session)) return MPI_T_ERR_INVALID_SESSION;
  auto it = s.pvar_handles.find(handle);
  if (it == s.pvar_handles.end() || it->second.session != session) return MPI_T_ERR_INVALID_HANDLE;
  *out = &it->second;
  return MPI_SUCCESS;
}

// Starts or stops one handle, or with MPI_T_PVAR_ALL_HANDLES every handle of
// the session that can be (the continuous ones are left alone, §14.3.7).
int start_or_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void (*change)(PvarHandle&)) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  ToolState& s = state();
  if (!s.sessions.contains(session)) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (auto& [number, h] : s.pvar_handles) {
      if (h.session == session && !is_continuous(h.pvar)) change(h);
    }
    return MPI_SUCCESS;
  }
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, handle, &h); rc != MPI_SUCCESS) return rc;
  if (is_continuous(h->pvar)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
  change(*h);
  return MPI_SUCCESS;
}

// The indices of a category's members, at most `len` of them.
template <typename Span, typename IndexOf>
int list_members(int cat_index, int len, int indices[], Span Category::*members, IndexOf index_of) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_index(cat_index, kNumCategories)) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  const auto& list = kCategories[static_cast<std::size_t>(cat_index)].*members;
  const std::size_t n = std::min(list.size(), static_cast<std::size_t>(len));
  for (std::size_t i = 0; i < n; ++i) indices[i] = index_of(list[i]);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

// ---- Initialisation (§14.3.4) ---------------------------------------------------

int PMPI_T_init_thread(int required, int* provided) {
  return guarded([&] {
    if (provided == nullptr || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
      return MPI_T_ERR_INVALID;
    }
    ToolState& s = state();
    if (s.users == INT_MAX) return MPI_T_ERR_CANNOT_INIT;
    if (!Runtime::instance().initialized() && !s.early) {
      if (const int rc = resolve_early(s); rc != MPI_SUCCESS) return rc;
    }
    ++s.users;
    // As MPI_Init_thread: any thread, one at a time.
    *provided = std::min(required, MPI_THREAD_SERIALIZED);
    return MPI_SUCCESS;
  });
}

int PMPI_T_finalize(void) {
  ToolState& s = state();
  if (s.users == 0) return MPI_T_ERR_NOT_INITIALIZED;
  if (--s.users == 0) {
    s.cvar_handles.clear();
    s.pvar_handles.clear();
    s.sessions.clear();
  }
  return MPI_SUCCESS;
}

// ---- Enumerations (§14.3.5) -------------------------------------------------------

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    const TunableSpec* row = enum_tunable(enumtype);
    if (row == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    put(num, row->choices.size());
    copy_string(row->name, name, name_len);
    return MPI_SUCCESS;
  });
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    const TunableSpec* row = enum_tunable(enumtype);
    if (row == nullptr) return MPI_T_ERR_INVALID_HANDLE;
    if (!valid_index(index, static_cast<int>(row->choices.size()))) return MPI_T_ERR_INVALID_ITEM;
    put(value, index);  // a choice cvar reads as its word's index
    copy_string(row->choices[static_cast<std::size_t>(index)], name, name_len);
    return MPI_SUCCESS;
  });
}

// ---- Control variables (§14.3.6) ----------------------------------------------------

int PMPI_T_cvar_get_num(int* num_cvar) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_cvar == nullptr) return MPI_T_ERR_INVALID;
  *num_cvar = kNumCvars;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* binding, int* scope) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index, kNumCvars)) return MPI_T_ERR_INVALID_INDEX;
    const auto i = static_cast<std::size_t>(cvar_index);
    const TunableSpec& row = kTunableTable[i];
    copy_string(row.name, name, name_len);
    put(verbosity, kCategories[static_cast<std::size_t>(kCvarCategory[i])].verbosity);
    put(datatype, cvar_datatype(row.kind));
    put(enumtype, row.kind == TunableKind::choice ? enum_of(i) : MPI_T_ENUM_NULL);
    copy_string(row.doc, desc, desc_len);
    put(binding, MPI_T_BIND_NO_OBJECT);
    put(scope, MPI_T_SCOPE_CONSTANT);
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || cvar_index == nullptr) return MPI_T_ERR_INVALID;
  const std::optional<Tunable> t = mpf::common::find_tunable(name);
  if (!t) return MPI_T_ERR_INVALID_NAME;
  *cvar_index = static_cast<int>(*t);
  return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void*, MPI_T_cvar_handle* handle, int* count) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index, kNumCvars)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    ToolState& s = state();
    const auto i = static_cast<std::size_t>(cvar_index);
    const int number = next_number(s);
    if (number == 0) return MPI_T_ERR_OUT_OF_HANDLES;
    // Binding MPI_T_BIND_NO_OBJECT: the object argument is ignored.
    const int elements = kTunableTable[i].kind == TunableKind::text
                             ? static_cast<int>(tunables().text(static_cast<Tunable>(i)).size() + 1)
                             : 1;
    s.cvar_handles.emplace(number, CvarHandle{i, elements});
    *handle = number;
    *count = elements;
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (handle == nullptr) return MPI_T_ERR_INVALID;
  if (state().cvar_handles.erase(*handle) == 0) return MPI_T_ERR_INVALID_HANDLE;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    const auto it = state().cvar_handles.find(handle);
    if (it == state().cvar_handles.end()) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_T_ERR_INVALID;
    const CvarHandle& h = it->second;
    const auto t = static_cast<Tunable>(h.tunable);
    const TunableSpec& row = kTunableTable[h.tunable];
    const mpf::common::Tunables& values = tunables();
    switch (row.kind) {
      case TunableKind::integer:
        *static_cast<int*>(buf) = static_cast<int>(values.integer(t));  // cvar_values_fit()
        break;
      case TunableKind::size:
        *static_cast<unsigned long long*>(buf) = static_cast<unsigned long long>(values.integer(t));
        break;
      case TunableKind::boolean:
        *static_cast<int*>(buf) = values.boolean(t) ? 1 : 0;
        break;
      case TunableKind::choice: {
        const auto word = std::find(row.choices.begin(), row.choices.end(), values.text(t));
        *static_cast<int*>(buf) = static_cast<int>(word - row.choices.begin());
        break;
      }
      case TunableKind::text: {
        // The count the handle promised, even if the value were to differ.
        const std::string& text = values.text(t);
        const std::size_t n = std::min(text.size(), static_cast<std::size_t>(h.count - 1));
        std::memcpy(buf, text.data(), n);
        static_cast<char*>(buf)[n] = '\0';
        break;
      }
    }
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!state().cvar_handles.contains(handle)) return MPI_T_ERR_INVALID_HANDLE;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  // Every rank of a job runs with mpfrun's values, and the runtime has
  // sized the segment and chosen its protocols from them.
  return MPI_T_ERR_CVAR_SET_NEVER;
}

// ---- Performance variables (§14.3.7) ---------------------------------------------

int PMPI_T_pvar_get_num(int* num_pvar) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_pvar == nullptr) return MPI_T_ERR_INVALID;
  *num_pvar = kNumPvars;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* binding,
                         int* readonly, int* continuous, int* atomic) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(pvar_index, kNumPvars)) return MPI_T_ERR_INVALID_INDEX;
    const auto i = static_cast<std::size_t>(pvar_index);
    copy_string(kCounterFields[i].name, name, name_len);
    put(verbosity, kCategories[static_cast<std::size_t>(kPvarPlace[i].category)].verbosity);
    put(var_class, kPvarPlace[i].var_class);
    put(datatype, MPI_UNSIGNED_LONG_LONG);
    put(enumtype, MPI_T_ENUM_NULL);
    copy_string(kCounterFields[i].doc, desc, desc_len);
    put(binding, MPI_T_BIND_NO_OBJECT);
    put(readonly, 1);
    put(continuous, is_continuous(i) ? 1 : 0);
    put(atomic, 0);  // nothing can be reset, so nothing is read and reset at once
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || pvar_index == nullptr) return MPI_T_ERR_INVALID;
  for (std::size_t i = 0; i < kCounterFields.size(); ++i) {
    if (kCounterFields[i].name == name && kPvarPlace[i].var_class == var_class) {
      *pvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    if (session == nullptr) return MPI_T_ERR_INVALID;
    ToolState& s = state();
    const int number = next_number(s);
    if (number == 0) return MPI_T_ERR_OUT_OF_SESSIONS;
    s.sessions.insert(number);
    *session = number;
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (session == nullptr) return MPI_T_ERR_INVALID;
  ToolState& s = state();
  if (s.sessions.erase(*session) == 0) return MPI_T_ERR_INVALID_SESSION;
  std::erase_if(s.pvar_handles, [&](const auto& entry) { return entry.second.session == *session; });
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void*, MPI_T_pvar_handle* handle,
                             int* count) {
  return guarded([&] {
    if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
    ToolState& s = state();
    if (!s.sessions.contains(session)) return MPI_T_ERR_INVALID_SESSION;
    if (!valid_index(pvar_index, kNumPvars)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_T_ERR_INVALID;
    if (counters() == nullptr) return MPI_T_ERR_INVALID;  // no counters before MPI_Init
    const int number = next_number(s);
    if (number == 0) return MPI_T_ERR_OUT_OF_HANDLES;
    // Binding MPI_T_BIND_NO_OBJECT: the object argument is ignored. A
    // counter's handle starts stopped, at 0.
    s.pvar_handles.emplace(number, PvarHandle{session, static_cast<std::size_t>(pvar_index)});
    *handle = number;
    *count = 1;
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (handle == nullptr) return MPI_T_ERR_INVALID;
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, *handle, &h); rc != MPI_SUCCESS) return rc;
  state().pvar_handles.erase(*handle);
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_or_stop(session, handle, start);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  return start_or_stop(session, handle, stop);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, handle, &h); rc != MPI_SUCCESS) return rc;  // ALL_HANDLES too
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  *static_cast<unsigned long long*>(buf) = pvar_value(*h);
  return MPI_SUCCESS;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, handle, &h); rc != MPI_SUCCESS) return rc;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_PVAR_NO_WRITE;  // every pvar is readonly
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  // MPI_T_PVAR_ALL_HANDLES resets every handle that is not readonly: none.
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    return state().sessions.contains(session) ? MPI_SUCCESS : MPI_T_ERR_INVALID_SESSION;
  }
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, handle, &h); rc != MPI_SUCCESS) return rc;
  return MPI_T_ERR_PVAR_NO_WRITE;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  PvarHandle* h = nullptr;
  if (const int rc = find_pvar_handle(session, handle, &h); rc != MPI_SUCCESS) return rc;
  if (buf == nullptr) return MPI_T_ERR_INVALID;
  return MPI_T_ERR_PVAR_NO_WRITE;
}

// ---- Categories (§14.3.8) -----------------------------------------------------------

int PMPI_T_category_get_num(int* num_cat) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (num_cat == nullptr) return MPI_T_ERR_INVALID;
  *num_cat = kNumCategories;
  return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_index(cat_index, kNumCategories)) return MPI_T_ERR_INVALID_INDEX;
  const Category& c = kCategories[static_cast<std::size_t>(cat_index)];
  copy_string(c.name, name, name_len);
  copy_string(c.doc, desc, desc_len);
  put(num_cvars, c.cvars.size());
  put(num_pvars, c.pvars.size());
  put(num_categories, 0);  // the layers do not nest
  return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (name == nullptr || cat_index == nullptr) return MPI_T_ERR_INVALID;
  for (std::size_t c = 0; c < kCategories.size(); ++c) {
    if (kCategories[c].name == name) {
      *cat_index = static_cast<int>(c);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return list_members(cat_index, len, indices, &Category::cvars, [](Tunable t) { return static_cast<int>(t); });
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return list_members(cat_index, len, indices, &Category::pvars,
                      [](const PvarRow& p) { return counter_index(p.counter); });
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (!valid_index(cat_index, kNumCategories)) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;  // no category has subcategories
}

int PMPI_T_category_changed(int* stamp) {
  if (!initialized()) return MPI_T_ERR_NOT_INITIALIZED;
  if (stamp == nullptr) return MPI_T_ERR_INVALID;
  *stamp = 0;  // the variables and categories are the same for the whole run
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_T_init_thread = PMPI_T_init_thread
#pragma weak MPI_T_finalize = PMPI_T_finalize
#pragma weak MPI_T_enum_get_info = PMPI_T_enum_get_info
#pragma weak MPI_T_enum_get_item = PMPI_T_enum_get_item
#pragma weak MPI_T_cvar_get_num = PMPI_T_cvar_get_num
#pragma weak MPI_T_cvar_get_info = PMPI_T_cvar_get_info
#pragma weak MPI_T_cvar_get_index = PMPI_T_cvar_get_index
#pragma weak MPI_T_cvar_handle_alloc = PMPI_T_cvar_handle_alloc
#pragma weak MPI_T_cvar_handle_free = PMPI_T_cvar_handle_free
#pragma weak MPI_T_cvar_read = PMPI_T_cvar_read
#pragma weak MPI_T_cvar_write = PMPI_T_cvar_write
#pragma weak MPI_T_pvar_get_num = PMPI_T_pvar_get_num
#pragma weak MPI_T_pvar_get_info = PMPI_T_pvar_get_info
#pragma weak MPI_T_pvar_get_index = PMPI_T_pvar_get_index
#pragma weak MPI_T_pvar_session_create = PMPI_T_pvar_session_create
#pragma weak MPI_T_pvar_session_free = PMPI_T_pvar_session_free
#pragma weak MPI_T_pvar_handle_alloc = PMPI_T_pvar_handle_alloc
#pragma weak MPI_T_pvar_handle_free = PMPI_T_pvar_handle_free
#pragma weak MPI_T_pvar_start = PMPI_T_pvar_start
#pragma weak MPI_T_pvar_stop = PMPI_T_pvar_stop
#pragma weak MPI_T_pvar_read = PMPI_T_pvar_read
#pragma weak MPI_T_pvar_write = PMPI_T_pvar_write
#pragma weak MPI_T_pvar_reset = PMPI_T_pvar_reset
#pragma weak MPI_T_pvar_readreset = PMPI_T_pvar_readreset
#pragma weak MPI_T_category_get_num = PMPI_T_category_get_num
#pragma weak MPI_T_category_get_info = PMPI_T_category_get_info
#pragma weak MPI_T_category_get_index = PMPI_T_category_get_index
#pragma weak MPI_T_category_get_cvars = PMPI_T_category_get_cvars
#pragma weak MPI_T_category_get_pvars = PMPI_T_category_get_pvars
#pragma weak MPI_T_category_get_categories = PMPI_T_category_get_categories
#pragma weak MPI_T_category_changed = PMPI_T_category_changed

}  // extern "C"
