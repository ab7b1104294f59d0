// Window construction and destruction (MPI-3.1 §11.2): MPI_Win_create,
// _allocate, _allocate_shared, _create_dynamic with _attach and _detach,
// MPI_Win_shared_query and MPI_Win_free.
//
// Every window has a shared part in node memory (rma/window_layout.hpp),
// created by its rank 0. The allocating flavors put the members' memory in
// the same piece: contiguous in rank order for MPI_Win_allocate_shared
// (unless alloc_shared_noncontig), each part on pages of its own for
// MPI_Win_allocate. A member of an MPI_Win_create window publishes how its
// memory is reached: directly when it lies in node memory (MPI_Alloc_mem's
// heap, another window's memory), else by Cross Memory Attach at its
// address, else (CMA refused: rndv_mode=copy) through its progress engine.
#include <mpi.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/info.hpp"
#include "mpi/win.hpp"
#include "mpi/win_via_target.hpp"
#include "rma/shared_heap.hpp"

namespace mpf::mpi {
namespace {

constexpr std::uint64_t kPage = 4096;
constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t to) { return (n + to - 1) / to * to; }

std::int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The value of a boolean hint, or `otherwise` when it is not given.
bool hint(MPI_Info info, const char* key, bool otherwise) {
  if (info == MPI_INFO_NULL) return otherwise;
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  if (!flag) return otherwise;
  return std::strcmp(value, "true") == 0;
}

// CMA may reach other ranks' process memory: rndv_mode=copy says it may
// not (the kernel refuses it, or the operator chose so).
bool cma_allowed() {
  return core::Runtime::instance().tunables().text(common::Tunable::rndv_mode) != "copy";
}

struct Creation {
  const char* call;
  MPI_Comm comm;
  rma::Flavor flavor;
  MPI_Aint size;
  int disp_unit;
  MPI_Info info;
  void* base;     // create: the program's memory
  void* baseptr;  // allocate flavors: where the memory's address goes
  MPI_Win* win;
};

int check_creation(const Creation& c) {
  require_initialized(c.call);
  if (!comm_is_valid(c.comm)) return comm_error(c.call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(c.comm));
  if (comm_of(c.comm).inter) {
    return comm_error(c.call, c.comm, MPI_ERR_COMM, "windows are made on intracommunicators, not intercommunicators");
  }
  // Every member before any checks its arguments: a window's shared part
  // lives in one node's memory.
  if (comm_of(c.comm).plan.across_nodes()) {
    return comm_error(c.call, c.comm, MPI_ERR_UNSUPPORTED_OPERATION,
                      "the communicator's ranks are on several nodes, and windows across nodes are not available "
                      "yet (one-sided communication works among the ranks of one node: MPI_Comm_split_type with "
                      "MPI_COMM_TYPE_SHARED gives a node's communicator)");
  }
  if (c.size < 0) return comm_error(c.call, c.comm, MPI_ERR_SIZE, "negative window size " + std::to_string(c.size));
  if (c.disp_unit <= 0) {
    return comm_error(c.call, c.comm, MPI_ERR_DISP,
                      "displacement unit " + std::to_string(c.disp_unit) + " (it must be positive)");
  }
  if (!info_argument_is_valid(c.info)) {
    return comm_error(c.call, c.comm, MPI_ERR_INFO, "invalid info object " + std::to_string(c.info));
  }
  if (c.win == nullptr) return comm_error(c.call, c.comm, MPI_ERR_ARG, "win is NULL");
  if (c.flavor != rma::Flavor::create && c.flavor != rma::Flavor::dynamic && c.baseptr == nullptr) {
    return comm_error(c.call, c.comm, MPI_ERR_ARG, "baseptr is NULL");
  }
  if (c.flavor == rma::Flavor::create && c.size > 0 && c.base == nullptr) {
    return comm_error(c.call, c.comm, MPI_ERR_BASE, "base is NULL for a window of " + std::to_string(c.size) + " bytes");
  }
  return MPI_SUCCESS;
}

// Where each member's part of the allocated memory starts, from the data's
// start; *total gets the whole.
std::vector<std::uint64_t> place_parts(const std::vector<std::uint64_t>& sizes, bool contiguous,
                                       std::uint64_t* total) {
  std::vector<std::uint64_t> at(sizes.size());
  std::uint64_t next = 0;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    at[r] = next;
    next += contiguous ? sizes[r] : round_up(sizes[r], kPage);
  }
  *total = next;
  return at;
}

// How this rank's memory of a create window is reached, in its member block.
void publish_reach(rma::MemberBlock& m, const void* base, std::uint64_t bytes) {
  if (bytes == 0) {
    m.reach = static_cast<std::uint32_t>(rma::Reach::none);
  } else if (const auto placed = rma::find(base, bytes)) {
    m.reach = static_cast<std::uint32_t>(rma::Reach::direct);
    m.memory_id = placed->id;
    m.memory_offset = placed->offset;
  } else {
    m.reach = static_cast<std::uint32_t>(cma_allowed() ? rma::Reach::cma : rma::Reach::via_target);
  }
}

// Reads every member's block (after the barrier that follows their
// writing it) into this rank's targets.
void learn_targets(Window& w) {
  w.targets.resize(static_cast<std::size_t>(w.size));
  for (int r = 0; r < w.size; ++r) {
    const rma::MemberBlock& m = w.member(r);
    WinTarget& t = w.targets[static_cast<std::size_t>(r)];
    t.reach = static_cast<rma::Reach>(m.reach);
    t.size = m.size;
    t.disp_unit = m.disp_unit;
    t.world = m.world_rank;
    t.address = m.address;
    if (r == w.rank) {
      t.direct = static_cast<std::byte*>(w.base);
    } else if (t.reach == rma::Reach::direct) {
      if (m.memory_id == w.mapping_id) {
        t.direct = w.mapping.data + m.memory_offset;
      } else {
        w.held.push_back(rma::open(m.memory_id));
        t.direct = w.held.back().data + m.memory_offset;
      }
    }
  }
}

// This rank's memory, and how the others reach it, in its member block.
// `part`: where its memory starts in an allocating window's data.
void publish_member(Window& w, const Creation& c, std::uint64_t mine, std::uint64_t part, std::uint32_t world_rank) {
  rma::MemberBlock& me = w.member(w.rank);
  if (c.flavor == rma::Flavor::allocate || c.flavor == rma::Flavor::shared) {
    // No memory, no address: MPI_Win_shared_query says NULL for it too.
    w.base = mine == 0 ? nullptr : w.layout.data() + part;
    *static_cast<void**>(c.baseptr) = w.base;
    me.reach = static_cast<std::uint32_t>(mine == 0 ? rma::Reach::none : rma::Reach::direct);
    me.memory_id = w.mapping_id;
    me.memory_offset = w.layout.header().data_offset + part;
  } else if (c.flavor == rma::Flavor::create) {
    w.base = c.base;
    publish_reach(me, c.base, mine);
  }
  w.bytes = c.flavor == rma::Flavor::dynamic ? 0 : c.size;
  me.world_rank = world_rank;
  me.pid = static_cast<std::int32_t>(::getpid());
  me.disp_unit = static_cast<std::uint32_t>(c.disp_unit);
  me.size = mine;
  me.address = reinterpret_cast<std::uint64_t>(w.base);
  me.handle = static_cast<std::uint32_t>(w.handle);
}

// True when no member failed (`failed` empty everywhere); a barrier too.
bool agree(const Window& w, const std::string& failed) {
  const int ok = failed.empty() ? 1 : 0;
  int all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w.comm);
  return all == 1;
}

int create(const Creation& c) {
  if (int rc = check_creation(c)) return rc;
  core::Runtime& rt = core::Runtime::instance();
  auto w = std::make_unique<Window>();
  w->flavor = c.flavor;
  w->flavor_value = static_cast<int>(c.flavor);
  w->disp_unit = c.disp_unit;
  w->no_locks = hint(c.info, "no_locks", false);
  w->noncontiguous = hint(c.info, "alloc_shared_noncontig", false);
  if (int rc = PMPI_Comm_dup(c.comm, &w->comm)) return rc;
  if (c.info != MPI_INFO_NULL) PMPI_Info_dup(c.info, &w->info);
  Communicator& comm = comm_of(w->comm);
  w->rank = comm.rank;
  w->size = comm.size();
  const auto n = static_cast<std::uint32_t>(w->size);
  const MPI_Win handle = static_cast<MPI_Win>(window_table().size());
  comm.name = "window " + std::to_string(handle) + " of " + comm_of(c.comm).name;

  // Rank 0 creates the shared part, sized for every member's memory.
  const std::uint64_t mine = c.flavor == rma::Flavor::dynamic ? 0 : static_cast<std::uint64_t>(c.size);
  std::vector<std::uint64_t> sizes(n);
  PMPI_Allgather(&mine, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, w->comm);
  const bool allocates = c.flavor == rma::Flavor::allocate || c.flavor == rma::Flavor::shared;
  std::uint64_t data_bytes = 0;
  const std::vector<std::uint64_t> parts =
      place_parts(sizes, c.flavor == rma::Flavor::shared && !w->noncontiguous, &data_bytes);
  if (!allocates) data_bytes = 0;
  std::uint64_t id = 0;
  std::string why;
  if (w->rank == 0) {
    const auto regions = static_cast<std::uint32_t>(rt.tunables().integer(common::Tunable::rma_regions));
    const std::uint64_t control = rma::WindowLayout::control_bytes(n, c.flavor, regions);
    try {
      w->piece = shm::NodeMemory::create(rt.segment(), rt.job().rank, rma::kWindowMemoryName, control + data_bytes);
      id = w->piece.id();
      w->layout = rma::WindowLayout::create(w->piece.data(), w->piece.bytes(), n, comm.context, c.flavor, regions,
                                            handle, data_bytes, now_ns());
      w->mapping = {w->piece.data(), w->piece.bytes(), nullptr};
      rma::remember(w->piece.data(), w->piece.bytes(), id);
    } catch (const std::exception& e) {
      why = e.what();
      id = 0;
    }
  }
  PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, w->comm);
  if (id == 0) {
    PMPI_Comm_free(&w->comm);
    if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
    // Memory the members cannot share is MPI_Win_allocate_shared's own error.
    return comm_error(c.call, c.comm, c.flavor == rma::Flavor::shared ? MPI_ERR_RMA_SHARED : MPI_ERR_NO_MEM,
                      "cannot create the window's shared memory" +
                          (why.empty() ? std::string(" (rank 0 of the communicator could not)") : ": " + why));
  }
  // Every member maps the shared part and writes its block; once all have
  // (the agreement below is a barrier), each reads the others' and maps
  // the node memory they reach theirs through. A member that cannot map
  // what it must (a process whose descriptors it may not open) fails the
  // creation for all: they agree on it, so nobody keeps half a window.
  std::string failed;
  try {
    if (w->rank != 0) {
      w->mapping = rma::open(id);
      w->layout = rma::WindowLayout(w->mapping.data, w->mapping.bytes);
    }
  } catch (const std::exception& e) {
    failed = e.what();
  }
  w->mapping_id = id;
  w->handle = handle;
  if (failed.empty()) publish_member(*w, c, mine, parts[static_cast<std::size_t>(w->rank)], rt.job().rank);
  if (agree(*w, failed)) {
    try {
      learn_targets(*w);
    } catch (const std::exception& e) {
      failed = e.what();
    }
  }
  if (!agree(*w, failed)) {
    if (w->piece.owner()) rma::forget(w->piece.data());
    PMPI_Comm_free(&w->comm);
    if (w->info != MPI_INFO_NULL) PMPI_Info_free(&w->info);
    return comm_error(c.call, c.comm, c.flavor == rma::Flavor::shared ? MPI_ERR_RMA_SHARED : MPI_ERR_OTHER,
                      "cannot map the window's memory" +
                          (failed.empty() ? std::string(" at another member") : ": " + failed));
  }
  w->posts_seen.assign(n, 0);
  w->completes_seen.assign(n, 0);
  w->locks.assign(n, rma::LockType::none);
  w->locks_checked.assign(n, false);
  window_table().push_back(std::move(w));
  serve_windows_from_now_on();
  *c.win = handle;
  return MPI_SUCCESS;
}

}  // namespace

std::vector<std::unique_ptr<Window>>& window_table() {
  static std::vector<std::unique_ptr<Window>> table(1);  // 0 is MPI_WIN_NULL
  return table;
}

Window* find_win(MPI_Win win) {
  auto& t = window_table();
  return win > 0 && static_cast<std::size_t>(win) < t.size() ? t[static_cast<std::size_t>(win)].get() : nullptr;
}

std::string describe_bad_win(MPI_Win win) {
  if (win == MPI_WIN_NULL) return "window is MPI_WIN_NULL";
  if (win > 0 && static_cast<std::size_t>(win) < window_table().size()) {
    return "window " + std::to_string(win) + " has been freed";
  }
  return "invalid window " + std::to_string(win);
}

int win_error(const char* call, MPI_Win win, int error_class, const std::string& detail) {
  const Window* w = find_win(win);
  if (w == nullptr) return comm_error(call, MPI_COMM_WORLD, error_class, detail);
  return handle_error(call, w->errhandler, win, error_class, detail);
}

Window* window_of(const char* call, MPI_Win win, int* rc) {
  require_initialized(call);
  Window* w = find_win(win);
  *rc = w == nullptr ? win_error(call, win, MPI_ERR_WIN, describe_bad_win(win)) : MPI_SUCCESS;
  return w;
}

std::string win_label(const Window& w) {
  return "window " + std::to_string(w.handle) + (w.name.empty() ? std::string() : " (" + w.name + ")");
}

bool Window::may_access(int target) const {
  if (fence_epoch || lock_all || locks[static_cast<std::size_t>(target)] != rma::LockType::none) return true;
  if (!access_epoch) return false;
  for (int t : access_group) {
    if (t == target) return true;
  }
  return false;
}

}  // namespace mpf::mpi

using namespace mpf::mpi;
namespace rma = mpf::rma;

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create({"MPI_Win_create", comm, rma::Flavor::create, size, disp_unit, info, base, nullptr, win});
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return create({"MPI_Win_allocate", comm, rma::Flavor::allocate, size, disp_unit, info, nullptr, baseptr, win});
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                             MPI_Win* win) {
  return create({"MPI_Win_allocate_shared", comm, rma::Flavor::shared, size, disp_unit, info, nullptr, baseptr, win});
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return create({"MPI_Win_create_dynamic", comm, rma::Flavor::dynamic, 0, 1, info, nullptr, nullptr, win});
}

// MPI-4.0's form, which MPI-3.1 programs cannot tell apart: any flavor may
// be queried; memory this process does not map (another member's process
// memory, a dynamic window's) answers size 0 and NULL.
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  const char* call = "MPI_Win_shared_query";
  require_initialized(call);
  Window* w = find_win(win);
  if (w == nullptr) return win_error(call, win, MPI_ERR_WIN, describe_bad_win(win));
  if (size == nullptr || disp_unit == nullptr || baseptr == nullptr) {
    return win_error(call, win, MPI_ERR_ARG, "size, disp_unit or baseptr is NULL");
  }
  auto mapped = [&](int r) {
    const WinTarget& t = w->targets[static_cast<std::size_t>(r)];
    return t.size > 0 && (r == w->rank || t.direct != nullptr) && w->flavor != rma::Flavor::dynamic;
  };
  if (rank == MPI_PROC_NULL) {
    // The first member whose memory is there (MPI-3.1 §11.2.3).
    rank = 0;
    while (rank < w->size && !mapped(rank)) ++rank;
    if (rank == w->size) {
      *size = 0;
      *disp_unit = static_cast<int>(w->targets[0].disp_unit);
      *static_cast<void**>(baseptr) = nullptr;
      return MPI_SUCCESS;
    }
  } else if (rank < 0 || rank >= w->size) {
    return win_error(call, win, MPI_ERR_RANK,
                     "rank " + std::to_string(rank) + " is not in " + win_label(*w) + " of " +
                         std::to_string(w->size) + " ranks");
  }
  const WinTarget& t = w->targets[static_cast<std::size_t>(rank)];
  const bool here = mapped(rank);
  *size = here ? static_cast<MPI_Aint>(t.size) : 0;
  *disp_unit = static_cast<int>(t.disp_unit);
  *static_cast<void**>(baseptr) = !here ? nullptr : rank == w->rank ? w->base : t.direct;
  return MPI_SUCCESS;
}

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* call = "MPI_Win_attach";
  require_initialized(call);
  Window* w = find_win(win);
  if (w == nullptr) return win_error(call, win, MPI_ERR_WIN, describe_bad_win(win));
  if (w->flavor != rma::Flavor::dynamic) {
    return win_error(call, win, MPI_ERR_RMA_FLAVOR,
                     win_label(*w) + " was not made by MPI_Win_create_dynamic: memory cannot be attached to it");
  }
  if (size < 0) return win_error(call, win, MPI_ERR_SIZE, "negative size " + std::to_string(size));
  if (base == nullptr && size > 0) return win_error(call, win, MPI_ERR_RMA_ATTACH, "base is NULL");
  rma::MemberBlock& me = w->member(w->rank);
  const auto from = reinterpret_cast<std::uint64_t>(base);
  const auto to = from + static_cast<std::uint64_t>(size);
  const std::uint32_t slots = w->layout.regions();
  std::uint32_t free_slot = slots;
  for (std::uint32_t i = 0; i < slots; ++i) {
    const rma::Region& r = w->layout.region(static_cast<std::uint32_t>(w->rank), i);
    if (r.size == 0) {
      if (free_slot == slots) free_slot = i;
      continue;
    }
    if (from < r.address + r.size && r.address < to) {
      return win_error(call, win, MPI_ERR_RMA_ATTACH,
                       "memory [" + std::to_string(from) + ", " + std::to_string(to) +
                           ") overlaps memory attached already at " + std::to_string(r.address));
    }
  }
  if (free_slot == slots) {
    return win_error(call, win, MPI_ERR_RMA_ATTACH,
                     win_label(*w) + " has " + std::to_string(slots) +
                         " regions attached at this rank, the most it takes (the rma_regions tunable when it was "
                         "made); detach one first");
  }
  if (size == 0) return MPI_SUCCESS;
  rma::Region entry{from, static_cast<std::uint64_t>(size), 0, 0};
  if (const auto placed = rma::find(base, entry.size)) {
    entry.memory_id = placed->id;
    entry.memory_offset = placed->offset;
  }
  // Odd while the table changes: origins read it as a seqlock.
  me.regions_version.fetch_add(1, std::memory_order_acq_rel);
  std::atomic_thread_fence(std::memory_order_release);
  w->layout.region(static_cast<std::uint32_t>(w->rank), free_slot) = entry;
  me.regions.fetch_add(1, std::memory_order_relaxed);
  me.regions_version.fetch_add(1, std::memory_order_release);
  return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void* base) {
  const char* call = "MPI_Win_detach";
  require_initialized(call);
  Window* w = find_win(win);
  if (w == nullptr) return win_error(call, win, MPI_ERR_WIN, describe_bad_win(win));
  if (w->flavor != rma::Flavor::dynamic) {
    return win_error(call, win, MPI_ERR_RMA_FLAVOR,
                     win_label(*w) + " was not made by MPI_Win_create_dynamic: nothing is attached to it");
  }
  rma::MemberBlock& me = w->member(w->rank);
  const auto address = reinterpret_cast<std::uint64_t>(base);
  for (std::uint32_t i = 0; i < w->layout.regions(); ++i) {
    rma::Region& r = w->layout.region(static_cast<std::uint32_t>(w->rank), i);
    if (r.size == 0 || r.address != address) continue;
    me.regions_version.fetch_add(1, std::memory_order_acq_rel);
    std::atomic_thread_fence(std::memory_order_release);
    r = rma::Region{};
    me.regions.fetch_sub(1, std::memory_order_relaxed);
    me.regions_version.fetch_add(1, std::memory_order_release);
    return MPI_SUCCESS;
  }
  return win_error(call, win, MPI_ERR_RMA_ATTACH,
                   "no memory is attached at address " + std::to_string(address) + " of " + win_label(*w));
}

int PMPI_Win_free(MPI_Win* win) {
  const char* call = "MPI_Win_free";
  require_initialized(call);
  if (win == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "win is NULL");
  Window* w = find_win(*win);
  if (w == nullptr) return win_error(call, *win, MPI_ERR_WIN, describe_bad_win(*win));
  if (w->access_epoch || w->exposure_epoch || w->locks_held > 0 || w->lock_all) {
    const char* open = w->access_epoch     ? "an access epoch (MPI_Win_start) is open"
                       : w->exposure_epoch ? "an exposure epoch (MPI_Win_post) is open"
                       : w->lock_all       ? "MPI_Win_lock_all holds every member's lock"
                                           : "a lock (MPI_Win_lock) is held";
    return win_error(call, *win, MPI_ERR_RMA_SYNC, std::string(open) + " on " + win_label(*w) + "; close it first");
  }
  // Nobody frees memory another member may still be reaching.
  PMPI_Barrier(w->comm);
  if (int rc = delete_window_attributes(*win)) return win_error(call, *win, rc, "an attribute's delete callback failed");
  if (w->piece.owner()) rma::forget(w->piece.data());
  forget_window(*w);
  std::unique_ptr<Window> gone = std::move(window_table()[static_cast<std::size_t>(*win)]);
  PMPI_Comm_free(&gone->comm);
  if (gone->info != MPI_INFO_NULL) PMPI_Info_free(&gone->info);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Win_create = PMPI_Win_create
#pragma weak MPI_Win_allocate = PMPI_Win_allocate
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
#pragma weak MPI_Win_attach = PMPI_Win_attach
#pragma weak MPI_Win_detach = PMPI_Win_detach
#pragma weak MPI_Win_free = PMPI_Win_free

}  // extern "C"
