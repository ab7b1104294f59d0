// The shared-memory transport's rma slow paths (see transport.hpp): Cross
// Memory Attach copies and their failures, split copies.
#include <sys/uio.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "common/system_error.hpp"
#include "shm/transport.hpp"

namespace mpf::shm {

void Transport::note_cma_refused(std::uint32_t peer, const char* call) {
  endpoints_[peer].rma_path = transport::RmaPath::refused;
  control_->cma_refused_errno.store(errno, std::memory_order_relaxed);
  if (!cma_refusal_reported_) {
    cma_refusal_reported_ = true;
    std::fprintf(stderr,
                 "rank %u: %s refused by the kernel (EPERM): large messages to and from rank %u use two copies "
                 "through shared memory; check /proc/sys/kernel/yama/ptrace_scope\n",
                 me_, call, peer);
  }
}

// One copy between this process and `peer`'s, in the direction `write`
// says. Partial transfers continue where they stopped.
common::Status Transport::cma_copy(std::uint32_t peer, bool write, std::byte* local, std::uint64_t remote,
                                   std::size_t bytes) {
  Endpoint& e = endpoints_[peer];
  const pid_t pid = e.control->pid;
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  const bool moves_data = bytes > 0;  // only a copy that moved bytes proves CMA works
  while (bytes > 0) {
    iovec l{local, bytes};
    iovec r{reinterpret_cast<void*>(remote), bytes};
    const ssize_t n = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0) : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n < 0) [[unlikely]] {
      if (errno == EPERM || errno == ENOSYS) {
        note_cma_refused(peer, call);
        return common::Status::retry;
      }
      const std::string what =
          common::system_error_text(std::string(call) + (write ? " to rank " : " from rank ") + std::to_string(peer) +
                                        " (pid " + std::to_string(pid) + ")",
                                    errno);
      std::fprintf(stderr, "rank %u: %s\n", me_, what.c_str());
      return common::Status::error;
    }
    local += n;
    remote += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::size_t>(n);
  }
  if (moves_data) e.rma_proven = 1;
  return common::Status::done;
}

std::int32_t Transport::try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                                       std::uint64_t copied_bytes) {
  Endpoint& e = endpoints_[peer];
  for (std::uint32_t i = 0; i < kSplitsPerPair; ++i) {
    if ((e.split_busy & (1u << i)) != 0) continue;
    e.split_busy |= 1u << i;
    SplitCopy& s = layout_.split_copy(e.local, local_me_, i);
    // Relaxed: the cts that names this split copy is published after these
    // stores (a release), and the sender reads them only after it.
    s.claims.store(std::uint64_t{chunks} << 32 | copied, std::memory_order_relaxed);
    s.done.store(copied_bytes, std::memory_order_relaxed);
    return static_cast<std::int32_t>(i);
  }
  return -1;
}

}  // namespace mpf::shm
