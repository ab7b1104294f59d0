// Introspection end to end: rank 1 blocks in MPI_Recv(source 0, tag 7) with
// an unexpected message from rank 0 (tag 3) sitting in its queue; rank 0
// reads rank 1's snapshot from the shared segment, as mpfinspect will, until
// it shows exactly that, then releases rank 1. Prints "introspection ok".
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/runtime.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int payload = 0;
  if (rank == 1) {
    MPI_Recv(&payload, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&payload, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 0) {
    MPI_Send(&payload, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);  // will sit unexpected
    auto& rt = mpf::core::Runtime::instance();
    mpf::shm::Introspection& peer = rt.segment().introspection(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    mpf::shm::RankSnapshot s{};
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      if (peer.snapshot.try_read(s)) {
        seen = s.wait.kind == mpf::shm::WaitKind::receive && s.wait.api == mpf::shm::WaitApi::mpi &&
               std::strcmp(s.wait.function, "MPI_Recv") == 0 && s.wait.peer == 0 && s.wait.tag == 7 &&
               s.posted_total == 1 && s.posted_listed == 1 && s.posted[0].tag == 7 && s.unexpected_total == 1 &&
               s.unexpected[0].tag == 3 && s.unexpected[0].source == 0 && s.unexpected[0].bytes == sizeof(int);
      }
      // Reading another rank's snapshot is polling by nature; a short sleep
      // keeps this reader from taking the CPU the observed rank needs.
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!seen) {
      std::printf(
          "rank 1 never showed MPI_Recv(0, 7) with one posted and one unexpected: function '%s' peer %d tag %d "
          "posted %u unexpected %u\n",
          s.wait.function, s.wait.peer, s.wait.tag, s.posted_total, s.unexpected_total);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Send(&payload, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    std::printf("introspection ok\n");
  }
  MPI_Finalize();
  return 0;
}
