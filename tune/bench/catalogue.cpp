#include "tune/bench/catalogue.hpp"

namespace mpf::tune::bench {

const std::vector<KernelInfo>& catalogue() {
  static const std::vector<KernelInfo> kernels = {
      {"pingpong", "ping-pong latency: half a blocking round trip (us)", Ranks::pair, 2, false},
      {"bw", "streaming bandwidth: windows of nonblocking sends, each acknowledged (MB/s)", Ranks::pair, 2, false},
      {"bibw", "bidirectional bandwidth: windows of nonblocking sends both ways at once (MB/s)", Ranks::pair, 2, false},
      {"msgrate", "message rate: windows of small nonblocking messages (millions per second)", Ranks::pair, 2, false},
      {"flood", "unexpected-message flood: a burst sent before its receives, time per message (us); with more ranks (as mpftune runs it) every other rank floods rank 0", Ranks::pair, 2,
       false},
      {"collectives", "Barrier, Bcast, Reduce, Allreduce, Alltoall, Allgather over sizes (us)", Ranks::scaling, 1,
       false},
      {"token_ring", "token ring: time per hop round all ranks (us)", Ranks::scaling, 2, false},
      {"rma_latency",
       "one-sided latency: 8-byte put, get, accumulate, fetch_and_op, compare_and_swap, each flushed, on "
       "MPI_Win_allocate and MPI_Win_create windows (us)",
       Ranks::pair, 2, false},
      {"rma_bw", "one-sided bandwidth: windows of puts or gets, then a flush, over sizes, on both window kinds (MB/s)",
       Ranks::pair, 2, false},
      {"rma_sync", "one-sided synchronization: MPI_Win_fence, post/start/complete/wait, lock/unlock (us)",
       Ranks::scaling, 2, false},
      {"rma_exchange",
       "seed 001's exchange: blocks to and from 8 neighbours by put or get with fence, PSCW or locks, or by "
       "MPI_Sendrecv, over sizes, on both window kinds (us)",
       Ranks::scaling, 2, false},
      {"patterns",
       "the MPF paper's patterns in MPI: a task queue (MPI_Send of requests to rank 0, MPI_Recv of tasks), "
       "MPI_Bcast, sends to random ranks; bytes delivered (MB/s)",
       Ranks::scaling, 2, false},
      {"conversations",
       "MPF conversations: one memcpy, the paper's base loop, and the patterns as FCFS, BROADCAST and random "
       "conversations; bytes delivered (MB/s)",
       Ranks::scaling, 1, false, Api::mpf},
      {"gauss_jordan",
       "the MPF paper's Gauss-Jordan elimination with partial pivoting (share/examples/mpf_gauss_jordan.c), "
       "n=256 (128 with --quick): time of the parallel solve and of the sequential one on rank 0 (ms)",
       Ranks::scaling, 1, false, Api::mpf},
      {"sor",
       "the MPF paper's SOR: red-black over-relaxation of Poisson's equation on a 128x128 grid (64x64 with "
       "--quick) in strips (share/examples/mpf_sor.c): time of the parallel solve and of the sequential one on "
       "rank 0 (ms)",
       Ranks::scaling, 1, false, Api::mpf},
      {"startup", "job start-up: launch, MPI_Init, MPI_Finalize and exit of the whole job (ms)", Ranks::scaling, 1,
       true},
      {"shmem_latency",
       "OpenSHMEM latency: 8-byte put (half a round trip of shmem_long_p, quiet and wait_until), get over sizes, "
       "fetch_add from PE 0 to PE 1 (2 PEs), and fetch_add of every PE on one word of PE 0 (us)",
       Ranks::scaling, 2, false, Api::shmem},
      {"shmem_bw", "OpenSHMEM bandwidth: windows of put_nbi (get_nbi) to PE 1, each ended by shmem_quiet (MB/s)",
       Ranks::pair, 2, false, Api::shmem},
      {"shmem_collectives",
       "OpenSHMEM collectives: shmem_barrier_all, broadcast, sum reduction of longs over sizes (us)", Ranks::scaling,
       1, false, Api::shmem},
      {"shmem_startup", "OpenSHMEM job start-up: launch, shmem_init, shmem_finalize and exit of the whole job (ms)",
       Ranks::scaling, 1, true, Api::shmem},
  };
  return kernels;
}

std::string_view api_name(Api api) {
  switch (api) {
    case Api::mpi:
      return "MPI (mpi.h)";
    case Api::mpf:
      return "MPF conversations (mpf.h)";
    case Api::shmem:
      return "OpenSHMEM (shmem.h)";
  }
  return "?";
}

Api compared_with(Api api) { return api == Api::mpf ? Api::mpi : api; }

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& k : catalogue()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::vector<int> process_counts(const KernelInfo& kernel, const std::vector<int>& np) {
  if (kernel.ranks == Ranks::pair) return {2};
  std::vector<int> counts;
  for (const int n : np) {
    if (n >= kernel.min_ranks) counts.push_back(n);
  }
  return counts;
}

}  // namespace mpf::tune::bench
