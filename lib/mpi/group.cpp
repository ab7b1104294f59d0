// The group chapter: constructors, set operations, comparison and rank
// translation over ordered lists of world ranks.
#include "mpi/group.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

// Index = handle; 0 is MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY. Freed groups
// leave a null entry.
std::vector<std::unique_ptr<Group>>& table() {
  static std::vector<std::unique_ptr<Group>> groups = [] {
    std::vector<std::unique_ptr<Group>> t;
    t.emplace_back();
    t.push_back(std::make_unique<Group>());
    return t;
  }();
  return groups;
}

int group_error(const char* call, int error_class, const std::string& detail) {
  return comm_error(call, MPI_COMM_WORLD, error_class, detail);
}

int bad_group(const char* call, MPI_Group group) {
  return group_error(call, MPI_ERR_GROUP,
                     group == MPI_GROUP_NULL ? std::string("group is MPI_GROUP_NULL")
                                             : "invalid group " + std::to_string(group));
}

int rank_in(const Group& g, std::uint32_t world) {
  const auto it = std::find(g.begin(), g.end(), world);
  return it == g.end() ? MPI_UNDEFINED : static_cast<int>(it - g.begin());
}

bool contains(const Group& g, std::uint32_t world) { return rank_in(g, world) != MPI_UNDEFINED; }

// Checks a list of `n` distinct ranks of `g`.
int check_ranks(const char* call, const Group& g, int n, const int ranks[], const char* what) {
  if (n < 0 || (n > 0 && ranks == nullptr)) {
    return group_error(call, MPI_ERR_ARG, std::string("invalid ") + what + " list (n = " + std::to_string(n) + ")");
  }
  std::set<int> seen;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= static_cast<int>(g.size())) {
      return group_error(call, MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is not in a group of size " +
                                                 std::to_string(g.size()));
    }
    if (!seen.insert(ranks[i]).second) {
      return group_error(call, MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is listed twice");
    }
  }
  return MPI_SUCCESS;
}

// The ranks a list of (first, last, stride) triplets names, in order.
int expand_ranges(const char* call, const Group& g, int n, int ranges[][3], std::vector<int>& out) {
  if (n < 0 || (n > 0 && ranges == nullptr)) return group_error(call, MPI_ERR_ARG, "invalid range list");
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return group_error(call, MPI_ERR_ARG, "range " + std::to_string(i) + " has stride 0");
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) {
      return group_error(call, MPI_ERR_ARG, "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                                                std::to_string(last) + ", " + std::to_string(stride) +
                                                ") runs away from its end");
    }
    for (long r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(static_cast<int>(r));
  }
  return check_ranks(call, g, static_cast<int>(out.size()), out.data(), "range");
}

}  // namespace

const Group* find_group(MPI_Group group) {
  auto& t = table();
  return group > 0 && static_cast<std::size_t>(group) < t.size() ? t[static_cast<std::size_t>(group)].get() : nullptr;
}

MPI_Group add_group(Group members) {
  if (members.empty()) return MPI_GROUP_EMPTY;
  table().push_back(std::make_unique<Group>(std::move(members)));
  return static_cast<MPI_Group>(table().size() - 1);
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  require_initialized("MPI_Comm_group");
  if (!comm_is_valid(comm)) return comm_error("MPI_Comm_group", MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (group == nullptr) return comm_error("MPI_Comm_group", comm, MPI_ERR_ARG, "group argument is NULL");
  *group = add_group(comm_of(comm).world);
  return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int* size) {
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_size", group);
  *size = static_cast<int>(g->size());
  return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int* rank) {
  require_initialized("MPI_Group_rank");
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_rank", group);
  *rank = rank_in(*g, comm_of(MPI_COMM_WORLD).world[static_cast<std::size_t>(comm_rank(MPI_COMM_WORLD))]);
  return MPI_SUCCESS;
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  const char* call = "MPI_Group_translate_ranks";
  const Group* a = find_group(group1);
  const Group* b = find_group(group2);
  if (a == nullptr) return bad_group(call, group1);
  if (b == nullptr) return bad_group(call, group2);
  if (n < 0 || (n > 0 && (ranks1 == nullptr || ranks2 == nullptr))) {
    return group_error(call, MPI_ERR_ARG, "invalid rank arrays (n = " + std::to_string(n) + ")");
  }
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= static_cast<int>(a->size())) {
      return group_error(call, MPI_ERR_RANK, "rank " + std::to_string(ranks1[i]) + " is not in a group of size " +
                                                 std::to_string(a->size()));
    }
    ranks2[i] = rank_in(*b, (*a)[static_cast<std::size_t>(ranks1[i])]);
  }
  return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const Group* a = find_group(group1);
  const Group* b = find_group(group2);
  if (a == nullptr) return bad_group("MPI_Group_compare", group1);
  if (b == nullptr) return bad_group("MPI_Group_compare", group2);
  if (*a == *b) {
    *result = MPI_IDENT;
  } else if (std::set<std::uint32_t>(a->begin(), a->end()) == std::set<std::uint32_t>(b->begin(), b->end())) {
    *result = MPI_SIMILAR;
  } else {
    *result = MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const Group* a = find_group(group1);
  const Group* b = find_group(group2);
  if (a == nullptr) return bad_group("MPI_Group_union", group1);
  if (b == nullptr) return bad_group("MPI_Group_union", group2);
  Group out = *a;
  for (std::uint32_t w : *b) {
    if (!contains(*a, w)) out.push_back(w);
  }
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const Group* a = find_group(group1);
  const Group* b = find_group(group2);
  if (a == nullptr) return bad_group("MPI_Group_intersection", group1);
  if (b == nullptr) return bad_group("MPI_Group_intersection", group2);
  Group out;
  for (std::uint32_t w : *a) {
    if (contains(*b, w)) out.push_back(w);
  }
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  const Group* a = find_group(group1);
  const Group* b = find_group(group2);
  if (a == nullptr) return bad_group("MPI_Group_difference", group1);
  if (b == nullptr) return bad_group("MPI_Group_difference", group2);
  Group out;
  for (std::uint32_t w : *a) {
    if (!contains(*b, w)) out.push_back(w);
  }
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_incl", group);
  if (int rc = check_ranks("MPI_Group_incl", *g, n, ranks, "rank")) return rc;
  Group out;
  for (int i = 0; i < n; ++i) out.push_back((*g)[static_cast<std::size_t>(ranks[i])]);
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_excl", group);
  if (int rc = check_ranks("MPI_Group_excl", *g, n, ranks, "rank")) return rc;
  const std::set<int> excluded(ranks, ranks + n);
  Group out;
  for (std::size_t i = 0; i < g->size(); ++i) {
    if (!excluded.contains(static_cast<int>(i))) out.push_back((*g)[i]);
  }
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_range_incl", group);
  std::vector<int> ranks;
  if (int rc = expand_ranges("MPI_Group_range_incl", *g, n, ranges, ranks)) return rc;
  return PMPI_Group_incl(group, static_cast<int>(ranks.size()), ranks.data(), newgroup);
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const Group* g = find_group(group);
  if (g == nullptr) return bad_group("MPI_Group_range_excl", group);
  std::vector<int> ranks;
  if (int rc = expand_ranges("MPI_Group_range_excl", *g, n, ranges, ranks)) return rc;
  return PMPI_Group_excl(group, static_cast<int>(ranks.size()), ranks.data(), newgroup);
}

int PMPI_Group_free(MPI_Group* group) {
  if (group == nullptr || find_group(*group) == nullptr) {
    return bad_group("MPI_Group_free", group == nullptr ? MPI_GROUP_NULL : *group);
  }
  if (*group != MPI_GROUP_EMPTY) table()[static_cast<std::size_t>(*group)].reset();
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Comm_group = PMPI_Comm_group
#pragma weak MPI_Group_size = PMPI_Group_size
#pragma weak MPI_Group_rank = PMPI_Group_rank
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
#pragma weak MPI_Group_compare = PMPI_Group_compare
#pragma weak MPI_Group_union = PMPI_Group_union
#pragma weak MPI_Group_intersection = PMPI_Group_intersection
#pragma weak MPI_Group_difference = PMPI_Group_difference
#pragma weak MPI_Group_incl = PMPI_Group_incl
#pragma weak MPI_Group_excl = PMPI_Group_excl
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
#pragma weak MPI_Group_free = PMPI_Group_free

}  // extern "C"
