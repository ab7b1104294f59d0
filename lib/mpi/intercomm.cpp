// Intercommunicators: MPI_Intercomm_create and _merge, the remote group's
// size and group, and the intercommunicator forms of MPI_Comm_dup, _split
// and _create (intercomm.hpp).
#include "mpi/intercomm.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <tuple>

#include "coll/algorithms.hpp"
#include "core/context_ids.hpp"
#include "core/internal_p2p.hpp"
#include "core/runtime.hpp"
#include "mpi/block_exchange.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

// The leaders' messages of MPI_Intercomm_create run in peer_comm's context
// with kLeaderContextBit set, with the program's tag. The agreement of the
// new context runs among both groups, which share no communicator yet: it
// is keyed by kCreateAgreementKey. A rank is in one such (blocking)
// agreement at a time, and messages between two ranks do not overtake each
// other, so the key may be the same for every call.
using core::kCreateAgreementKey;
using core::kLeaderContextBit;
using core::start_internal;
using core::NewContext;

int check_inter(const char* call, MPI_Comm comm) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (!comm_of(comm).inter) {
    return comm_error(call, comm, MPI_ERR_COMM,
                      "the communicator is an intracommunicator; this call takes an intercommunicator");
  }
  return MPI_SUCCESS;
}

// Every member's `bytes` at `mine`, in the members' agreed order
// (Communicator::members()): a block exchange among both groups.
std::vector<std::byte> gather_members(const char* call, MPI_Comm comm, const void* mine, int bytes) {
  Communicator& c = comm_of(comm);
  const std::vector<std::uint32_t> members = c.members();
  const std::size_t n = members.size();
  std::vector<std::byte> all(n * static_cast<std::size_t>(bytes));
  std::vector<int> ranks(n);
  for (std::size_t i = 0; i < n; ++i) ranks[i] = static_cast<int>(i);
  std::uint32_t seq = 0;
  exchange::Exchange x = exchange::begin(call, false, c, &seq);
  auto tag = [seq](std::size_t) { return exchange::tag_of(seq, 0); };
  exchange::add_transfers(x, false, exchange::equal_blocks(all.data(), n, bytes, MPI_BYTE, false), ranks, members, tag);
  exchange::add_transfers(x, true, exchange::equal_blocks(mine, n, bytes, MPI_BYTE, true), ranks, members, tag);
  exchange::run(call, comm, std::move(x), nullptr);
  return all;
}

// The local and the remote part of a members-ordered array of `T` (one per member).
template <class T>
std::pair<std::vector<T>, std::vector<T>> split_sides(const Communicator& c, const std::vector<std::byte>& all) {
  std::vector<T> values(all.size() / sizeof(T));
  std::memcpy(values.data(), all.data(), values.size() * sizeof(T));
  const auto first = static_cast<std::ptrdiff_t>(c.low_group ? c.world.size() : c.remote.size());
  std::vector<T> a(values.begin(), values.begin() + first), b(values.begin() + first, values.end());
  return c.low_group ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

int create_inter_from(const char* call, MPI_Comm parent, const std::vector<std::uint32_t>& local,
                      const std::vector<std::uint32_t>& remote, MPI_Comm* out) {
  Communicator& p = comm_of(parent);
  const NewContext made = agree_context(p, call);
  if (!made.agreed) return out_of_contexts(call, parent);
  const std::uint32_t me = core::Runtime::instance().job().rank;
  if (local.empty() || remote.empty() || std::find(local.begin(), local.end(), me) == local.end()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  *out = add_communicator(local, made.context, made.first_seq);
  Communicator& c = comm_of(*out);
  make_inter(c, remote, p.low_group);
  show_communicator(c);
  c.errhandler = p.errhandler;
  return MPI_SUCCESS;
}

int split_inter(const char* call, MPI_Comm comm, int color, int key, MPI_Comm* out) {
  const Communicator& c = comm_of(comm);
  using ColorKey = std::array<int, 2>;
  const ColorKey mine{color, key};
  const auto [local, remote] = split_sides<ColorKey>(c, gather_members(call, comm, &mine, sizeof mine));
  // The members of `color` on one side, ordered by key, then by rank.
  auto part = [color](const std::vector<ColorKey>& pairs, const std::vector<std::uint32_t>& group) {
    std::vector<std::tuple<int, std::size_t, std::uint32_t>> same;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (color != MPI_UNDEFINED && pairs[i][0] == color) same.emplace_back(pairs[i][1], i, group[i]);
    }
    std::sort(same.begin(), same.end());
    std::vector<std::uint32_t> members;
    for (const auto& s : same) members.push_back(std::get<2>(s));
    return members;
  };
  return create_inter_from(call, comm, part(local, c.world), part(remote, c.remote), out);
}

int create_inter_subset(const char* call, MPI_Comm comm, const Group& group, MPI_Comm* out) {
  const Communicator& c = comm_of(comm);
  for (std::uint32_t w : group) {
    if (c.rank_of[w] < 0) {
      return comm_error(call, comm, MPI_ERR_GROUP,
                        "the group holds world rank " + std::to_string(w) +
                            ", which is not in this side's group of the intercommunicator");
    }
  }
  // Each member tells the other side its rank in the group (or -1).
  const std::uint32_t me = core::Runtime::instance().job().rank;
  const auto at = std::find(group.begin(), group.end(), me);
  const int mine = at == group.end() ? -1 : static_cast<int>(at - group.begin());
  const auto sides = split_sides<int>(c, gather_members(call, comm, &mine, sizeof mine));
  std::vector<std::pair<int, std::uint32_t>> theirs;
  for (std::size_t i = 0; i < c.remote.size(); ++i) {
    if (sides.second[i] >= 0) theirs.emplace_back(sides.second[i], c.remote[i]);
  }
  std::sort(theirs.begin(), theirs.end());
  std::vector<std::uint32_t> remote;
  for (const auto& t : theirs) remote.push_back(t.second);
  return create_inter_from(call, comm, group, remote, out);
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  require_initialized(call);
  if (!comm_is_valid(local_comm)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, "local_comm: " + describe_bad_comm(local_comm));
  }
  Communicator& local = comm_of(local_comm);
  if (local.inter) {
    return comm_error(call, local_comm, MPI_ERR_COMM,
                      "local_comm is an intercommunicator; it must be an intracommunicator");
  }
  if (newintercomm == nullptr) return comm_error(call, local_comm, MPI_ERR_ARG, "newintercomm argument is NULL");
  if (local_leader < 0 || local_leader >= local.size()) {
    return comm_error(call, local_comm, MPI_ERR_RANK,
                      "invalid local_leader " + std::to_string(local_leader) + " in a communicator of size " +
                          std::to_string(local.size()));
  }
  if (tag < 0) return comm_error(call, local_comm, MPI_ERR_TAG, "invalid tag " + std::to_string(tag));
  const CollectiveScope scope(local, mpf::progress::CollKind::intercomm_create, false);
  // The leaders swap their groups over peer_comm, then each leader
  // broadcasts the other group in its own: [error class or 0, size, world ranks...].
  const std::uint32_t world_size = static_cast<std::uint32_t>(comm_of(MPI_COMM_WORLD).size());
  std::vector<std::uint32_t> message(world_size + 2);
  if (local.rank == local_leader) {
    std::string problem;
    if (!comm_is_valid(peer_comm)) {
      problem = "peer_comm: " + describe_bad_comm(peer_comm);
    } else if (remote_leader < 0 || remote_leader >= comm_of(peer_comm).peer_count()) {
      problem = "invalid remote_leader " + std::to_string(remote_leader) + " in peer_comm of size " +
                std::to_string(comm_of(peer_comm).peer_count());
    } else if (comm_of(peer_comm).peers()[static_cast<std::size_t>(remote_leader)] ==
               local.world[static_cast<std::size_t>(local.rank)]) {
      problem = "remote_leader is this process: the two groups must be disjoint";
    }
    if (problem.empty()) {
      std::vector<std::uint32_t> mine(world_size + 2);
      mine[1] = static_cast<std::uint32_t>(local.size());
      std::copy(local.world.begin(), local.world.end(), mine.begin() + 2);
      const Communicator& peer = comm_of(peer_comm);
      const auto other = static_cast<std::int32_t>(peer.peers()[static_cast<std::size_t>(remote_leader)]);
      const std::uint32_t context = peer.context | kLeaderContextBit;
      const std::uint64_t bytes = message.size() * sizeof(std::uint32_t);
      mpf::progress::Engine& engine = mpf::core::Runtime::instance().engine();
      mpf::progress::Request* in = start_internal(false, other, context, tag, message.data(), bytes);
      mpf::progress::Request* out = start_internal(true, other, context, tag, mine.data(), bytes);
      // The leaders' exchange: this one's wait ends with the other's answer.
      engine.wait_until([in, out] { return in->done() && out->done(); },
                        mpf::progress::BlockedCall::receive(mpf::progress::WaitApi::mpi, other, tag, context, call));
      engine.free_request(in);
      engine.free_request(out);
      for (std::uint32_t i = 0; i < message[1] && problem.empty(); ++i) {
        if (local.rank_of[message[2 + i]] >= 0) {
          problem = "the groups overlap: world rank " + std::to_string(message[2 + i]) + " is in both";
        }
      }
    }
    if (!problem.empty()) {
      message[0] = MPI_ERR_COMM;
      mpf::coll::bcast(local, message.data(), message.size() * sizeof(std::uint32_t), local_leader, call);
      return comm_error(call, local_comm, MPI_ERR_COMM, problem);
    }
  }
  mpf::coll::bcast(local, message.data(), message.size() * sizeof(std::uint32_t), local_leader, call);
  if (message[0] != 0) {
    return comm_error(call, local_comm, static_cast<int>(message[0]),
                      "the local leader (rank " + std::to_string(local_leader) + ") could not reach the remote group");
  }
  std::vector<std::uint32_t> remote(message.begin() + 2, message.begin() + 2 + message[1]);
  // Both sides order the groups alike: the one holding the lower world rank first.
  const bool low = *std::min_element(local.world.begin(), local.world.end()) <
                   *std::min_element(remote.begin(), remote.end());
  Communicator both;
  both.world = local.world;
  both.rank = local.rank;
  both.context = kCreateAgreementKey;
  make_inter(both, remote, low);
  NewContext made;
  {
    // Both groups show the agreement as a collective of theirs.
    const CollectiveScope both_scope(both, mpf::progress::CollKind::intercomm_create, false);
    made = agree_context(both, call);
  }
  if (!made.agreed) return out_of_contexts(call, local_comm);
  *newintercomm = add_communicator(local.world, made.context, made.first_seq);
  Communicator& c = comm_of(*newintercomm);
  make_inter(c, std::move(remote), low);
  show_communicator(c);
  c.errhandler = local.errhandler;
  return MPI_SUCCESS;
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  if (int rc = check_inter(call, intercomm)) return rc;
  if (newintracomm == nullptr) return comm_error(call, intercomm, MPI_ERR_ARG, "newintracomm argument is NULL");
  Communicator& c = comm_of(intercomm);
  const CollectiveScope scope(c, mpf::progress::CollKind::intercomm_create, false);
  const int mine = high != 0 ? 1 : 0;
  const auto [local, remote] = split_sides<int>(c, gather_members(call, intercomm, &mine, sizeof mine));
  // The group that passed high = false comes first; when both passed the
  // same, the agreed order decides.
  const bool local_first = local[0] != remote[0] ? local[0] == 0 : c.low_group;
  std::vector<std::uint32_t> members = local_first ? c.world : c.remote;
  const std::vector<std::uint32_t>& second = local_first ? c.remote : c.world;
  members.insert(members.end(), second.begin(), second.end());
  const NewContext made = agree_context(c, call);
  if (!made.agreed) return out_of_contexts(call, intercomm);
  *newintracomm = add_communicator(std::move(members), made.context, made.first_seq);
  comm_of(*newintracomm).errhandler = c.errhandler;
  return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  if (int rc = check_inter("MPI_Comm_remote_size", comm)) return rc;
  if (size == nullptr) return comm_error("MPI_Comm_remote_size", comm, MPI_ERR_ARG, "size argument is NULL");
  *size = comm_of(comm).peer_count();
  return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  if (int rc = check_inter("MPI_Comm_remote_group", comm)) return rc;
  if (group == nullptr) return comm_error("MPI_Comm_remote_group", comm, MPI_ERR_ARG, "group argument is NULL");
  *group = add_group(comm_of(comm).remote);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group

}  // extern "C"
