// Setup and slow paths of the shared-memory transport.
#include "shm/transport.hpp"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <numeric>
#include <stdexcept>

#include "common/system_error.hpp"

namespace mpf::shm {

void Transport::init(const Segment& segment, const wireup::RouteTable& routes, bool force_two_copy) {
  segment_ = &segment;
  const std::uint32_t local_size = segment.header().nranks;
  if (routes.node_ranks().size() != local_size) {
    throw SegmentError("the shared segment is for " + std::to_string(local_size) + " ranks but " +
                       std::to_string(routes.node_ranks().size()) + " of the job's ranks are on this node");
  }
  layout_ = TransportLayout(segment.region(TransportLayout::kName, TransportLayout::kVersion), local_size);
  me_ = routes.me();
  local_me_ = routes[me_].local;
  nranks_ = routes.size();
  control_ = &segment.rank(local_me_);
  inbox_ = layout_.inbox(local_me_);
  inbox_words_ = inbox_words(local_size);
  deferred_.assign(inbox_words_, 0);
  idle_polls_.assign(nranks_, 0);
  world_of_local_.assign(routes.node_ranks().begin(), routes.node_ranks().end());
  local_of_.assign(nranks_, kOffNode);
  control_of_.assign(nranks_, nullptr);
  peer_inbox_word_.assign(nranks_, nullptr);
  out_.assign(nranks_, {});
  in_.assign(nranks_, {});
  for (std::uint32_t local = 0; local < local_size; ++local) {
    const std::uint32_t peer = world_of_local_[local];
    local_of_[peer] = local;
    control_of_[peer] = &segment.rank(local);
    peer_inbox_word_[peer] = &layout_.inbox(local)[local_me_ / 64];
    // No ring is touched here: a pair's pages are allocated when it first talks.
    out_[peer] = PacketRing::Producer(layout_.ring(local_me_, local), layout_.ring_slots());
    in_[peer] = PacketRing::Consumer(layout_.ring(local, local_me_), layout_.ring_slots());
  }
  cells_ = layout_.eager_cells();
  // A quarter of the pool (at least one cell) streams rendezvous chunks.
  eager_cells_ = cells_ - std::max<std::uint32_t>(1, cells_ / 4);
  next_chunk_cell_ = eager_cells_;
  small_cells_ = layout_.eager_small_cells();
  next_small_cell_ = cells_;
  // Small cells are taken a few cells apart, so that the cell a sender
  // fills next is not in the page its receiver is reading: the CPUs'
  // prefetchers, following the reader through one cell into the next,
  // took the lines the sender then had to take back.
  small_step_ = 1;
  while (small_cells_ > 4 && (small_step_ < 4 || std::gcd(small_step_, small_cells_) != 1)) ++small_step_;
  cell_bytes_ = layout_.eager_cell_bytes();
  copy_path_.assign(nranks_, force_two_copy ? CopyPath::two_copy : CopyPath::cma);
  cma_proven_.assign(nranks_, 0);
  split_busy_.assign(nranks_, 0);
  static_assert(kSplitsPerPair <= 32, "split_busy_ holds one bit per split copy of a pair");
  wake_due_.assign(nranks_, 0);
  wakes_due_.clear();
  wakes_due_.reserve(nranks_);
}

void Transport::note_cma_refused(std::uint32_t peer, const char* call) {
  copy_path_[peer] = CopyPath::cma_refused;
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
bool Transport::cma_copy(std::uint32_t peer, bool write, std::byte* local, std::uint64_t remote, std::size_t bytes) {
  const pid_t pid = control_of_[peer]->pid;
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  const bool moves_data = bytes > 0;  // only a copy that moved bytes proves CMA works
  while (bytes > 0) {
    iovec l{local, bytes};
    iovec r{reinterpret_cast<void*>(remote), bytes};
    const ssize_t n = write ? ::process_vm_writev(pid, &l, 1, &r, 1, 0) : ::process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n < 0) {
      if (errno == EPERM || errno == ENOSYS) {
        note_cma_refused(peer, call);
        return false;
      }
      throw std::runtime_error(common::system_error_text(
          std::string(call) + (write ? " to rank " : " from rank ") + std::to_string(peer) + " (pid " +
              std::to_string(pid) + ")",
          errno));
    }
    local += n;
    remote += static_cast<std::uint64_t>(n);
    bytes -= static_cast<std::size_t>(n);
  }
  if (moves_data) cma_proven_[peer] = 1;
  return true;
}

std::int32_t Transport::try_take_split(std::uint32_t peer, std::uint32_t chunks, std::uint32_t copied,
                                      std::uint64_t copied_bytes) {
  for (std::uint32_t i = 0; i < kSplitsPerPair; ++i) {
    if ((split_busy_[peer] & (1u << i)) != 0) continue;
    split_busy_[peer] |= 1u << i;
    SplitCopy& s = layout_.split_copy(local_of_[peer], local_me_, i);
    // Relaxed: the cts that names this split copy is published after these
    // stores (a release), and the sender reads them only after it.
    s.claims.store(std::uint64_t{chunks} << 32 | copied, std::memory_order_relaxed);
    s.done.store(copied_bytes, std::memory_order_relaxed);
    return static_cast<std::int32_t>(i);
  }
  return -1;
}

}  // namespace mpf::shm
