// The communicator chapter: the table of communicators and the calls that
// build, compare, name and free them. How their context ids are agreed is
// in context_ids.hpp.
#include "mpi/comm.hpp"

#include <algorithm>
#include <map>
#include <cstring>
#include <numeric>
#include <set>
#include <tuple>

#include "coll/algorithms.hpp"
#include "coll/algorithms/context.hpp"
#include "coll/pending.hpp"
#include "core/context_ids.hpp"
#include "core/runtime.hpp"
#include "mpi/attributes.hpp"
#include "mpi/coll_launch.hpp"
#include "mpi/errors.hpp"
#include "mpi/group.hpp"
#include "mpi/intercomm.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi {

using core::agree_context_task;
using core::claim_context;
using core::kContextIds;
using core::NewContext;
using core::release_context;

constinit std::vector<std::shared_ptr<Communicator>> g_comms;

std::string describe_bad_comm(MPI_Comm comm) {
  return comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL" : "invalid communicator " + std::to_string(comm);
}

namespace {

std::uint32_t g_world_size = 0;

}  // namespace

// Agrees on the context of a communicator made from `parent` (blocking).
// The agreement is not a collective on the parent's slots: it does not
// wait for the nonblocking collectives this rank started before.
NewContext agree_context(Communicator& parent, const char* call) {
  return core::agree_context(parent, parent.members(), parent.member_index(), call);
}

void show_communicator(const Communicator& c) {
  // MPI_COMM_SELF has no one to wait for: not worth an entry.
  if (c.members_count() < 2) return;
  core::Runtime::instance().engine().collectives().show(c.calls, c.context, c.epoch, c.members_count(),
                                                        static_cast<std::int32_t>(c.member_index()));
}

int out_of_contexts(const char* call, MPI_Comm comm) {
  return comm_error(call, comm, MPI_ERR_INTERN,
                    "no communicator context id is free at every member (" + std::to_string(kContextIds) +
                        " per rank, the upper half of them for MPI_Comm_idup; free communicators you no longer use)");
}

namespace {

int check_comm(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  return MPI_SUCCESS;
}

// A new communicator over `members` (world ranks) after agreeing on its
// context over `parent`; *out is MPI_COMM_NULL when this rank is not a
// member. Collective over `parent`.
int create_from(const char* call, MPI_Comm parent, const std::vector<std::uint32_t>& members, MPI_Comm* out) {
  const NewContext made = agree_context(comm_of(parent), call);
  if (!made.agreed) return out_of_contexts(call, parent);
  const std::uint32_t me = core::Runtime::instance().job().rank;
  if (std::find(members.begin(), members.end(), me) == members.end()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  *out = add_communicator(members, made.context, made.first_seq);
  comm_of(*out).errhandler = comm_of(parent).errhandler;
  return MPI_SUCCESS;
}

// MPI_Comm_idup: the new handle exists at once (the program may not use it
// before the request completes); its context id and attributes are filled
// in when the agreement ends.
mpf::coll::Task idup_op(const Communicator& parent, mpf::coll::Key key, MPI_Comm parent_handle,
                        std::shared_ptr<Communicator> made, MPI_Comm handle) {
  NewContext agreed;
  mpf::coll::Task agree =
      agree_context_task(parent.members(), parent.member_index(), key.context, key.seq, false, &agreed);
  co_await coll::finished(agree);
  if (!agreed.agreed) {
    out_of_contexts("MPI_Comm_idup", parent_handle);
    co_return;
  }
  made->context = agreed.context;
  made->coll_seq = agreed.first_seq;
  made->epoch = agreed.first_seq;
  claim_context(agreed.context);
  show_communicator(*made);
  if (comm_is_valid(parent_handle) && comm_is_valid(handle)) {
    if (int rc = copy_attributes(parent_handle, handle)) {
      comm_error("MPI_Comm_idup", parent_handle, rc, "an attribute copy callback failed with error " + std::to_string(rc));
    }
  }
}

}  // namespace

std::vector<std::uint32_t> Communicator::members() const {
  if (!inter) return world;
  std::vector<std::uint32_t> all = low_group ? world : remote;
  const std::vector<std::uint32_t>& second = low_group ? remote : world;
  all.insert(all.end(), second.begin(), second.end());
  return all;
}


void make_inter(Communicator& comm, std::vector<std::uint32_t> remote, bool low_group) {
  comm.inter = true;
  comm.low_group = low_group;
  comm.remote_rank_of.assign(g_world_size, -1);
  for (std::size_t i = 0; i < remote.size(); ++i) comm.remote_rank_of[remote[i]] = static_cast<std::int32_t>(i);
  comm.remote = std::move(remote);
}

void init_communicators(std::uint32_t world_rank, std::uint32_t world_size) {
  g_world_size = world_size;
  auto& table = comm_table();
  table.clear();
  table.emplace_back();  // MPI_COMM_NULL
  std::vector<std::uint32_t> world(world_size);
  std::iota(world.begin(), world.end(), 0u);
  add_communicator(std::move(world), core::kMpiWorldContext);
  add_communicator({world_rank}, core::kMpiSelfContext);
  comm_of(MPI_COMM_WORLD).name = "MPI_COMM_WORLD";
  comm_of(MPI_COMM_SELF).name = "MPI_COMM_SELF";
}

void release_freed_comm(MPI_Comm comm) {
  const Communicator* c = any_comm(comm);
  if (c == nullptr || !c->freed || requests().uses(comm)) return;
  // Its collectives' last steps may linger in the members' slots: a later
  // communicator with this id starts its count past this one's.
  if (c->context != kNoContext) release_context(c->context, c->coll_seq);
  comm_table()[static_cast<std::size_t>(comm)].reset();
}

MPI_Comm add_communicator(std::vector<std::uint32_t> world, std::uint32_t context, std::uint32_t first_seq) {
  // kNoContext: MPI_Comm_idup's handle, whose id is agreed later.
  auto c = std::make_shared<Communicator>();
  const std::uint32_t me = core::Runtime::instance().job().rank;
  c->rank_of.assign(g_world_size, -1);
  for (std::size_t i = 0; i < world.size(); ++i) {
    c->rank_of[world[i]] = static_cast<std::int32_t>(i);
    if (world[i] == me) c->rank = static_cast<int>(i);
  }
  c->world = std::move(world);
  // MPI_COMM_WORLD is the only communicator the board serves.
  const core::Runtime& rt = core::Runtime::instance();
  c->plan = mpf::coll::Plan::build(rt.coll_rules(), rt.coll_facts(),
                                   {.ranks = static_cast<std::uint32_t>(c->world.size()),
                                    .world = context == core::kMpiWorldContext,
                                    .across_nodes = rt.routes().spans_nodes(c->world)});
  c->context = context;
  c->coll_seq = first_seq;
  c->epoch = first_seq;
  if (context != kNoContext) {
    claim_context(context);
    show_communicator(*c);
  }
  comm_table().push_back(std::move(c));
  return static_cast<MPI_Comm>(comm_table().size() - 1);
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  if (int rc = check_comm("MPI_Comm_rank", comm)) return rc;
  if (rank == nullptr) return comm_error("MPI_Comm_rank", comm, MPI_ERR_ARG, "rank argument is NULL");
  *rank = comm_rank(comm);
  return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  if (int rc = check_comm("MPI_Comm_size", comm)) return rc;
  if (size == nullptr) return comm_error("MPI_Comm_size", comm, MPI_ERR_ARG, "size argument is NULL");
  *size = comm_size(comm);
  return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  if (int rc = check_comm("MPI_Comm_test_inter", comm)) return rc;
  if (flag == nullptr) return comm_error("MPI_Comm_test_inter", comm, MPI_ERR_ARG, "flag argument is NULL");
  *flag = comm_of(comm).inter ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_dup";
  if (int rc = check_comm(call, comm)) return rc;
  if (newcomm == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newcomm argument is NULL");
  const Communicator& old = comm_of(comm);
  const CollectiveScope scope(old, mpf::progress::CollKind::comm_create, false);
  const int rc = old.inter ? create_inter_from(call, comm, old.world, old.remote, newcomm)
                           : create_from(call, comm, old.world, newcomm);
  if (rc != MPI_SUCCESS) return rc;
  Communicator& c = comm_of(*newcomm);
  c.topology = comm_of(comm).topology;
  if (int rc = copy_attributes(comm, *newcomm)) {
    MPI_Comm doomed = *newcomm;
    PMPI_Comm_free(&doomed);
    *newcomm = MPI_COMM_NULL;
    return comm_error(call, comm, rc, "an attribute copy callback failed with error " + std::to_string(rc));
  }
  return MPI_SUCCESS;
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info, MPI_Comm* newcomm) { return PMPI_Comm_dup(comm, newcomm); }

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const char* call = "MPI_Comm_idup";
  if (int rc = check_comm(call, comm)) return rc;
  if (newcomm == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newcomm argument is NULL");
  if (request == nullptr) return comm_error(call, comm, MPI_ERR_REQUEST, "request argument is NULL");
  Communicator& parent = comm_of(comm);
  const MPI_Comm handle = add_communicator(parent.world, kNoContext);
  Communicator& made = comm_of(handle);
  if (parent.inter) make_inter(made, parent.remote, parent.low_group);
  made.errhandler = parent.errhandler;
  made.topology = parent.topology;
  const CollectiveScope scope(parent, mpf::progress::CollKind::comm_create, true);
  const mpf::coll::Key key = parent.next_collective(mpf::coll::kAllreduce, -1);
  *newcomm = handle;
  return launch(call, comm, -1, idup_op(parent, key, comm, share_comm(handle), handle), request,
                      /*independent=*/true);
}

// Hints are accepted and none changes how a communicator behaves (as
// MPI_Comm_dup_with_info).
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info, MPI_Comm* newcomm, MPI_Request* request) {
  return PMPI_Comm_idup(comm, newcomm, request);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split";
  if (int rc = check_comm(call, comm)) return rc;
  if (newcomm == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newcomm argument is NULL");
  if (color < 0 && color != MPI_UNDEFINED) {
    return comm_error(call, comm, MPI_ERR_ARG, "invalid color " + std::to_string(color) +
                                                   " (colors are >= 0, or MPI_UNDEFINED)");
  }
  Communicator& parent = comm_of(comm);
  const CollectiveScope scope(parent, mpf::progress::CollKind::comm_create, false);
  if (parent.inter) return split_inter(call, comm, color, key, newcomm);
  const int n = parent.size();
  // Everyone's (color, key), at every member.
  std::vector<int> mine{color, key};
  std::vector<int> all(static_cast<std::size_t>(2 * n));
  const std::uint64_t pair = 2 * sizeof(int);
  std::vector<std::uint64_t> bytes(static_cast<std::size_t>(n), pair), displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) displs[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(i) * pair;
  mpf::coll::gatherv(parent, mine.data(), pair, all.data(), bytes, displs, 0, call);
  mpf::coll::bcast(parent, all.data(), pair * static_cast<std::uint64_t>(n), 0, call);
  std::vector<std::tuple<int, int, std::uint32_t>> same;  // key, parent rank, world rank
  for (int i = 0; i < n; ++i) {
    if (color != MPI_UNDEFINED && all[static_cast<std::size_t>(2 * i)] == color) {
      same.emplace_back(all[static_cast<std::size_t>(2 * i + 1)], i, parent.world[static_cast<std::size_t>(i)]);
    }
  }
  std::sort(same.begin(), same.end());
  std::vector<std::uint32_t> members;
  for (const auto& s : same) members.push_back(std::get<2>(s));
  return create_from(call, comm, members, newcomm);
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info, MPI_Comm* newcomm) {
  if (int rc = check_comm("MPI_Comm_split_type", comm)) return rc;
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return comm_error("MPI_Comm_split_type", comm, MPI_ERR_ARG,
                      "invalid split type " + std::to_string(split_type) +
                          " (use MPI_COMM_TYPE_SHARED or MPI_UNDEFINED)");
  }
  // The ranks that share this rank's node's memory: its node's number.
  const mpf::core::Runtime& rt = mpf::core::Runtime::instance();
  const int node = static_cast<int>(rt.routes()[rt.job().rank].node);
  return PMPI_Comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : node, key, newcomm);
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create";
  if (int rc = check_comm(call, comm)) return rc;
  const Group* g = find_group(group);
  if (g == nullptr) return comm_error(call, comm, MPI_ERR_GROUP, "invalid group " + std::to_string(group));
  if (newcomm == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newcomm argument is NULL");
  const Communicator& parent = comm_of(comm);
  const CollectiveScope scope(parent, mpf::progress::CollKind::comm_create, false);
  if (parent.inter) return create_inter_subset(call, comm, *g, newcomm);
  for (std::uint32_t w : *g) {
    if (parent.rank_of[w] < 0) {
      return comm_error(call, comm, MPI_ERR_GROUP,
                        "the group holds world rank " + std::to_string(w) + ", which is not in the communicator");
    }
  }
  return create_from(call, comm, *g, newcomm);
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_group";
  if (int rc = check_comm(call, comm)) return rc;
  const Group* g = find_group(group);
  if (g == nullptr) return comm_error(call, comm, MPI_ERR_GROUP, "invalid group " + std::to_string(group));
  if (newcomm == nullptr) return comm_error(call, comm, MPI_ERR_ARG, "newcomm argument is NULL");
  if (tag < 0) return comm_error(call, comm, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  if (comm_of(comm).inter) {
    return comm_error(call, comm, MPI_ERR_COMM,
                      "MPI_Comm_create_group takes an intracommunicator; this is an intercommunicator");
  }
  const std::uint32_t me = mpf::core::Runtime::instance().job().rank;
  if (std::find(g->begin(), g->end(), me) == g->end()) {
    return comm_error(call, comm, MPI_ERR_GROUP, "the calling rank is not in the group");
  }
  // Collective over the group only: agree on the context among its members
  // with a temporary communicator whose collectives are keyed by the tag.
  Communicator temp;
  temp.world = *g;
  temp.rank_of.assign(comm_of(MPI_COMM_WORLD).world.size(), -1);
  for (std::size_t i = 0; i < g->size(); ++i) {
    temp.rank_of[(*g)[i]] = static_cast<std::int32_t>(i);
    if ((*g)[i] == me) temp.rank = static_cast<int>(i);
  }
  // Its collective key lies above the communicators' ids and is derived
  // from what every member passes alike (the parent, the tag and the
  // group), so concurrent calls on other groups or tags never share it; a
  // count per key tells repeated calls apart.
  std::uint32_t hash = 2166136261u;  // FNV-1a
  auto mix = [&hash](std::uint32_t v) {
    for (int i = 0; i < 4; ++i, v >>= 8) hash = (hash ^ (v & 0xffu)) * 16777619u;
  };
  mix(comm_context(comm));
  mix(static_cast<std::uint32_t>(tag));
  for (std::uint32_t w : *g) mix(w);
  temp.context = mpf::core::kGroupKeyBit | (hash & ~mpf::core::kGroupKeyBit);
  static std::map<std::uint32_t, std::uint32_t> calls_per_key;
  temp.coll_seq = calls_per_key[temp.context];
  temp.epoch = temp.coll_seq;
  NewContext made;
  {
    // The group's members show the agreement as a collective of theirs.
    const CollectiveScope scope(temp, mpf::progress::CollKind::comm_create, false);
    made = agree_context(temp, call);
  }
  calls_per_key[temp.context] = temp.coll_seq;
  if (!made.agreed) return out_of_contexts(call, comm);
  *newcomm = add_communicator(*g, made.context, made.first_seq);
  comm_of(*newcomm).errhandler = comm_of(comm).errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm* comm) {
  const char* call = "MPI_Comm_free";
  require_initialized(call);
  if (comm == nullptr || !comm_is_valid(*comm)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm == nullptr ? MPI_COMM_NULL : *comm));
  }
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) {
    return comm_error(call, *comm, MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  }
  if (int rc = delete_attributes(*comm)) {
    return comm_error(call, *comm, rc, "an attribute delete callback failed with error " + std::to_string(rc));
  }
  comm_of(*comm).freed = true;
  release_freed_comm(*comm);
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int PMPI_Comm_disconnect(MPI_Comm* comm) { return PMPI_Comm_free(comm); }

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const char* call = "MPI_Comm_compare";
  if (int rc = check_comm(call, comm1)) return rc;
  if (int rc = check_comm(call, comm2)) return rc;
  const Communicator& a = comm_of(comm1);
  const Communicator& b = comm_of(comm2);
  if (result == nullptr) return comm_error(call, comm1, MPI_ERR_ARG, "result argument is NULL");
  // Intercommunicators compare both groups (MPI 3.1 §6.4.1).
  auto same_set = [](const std::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& y) {
    return std::set<std::uint32_t>(x.begin(), x.end()) == std::set<std::uint32_t>(y.begin(), y.end());
  };
  if (comm1 == comm2) {
    *result = MPI_IDENT;
  } else if (a.inter != b.inter) {
    *result = MPI_UNEQUAL;
  } else if (a.world == b.world && a.remote == b.remote) {
    *result = MPI_CONGRUENT;
  } else if (same_set(a.world, b.world) && same_set(a.remote, b.remote)) {
    *result = MPI_SIMILAR;
  } else {
    *result = MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  if (int rc = check_comm("MPI_Comm_set_name", comm)) return rc;
  if (name == nullptr) return comm_error("MPI_Comm_set_name", comm, MPI_ERR_ARG, "name is NULL");
  comm_of(comm).name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  if (int rc = check_comm("MPI_Comm_get_name", comm)) return rc;
  if (name == nullptr || resultlen == nullptr) {
    return comm_error("MPI_Comm_get_name", comm, MPI_ERR_ARG, "name or resultlen is NULL");
  }
  const std::string& text = comm_of(comm).name;
  std::memcpy(name, text.c_str(), text.size() + 1);
  *resultlen = static_cast<int>(text.size());
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Comm_rank = PMPI_Comm_rank
#pragma weak MPI_Comm_size = PMPI_Comm_size
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
#pragma weak MPI_Comm_dup = PMPI_Comm_dup
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
#pragma weak MPI_Comm_idup = PMPI_Comm_idup
#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
#pragma weak MPI_Comm_split = PMPI_Comm_split
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
#pragma weak MPI_Comm_create = PMPI_Comm_create
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
#pragma weak MPI_Comm_free = PMPI_Comm_free
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
#pragma weak MPI_Comm_compare = PMPI_Comm_compare
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name

}  // extern "C"
