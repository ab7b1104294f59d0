// The shared-memory transport's rma slow paths (see transport.hpp): Cross
// Memory Attach copies and their failures, split copies.
#include <sys/uio.h>

#include <cerrno>
#include <climits>
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
                 "through shared memory, and one-sided operations on its process memory go through its progress "
                 "engine; check /proc/sys/kernel/yama/ptrace_scope and the container's seccomp profile\n",
                 me_, call, peer);
  }
}

// One copy between this process and `peer`'s, in the direction `write`
// says.
common::Status Transport::cma_copy(std::uint32_t peer, bool write, std::byte* local, std::uint64_t remote,
                                   std::size_t bytes) {
  const iovec r{reinterpret_cast<void*>(remote), bytes};
  return copy_pieces(peer, write, local, &r, 1);
}

// The kernel takes at most IOV_MAX pieces a call, and may stop short of
// what it was given: each call continues where the last one stopped.
common::Status Transport::copy_pieces(std::uint32_t peer, bool write, std::byte* local, const iovec* remote,
                                      std::size_t count) {
  Endpoint& e = endpoints_[peer];
  const pid_t pid = e.control->pid;
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  constexpr std::size_t kBatch = IOV_MAX;
  iovec batch[kBatch];
  std::size_t next = 0;     // the first piece not yet wholly copied
  std::size_t skip = 0;     // bytes of it already copied
  bool moved = false;       // only a copy that moved bytes proves CMA works
  while (next < count) {
    std::size_t n = 0;
    std::size_t bytes = 0;
    for (std::size_t i = next; i < count && n < kBatch; ++i, ++n) {
      const std::size_t off = i == next ? skip : 0;
      batch[n] = {static_cast<std::byte*>(remote[i].iov_base) + off, remote[i].iov_len - off};
      bytes += batch[n].iov_len;
    }
    if (bytes == 0) break;
    iovec l{local, bytes};
    const ssize_t done = write ? ::process_vm_writev(pid, &l, 1, batch, n, 0) : ::process_vm_readv(pid, &l, 1, batch, n, 0);
    if (done < 0) [[unlikely]] {
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
    if (done == 0) [[unlikely]] {  // nothing moved and no error: the kernel would loop us forever
      std::fprintf(stderr, "rank %u: %s with rank %u copied nothing of %zu bytes\n", me_, call, peer, bytes);
      return common::Status::error;
    }
    moved = true;
    local += done;
    // Step over the pieces the call filled.
    auto left = static_cast<std::size_t>(done);
    while (next < count && left >= remote[next].iov_len - skip) {
      left -= remote[next].iov_len - skip;
      skip = 0;
      ++next;
    }
    skip += left;
  }
  if (moved) e.rma_proven = 1;
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
