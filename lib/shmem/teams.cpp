// Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, strided and 2-D splits, PE
// translation, and the active sets of the deprecated collectives. A team
// is a coll::Group whose context id its members agree on (core/
// context_ids.hpp), so its collectives never meet MPI's or another team's.
#include <shmem.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "coll/algorithms.hpp"
#include "core/context_ids.hpp"
#include "core/runtime.hpp"
#include "shmem/state.hpp"

struct mpf_shmem_team mpf_shmem_team_world;
struct mpf_shmem_team mpf_shmem_team_shared;

namespace mpf::shmem {
namespace {

// Makes `team` the group of `members` (world PEs, in team order).
void form(mpf_shmem_team& team, std::vector<std::uint32_t> members, std::uint32_t context, std::uint32_t first_seq,
          bool world, std::string label) {
  const core::Runtime& rt = core::Runtime::instance();
  team.team_pe.assign(g_state.npes, -1);
  for (std::size_t i = 0; i < members.size(); ++i) {
    team.team_pe[members[i]] = static_cast<std::int32_t>(i);
    if (members[i] == g_state.me) team.group.rank = static_cast<int>(i);
  }
  team.group.plan = coll::Plan::build(rt.coll_rules(), rt.coll_facts(),
                                      {.ranks = static_cast<std::uint32_t>(members.size()),
                                       .world = world,
                                       .across_nodes = rt.routes().spans_nodes(members)});
  team.group.world = std::move(members);
  team.group.context = context;
  team.group.coll_seq = first_seq;
  team.group.epoch = first_seq;
  team.group.api = progress::WaitApi::shmem;
  team.group.name = label;
  team.label = std::move(label);
  team.config = {};
  team.config_mask = 0;
  core::claim_context(context);
  if (team.group.size() > 1) {
    core::Runtime::instance().engine().collectives().show(
        team.group.calls, context, team.group.epoch, static_cast<std::uint32_t>(team.group.size()), team.group.rank);
  }
  team.magic = kTeamMagic;
}

// A new team of `members` (this PE's; empty when it is in none), agreed
// over `parent`: every member of the parent calls it. SHMEM_TEAM_INVALID
// for a PE in no new team, or when no context id is free at every member.
shmem_team_t split(const char* call, mpf_shmem_team& parent, std::vector<std::uint32_t> members,
                   const shmem_team_config_t* config, long config_mask) {
  const coll::CollectiveScope scope(parent.group, progress::CollKind::comm_create, false);
  const core::NewContext made =
      core::agree_context(parent.group, parent.group.world, static_cast<std::size_t>(parent.group.rank), call);
  if (!made.agreed) {
    warn(call, "no team context id is free at every PE of the parent team (" + std::to_string(core::kContextIds) +
                   " per PE): destroy teams you no longer use");
    return SHMEM_TEAM_INVALID;
  }
  if (members.empty()) return SHMEM_TEAM_INVALID;
  mpf_shmem_team& team = g_state.teams.emplace_back();
  const std::size_t n = members.size();
  form(team, std::move(members), made.context, made.first_seq, false, "a team of " + std::to_string(n) + " PEs");
  if (config != nullptr && (config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0) {
    team.config.num_contexts = config->num_contexts;
    team.config_mask = SHMEM_TEAM_NUM_CONTEXTS;
  }
  return &team;
}

}  // namespace

mpf_shmem_team& team_of(const char* call, shmem_team_t team) {
  require_initialized(call);
  if (team == SHMEM_TEAM_INVALID) fail(call, "the team is SHMEM_TEAM_INVALID");
  if (team->magic != kTeamMagic) fail(call, "the team is not one this PE is in, or it was destroyed");
  return *team;
}

void init_teams() {
  std::vector<std::uint32_t> all(g_state.npes);
  std::iota(all.begin(), all.end(), 0u);
  form(mpf_shmem_team_world, all, core::kShmemWorldContext, 0, true, "SHMEM_TEAM_WORLD");
  // The PEs that share this node's memory: on one node, all of them.
  form(mpf_shmem_team_shared, std::move(all), core::kShmemSharedContext, 0, false, "SHMEM_TEAM_SHARED");
}

void finalize_teams() {
  for (mpf_shmem_team& team : g_state.teams) {
    if (team.magic == kTeamMagic) core::release_context(team.group.context, team.group.coll_seq);
    team.magic = 0;
  }
  mpf_shmem_team_world.magic = 0;
  mpf_shmem_team_shared.magic = 0;
  g_state.active_sets.clear();
}

void team_barrier(const char* call, mpf_shmem_team& team) {
  const coll::CollectiveScope scope(team.group, progress::CollKind::barrier, false);
  coll::barrier(team.group, call);
}

mpf_shmem_team& active_set(const char* call, int start, int log_stride, int size) {
  require_initialized(call);
  const auto key = std::make_tuple(start, log_stride, size);
  if (auto it = g_state.active_sets.find(key); it != g_state.active_sets.end()) return *it->second;
  if (start < 0 || log_stride < 0 || log_stride > 30 || size < 1 ||
      static_cast<std::int64_t>(start) + (static_cast<std::int64_t>(size) - 1) * (std::int64_t{1} << log_stride) >=
          static_cast<std::int64_t>(g_state.npes)) {
    fail(call, "the active set PE_start " + std::to_string(start) + ", logPE_stride " + std::to_string(log_stride) +
                   ", PE_size " + std::to_string(size) + " does not lie within the job's " +
                   std::to_string(g_state.npes) + " PEs");
  }
  std::vector<std::uint32_t> members(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i)
    members[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(start + (i << log_stride));
  if (std::find(members.begin(), members.end(), g_state.me) == members.end()) {
    fail(call, "this PE is not in the active set PE_start " + std::to_string(start) + ", logPE_stride " +
                   std::to_string(log_stride) + ", PE_size " + std::to_string(size));
  }
  // Collective over the active set only: its members agree on a context
  // through a group whose keys they all derive from the set itself.
  mpf_shmem_team temp;
  std::uint32_t hash = 2166136261u;  // FNV-1a of the set
  for (const int v : {start, log_stride, size}) {
    auto u = static_cast<std::uint32_t>(v);
    for (int i = 0; i < 4; ++i, u >>= 8) hash = (hash ^ (u & 0xffu)) * 16777619u;
  }
  temp.group.world = members;
  temp.group.rank = static_cast<int>(std::find(members.begin(), members.end(), g_state.me) - members.begin());
  temp.group.context = core::kGroupKeyBit | (hash & ~core::kGroupKeyBit);
  temp.group.api = progress::WaitApi::shmem;
  core::NewContext made;
  {
    const coll::CollectiveScope scope(temp.group, progress::CollKind::comm_create, false);
    made = core::agree_context(temp.group, members, static_cast<std::size_t>(temp.group.rank), call);
  }
  if (!made.agreed) fail(call, "no context id is free at every PE of the active set: too many teams exist");
  mpf_shmem_team& team = g_state.teams.emplace_back();
  form(team, std::move(members), made.context, made.first_seq, false,
       "the active set (" + std::to_string(start) + ", " + std::to_string(log_stride) + ", " + std::to_string(size) +
           ")");
  g_state.active_sets.emplace(key, &team);
  return team;
}

}  // namespace mpf::shmem

using namespace mpf::shmem;

extern "C" {

int pshmem_team_my_pe(shmem_team_t team) {
  require_initialized("shmem_team_my_pe");
  if (team == SHMEM_TEAM_INVALID || team->magic != kTeamMagic) return -1;
  return team->group.rank;
}
MPF_SHMEM_WEAK(team_my_pe)

int pshmem_team_n_pes(shmem_team_t team) {
  require_initialized("shmem_team_n_pes");
  if (team == SHMEM_TEAM_INVALID || team->magic != kTeamMagic) return -1;
  return team->group.size();
}
MPF_SHMEM_WEAK(team_n_pes)

int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config) {
  require_initialized("shmem_team_get_config");
  if (team == SHMEM_TEAM_INVALID || team->magic != kTeamMagic || config == nullptr) return -1;
  if ((config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0) config->num_contexts = team->config.num_contexts;
  return 0;
}
MPF_SHMEM_WEAK(team_get_config)

int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team) {
  require_initialized("shmem_team_translate_pe");
  if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_team->magic != kTeamMagic ||
      dest_team->magic != kTeamMagic || src_pe < 0 || src_pe >= src_team->group.size()) {
    return -1;
  }
  return dest_team->team_pe[src_team->group.world_of(src_pe)];
}
MPF_SHMEM_WEAK(team_translate_pe)

int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t* config, long config_mask, shmem_team_t* new_team) {
  const char* call = "shmem_team_split_strided";
  if (new_team == nullptr) fail(call, "new_team is NULL");
  *new_team = SHMEM_TEAM_INVALID;
  require_initialized(call);
  // The standard: no team from an invalid parent, and nonzero.
  if (parent_team == SHMEM_TEAM_INVALID || parent_team->magic != kTeamMagic) return -1;
  mpf_shmem_team& parent = *parent_team;
  const std::int64_t n = parent.group.size();
  const std::int64_t last = static_cast<std::int64_t>(start) + static_cast<std::int64_t>(stride) * (size - 1);
  if (size < 1 || start < 0 || start >= n || last < 0 || last >= n || (stride == 0 && size > 1)) {
    warn(call, "PE_start " + std::to_string(start) + ", PE_stride " + std::to_string(stride) + ", PE_size " +
                   std::to_string(size) + " do not name PEs of the parent team of " + std::to_string(n) +
                   " PEs: no team was made");
    return -1;
  }
  std::vector<std::uint32_t> members;
  bool mine = false;
  for (int i = 0; i < size; ++i) {
    const int r = start + i * stride;
    members.push_back(parent.group.world_of(r));
    mine = mine || r == parent.group.rank;
  }
  if (!mine) members.clear();
  *new_team = split(call, parent, std::move(members), config, config_mask);
  return 0;
}
MPF_SHMEM_WEAK(team_split_strided)

int pshmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t* xaxis_config, long xaxis_mask,
                         shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config, long yaxis_mask,
                         shmem_team_t* yaxis_team) {
  const char* call = "shmem_team_split_2d";
  if (xaxis_team == nullptr || yaxis_team == nullptr) fail(call, "xaxis_team or yaxis_team is NULL");
  *xaxis_team = SHMEM_TEAM_INVALID;
  *yaxis_team = SHMEM_TEAM_INVALID;
  require_initialized(call);
  if (parent_team == SHMEM_TEAM_INVALID || parent_team->magic != kTeamMagic) return -1;
  mpf_shmem_team& parent = *parent_team;
  const int n = parent.group.size();
  if (xrange < 1) {
    warn(call, "xrange " + std::to_string(xrange) + " must be at least 1: no team was made");
    return -1;
  }
  xrange = std::min(xrange, n);
  // PE r of the parent is at column r % xrange of row r / xrange: its x
  // team is its row, its y team its column.
  const int me = parent.group.rank;
  std::vector<std::uint32_t> row;
  std::vector<std::uint32_t> column;
  for (int r = me / xrange * xrange; r < std::min(n, (me / xrange + 1) * xrange); ++r)
    row.push_back(parent.group.world_of(r));
  for (int r = me % xrange; r < n; r += xrange) column.push_back(parent.group.world_of(r));
  *xaxis_team = split(call, parent, std::move(row), xaxis_config, xaxis_mask);
  *yaxis_team = split(call, parent, std::move(column), yaxis_config, yaxis_mask);
  return *xaxis_team != SHMEM_TEAM_INVALID && *yaxis_team != SHMEM_TEAM_INVALID ? 0 : -1;
}
MPF_SHMEM_WEAK(team_split_2d)

void pshmem_team_destroy(shmem_team_t team) {
  const char* call = "shmem_team_destroy";
  require_initialized(call);
  if (team == SHMEM_TEAM_INVALID) return;
  if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) fail(call, "the predefined teams cannot be destroyed");
  mpf_shmem_team& t = team_of(call, team);
  // The team's contexts end with it (the standard: destroying a team
  // destroys the contexts created from it).
  for (mpf_shmem_ctx& ctx : g_state.contexts) {
    if (ctx.magic == kContextMagic && ctx.team == team) ctx.magic = 0;
  }
  for (auto it = g_state.active_sets.begin(); it != g_state.active_sets.end();) {
    it = it->second == team ? g_state.active_sets.erase(it) : std::next(it);
  }
  mpf::core::release_context(t.group.context, t.group.coll_seq);
  t.magic = 0;
}
MPF_SHMEM_WEAK(team_destroy)

int pshmem_team_sync(shmem_team_t team) {
  team_barrier("shmem_team_sync", team_of("shmem_team_sync", team));
  return 0;
}
MPF_SHMEM_WEAK(team_sync)

}  // extern "C"
