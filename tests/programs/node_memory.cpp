// Node memory created after launch (shm::NodeMemory), end to end: rank 0
// creates a piece named by argv[1], every other rank opens it by the id rank
// 0 broadcasts, each writes its rank in its own word, and rank 0 checks them
// all. Then argv[2] says how the job ends:
//   finish   MPI_Finalize; prints "node memory ok"
//   crash    rank 0 dies of SIGSEGV while the others still map the memory
//   hang     every rank prints "mapped <pid>" and waits to be killed
#include <mpi.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>

#include "core/runtime.hpp"
#include "shm/node_memory.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: node_memory NAME finish|crash|hang\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const mpf::shm::Segment& segment = mpf::core::Runtime::instance().segment();
  mpf::shm::NodeMemory memory;
  std::uint64_t id = 0;
  const std::uint64_t bytes = 1 << 20;
  if (rank == 0) {
    memory = mpf::shm::NodeMemory::create(segment, 0, argv[1], bytes);
    id = memory.id();
  }
  MPI_Bcast(&id, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) memory = mpf::shm::NodeMemory::open(segment, id);
  if (memory.bytes() != bytes) {
    std::fprintf(stderr, "rank %d: node memory of %llu bytes\n", rank, static_cast<unsigned long long>(memory.bytes()));
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  auto* words = reinterpret_cast<std::int64_t*>(memory.data());
  words[rank * 512 + 1] = rank + 1000;  // a page apart: every rank touches its own page
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      if (words[r * 512 + 1] != r + 1000) {
        std::fprintf(stderr, "rank %d's word reads %lld\n", r, static_cast<long long>(words[r * 512 + 1]));
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
    }
    const auto listed = mpf::shm::NodeMemory::list(segment);
    if (listed.size() != 1 || listed[0].id != id || listed[0].name != argv[1] || listed[0].bytes != bytes) {
      std::fprintf(stderr, "the directory lists %zu pieces\n", listed.size());
      MPI_Abort(MPI_COMM_WORLD, 5);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (std::strcmp(argv[2], "hang") == 0) {
    std::printf("mapped %d\n", static_cast<int>(::getpid()));
    std::fflush(stdout);
    for (;;) ::pause();
  }
  if (std::strcmp(argv[2], "crash") == 0) {
    if (rank == 0) std::raise(SIGSEGV);
    for (;;) ::pause();  // stopped by mpfrun once rank 0 is gone
  }
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read what it needs before rank 0 withdraws it
  if (rank == 0) std::printf("node memory ok\n");
  memory = mpf::shm::NodeMemory();
  MPI_Finalize();
  return 0;
}
