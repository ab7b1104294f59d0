// Barriers and the team collectives: broadcast, collect, fcollect,
// alltoall, alltoalls and the reductions of every type of the standard's
// tables, on lib/coll's algorithms over the team's group.
#include "shmem/collectives.hpp"

#include <shmem.h>

#include <atomic>
#include <climits>
#include <string>

namespace mpf::shmem {
namespace {

using progress::CollKind;

bool overlaps(const void* a, const void* b, std::uint64_t bytes) {
  const auto* x = static_cast<const std::byte*>(a);
  const auto* y = static_cast<const std::byte*>(b);
  return bytes > 0 && x < y + bytes && y < x + bytes;
}

// `source`, or a copy of it where it overlaps `dest` (the algorithms read
// their input while they write their output).
const void* distinct_source(const void* dest, const void* source, std::uint64_t bytes, std::vector<std::byte>& copy) {
  if (!overlaps(dest, source, bytes)) return source;
  copy.assign(static_cast<const std::byte*>(source), static_cast<const std::byte*>(source) + bytes);
  return copy.data();
}

}  // namespace

void broadcast_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes,
                     int root, bool root_too) {
  if (root < 0 || root >= team.group.size()) {
    fail(call, "PE_root " + std::to_string(root) + " is not a PE of " + team.label + " (PEs 0 to " +
                   std::to_string(team.group.size() - 1) + ")");
  }
  const coll::CollectiveScope scope(team.group, CollKind::bcast, false);
  void* buffer = dest;
  if (team.group.rank == root) {
    if (root_too) {
      if (dest != source) std::memmove(dest, source, bytes);
    } else {
      buffer = const_cast<void*>(source);  // the root's buffer is only read
    }
  }
  coll::bcast(team.group, buffer, bytes, root, call);
}

void collect_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes) {
  const coll::CollectiveScope scope(team.group, CollKind::allgatherv, false);
  const auto n = static_cast<std::size_t>(team.group.size());
  std::vector<std::uint64_t> sizes(n);
  const std::vector<std::uint64_t> eight(n, sizeof(std::uint64_t));
  coll::allgather_in_order(team.group, &bytes, sizes.data(), eight, call);
  std::uint64_t total = 0;
  for (std::uint64_t b : sizes) total += b;
  std::vector<std::byte> copy;
  coll::allgather_in_order(team.group, distinct_source(dest, source, total, copy), dest, sizes, call);
}

void fcollect_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes) {
  const coll::CollectiveScope scope(team.group, CollKind::allgather, false);
  const std::vector<std::uint64_t> sizes(static_cast<std::size_t>(team.group.size()), bytes);
  std::vector<std::byte> copy;
  coll::allgather_in_order(team.group, distinct_source(dest, source, bytes * sizes.size(), copy), dest, sizes, call);
}

void alltoall_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t bytes) {
  const coll::CollectiveScope scope(team.group, CollKind::alltoall, false);
  std::vector<std::byte> copy;
  const std::uint64_t total = bytes * static_cast<std::uint64_t>(team.group.size());
  coll::alltoall(team.group, distinct_source(dest, source, total, copy), dest, bytes, call);
}

void alltoalls_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::ptrdiff_t dst,
                     std::ptrdiff_t sst, std::uint64_t nelems, std::uint64_t element) {
  if (dst < 1 || sst < 1) {
    fail(call, "the strides dst " + std::to_string(dst) + " and sst " + std::to_string(sst) + " must be at least 1");
  }
  const auto n = static_cast<std::uint64_t>(team.group.size());
  // Packed: block j holds the nelems elements for PE j.
  std::vector<std::byte> out(n * nelems * element);
  std::vector<std::byte> in(n * nelems * element);
  const auto* from = static_cast<const std::byte*>(source);
  for (std::uint64_t i = 0; i < n * nelems; ++i) {
    std::memcpy(out.data() + i * element, from + i * static_cast<std::uint64_t>(sst) * element, element);
  }
  {
    const coll::CollectiveScope scope(team.group, CollKind::alltoall, false);
    coll::alltoall(team.group, out.data(), in.data(), nelems * element, call);
  }
  auto* to = static_cast<std::byte*>(dest);
  for (std::uint64_t i = 0; i < n * nelems; ++i) {
    std::memcpy(to + i * static_cast<std::uint64_t>(dst) * element, in.data() + i * element, element);
  }
}

void reduce_bytes(const char* call, mpf_shmem_team& team, void* dest, const void* source, std::uint64_t nreduce,
                  coll::Combine combine) {
  const std::uint64_t element = combine.element_bytes();
  std::vector<std::byte> copy;
  const auto* in = static_cast<const std::byte*>(distinct_source(dest, source, nreduce * element, copy));
  auto* out = static_cast<std::byte*>(dest);
  const coll::CollectiveScope scope(team.group, CollKind::allreduce, false);
  // The algorithms count elements in an int.
  constexpr std::uint64_t kPiece = INT_MAX;
  for (std::uint64_t done = 0; done < nreduce; done += kPiece) {
    const auto count = static_cast<int>(std::min(kPiece, nreduce - done));
    coll::reduce(team.group, in + done * element, out + done * element, count, combine, -1, call);
  }
}

}  // namespace mpf::shmem

using namespace mpf::shmem;
using mpf::coll::Op;

extern "C" {

void pshmem_barrier_all(void) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the barrier quiets this PE's operations
  team_barrier("shmem_barrier_all", team_of("shmem_barrier_all", SHMEM_TEAM_WORLD));
}
MPF_SHMEM_WEAK(barrier_all)

void pshmem_sync_all(void) { team_barrier("shmem_sync_all", team_of("shmem_sync_all", SHMEM_TEAM_WORLD)); }
MPF_SHMEM_WEAK(sync_all)

#define MPF_DEFINE_TEAM_COLLECTIVES(NAME, TYPE)                                                                  \
  int pshmem_##NAME##_broadcast(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems, int PE_root) { \
    const char* call = "shmem_" #NAME "_broadcast";                                                              \
    broadcast_bytes(call, team_of(call, team), dest, source, nelems * sizeof(TYPE), PE_root, true);              \
    return 0;                                                                                                    \
  }                                                                                                              \
  MPF_SHMEM_WEAK(NAME##_broadcast)                                                                               \
  int pshmem_##NAME##_collect(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {                \
    const char* call = "shmem_" #NAME "_collect";                                                                \
    collect_bytes(call, team_of(call, team), dest, source, nelems * sizeof(TYPE));                               \
    return 0;                                                                                                    \
  }                                                                                                              \
  MPF_SHMEM_WEAK(NAME##_collect)                                                                                 \
  int pshmem_##NAME##_fcollect(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {               \
    const char* call = "shmem_" #NAME "_fcollect";                                                               \
    fcollect_bytes(call, team_of(call, team), dest, source, nelems * sizeof(TYPE));                              \
    return 0;                                                                                                    \
  }                                                                                                              \
  MPF_SHMEM_WEAK(NAME##_fcollect)                                                                                \
  int pshmem_##NAME##_alltoall(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nelems) {               \
    const char* call = "shmem_" #NAME "_alltoall";                                                               \
    alltoall_bytes(call, team_of(call, team), dest, source, nelems * sizeof(TYPE));                              \
    return 0;                                                                                                    \
  }                                                                                                              \
  MPF_SHMEM_WEAK(NAME##_alltoall)                                                                                \
  int pshmem_##NAME##_alltoalls(shmem_team_t team, TYPE* dest, const TYPE* source, ptrdiff_t dst, ptrdiff_t sst, \
                                size_t nelems) {                                                                 \
    const char* call = "shmem_" #NAME "_alltoalls";                                                              \
    alltoalls_bytes(call, team_of(call, team), dest, source, dst, sst, nelems, sizeof(TYPE));                    \
    return 0;                                                                                                    \
  }                                                                                                              \
  MPF_SHMEM_WEAK(NAME##_alltoalls)
MPF_SHMEM_RMA_TYPES(MPF_DEFINE_TEAM_COLLECTIVES)

int pshmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root) {
  broadcast_bytes("shmem_broadcastmem", team_of("shmem_broadcastmem", team), dest, source, nelems, PE_root, true);
  return 0;
}
MPF_SHMEM_WEAK(broadcastmem)

int pshmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  collect_bytes("shmem_collectmem", team_of("shmem_collectmem", team), dest, source, nelems);
  return 0;
}
MPF_SHMEM_WEAK(collectmem)

int pshmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  fcollect_bytes("shmem_fcollectmem", team_of("shmem_fcollectmem", team), dest, source, nelems);
  return 0;
}
MPF_SHMEM_WEAK(fcollectmem)

int pshmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems) {
  alltoall_bytes("shmem_alltoallmem", team_of("shmem_alltoallmem", team), dest, source, nelems);
  return 0;
}
MPF_SHMEM_WEAK(alltoallmem)

int pshmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,
                        size_t nelems) {
  alltoalls_bytes("shmem_alltoallsmem", team_of("shmem_alltoallsmem", team), dest, source, dst, sst, nelems, 1);
  return 0;
}
MPF_SHMEM_WEAK(alltoallsmem)

#define MPF_DEFINE_REDUCE(NAME, TYPE, OP, COLL_OP)                                                       \
  int pshmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE* dest, const TYPE* source, size_t nreduce) { \
    const char* call = "shmem_" #NAME "_" #OP "_reduce";                                                 \
    return reduce(call, team_of(call, team), dest, source, nreduce, COLL_OP);                            \
  }                                                                                                      \
  MPF_SHMEM_WEAK(NAME##_##OP##_reduce)
#define MPF_DEFINE_REDUCE_BITWISE(NAME, TYPE)  \
  MPF_DEFINE_REDUCE(NAME, TYPE, and, Op::band) \
  MPF_DEFINE_REDUCE(NAME, TYPE, or, Op::bor)   \
  MPF_DEFINE_REDUCE(NAME, TYPE, xor, Op::bxor)
#define MPF_DEFINE_REDUCE_MINMAX(NAME, TYPE)  \
  MPF_DEFINE_REDUCE(NAME, TYPE, min, Op::min) \
  MPF_DEFINE_REDUCE(NAME, TYPE, max, Op::max)
#define MPF_DEFINE_REDUCE_ARITH(NAME, TYPE)   \
  MPF_DEFINE_REDUCE(NAME, TYPE, sum, Op::sum) \
  MPF_DEFINE_REDUCE(NAME, TYPE, prod, Op::prod)
MPF_SHMEM_BITWISE_REDUCE_TYPES(MPF_DEFINE_REDUCE_BITWISE)
MPF_SHMEM_MINMAX_REDUCE_TYPES(MPF_DEFINE_REDUCE_MINMAX)
MPF_SHMEM_ARITH_REDUCE_TYPES(MPF_DEFINE_REDUCE_ARITH)

}  // extern "C"
