// Every rank publishes a value through PMIx, fences, and reads every other
// rank's value back, checking each byte: the launcher's PMIx server serves
// Put/Commit/Fence/Get for the whole job. Prints "wireup ok: R of N, L local"
// on success; exits 1 naming the first wrong value otherwise.
#include <cstdio>
#include <string>

#include "core/runtime.hpp"

int main() {
  auto& rt = mpf::core::Runtime::instance();
  try {
    rt.init();
    const auto& job = rt.job();
    auto card = [](std::uint32_t rank) { return "endpoint-of-rank-" + std::to_string(rank) + "-" + std::string(rank % 7, 'x'); };
    const std::string mine = card(job.rank);
    rt.wireup().put("mpf.test.card", std::as_bytes(std::span(mine.data(), mine.size())));
    rt.wireup().commit();
    rt.wireup().fence(true);
    for (std::uint32_t peer = 0; peer < job.size; ++peer) {
      const auto bytes = rt.wireup().get(peer, "mpf.test.card");
      const std::string got(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      if (got != card(peer)) {
        std::fprintf(stderr, "rank %u: rank %u's card is '%s', expected '%s'\n", job.rank, peer, got.c_str(),
                     card(peer).c_str());
        return 1;
      }
    }
    if (job.local_size != job.size || job.local_peers.size() != job.size || job.local_rank != job.rank) {
      std::fprintf(stderr, "rank %u: local info wrong: local_size %u, %zu peers, local rank %u\n", job.rank,
                   job.local_size, job.local_peers.size(), job.local_rank);
      return 1;
    }
    std::printf("wireup ok: %u of %u, %u local, oversubscribed %d\n", job.rank, job.size, job.local_size,
                rt.oversubscribed() ? 1 : 0);
    rt.finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wireup_exchange: %s\n", e.what());
    return 1;
  }
  return 0;
}
