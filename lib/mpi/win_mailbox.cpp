#include "mpi/win_mailbox.hpp"

#include <cstring>

#include "core/runtime.hpp"
#include "progress/engine_wait_inline.hpp"
#include "rma/element_ops.hpp"

namespace mpf::mpi {
namespace {

// How long an origin waits for the target to take an operation before it
// takes it back: a few round trips of a cache line, far less than the
// CMA copy it then pays (about 2 us here).
constexpr int kSpinsBeforeWithdrawing = 512;

}  // namespace

bool hand_over(Window& w, int target, const MailRequest& r) {
  core::Runtime& rt = core::Runtime::instance();
  if (r.bytes > rma::kMailBytes || r.answer_bytes > rma::kMailBytes || rt.oversubscribed()) return false;
  const shm::RankControl& peer = rt.segment().rank(rt.routes()[w.targets[static_cast<std::size_t>(target)].world].local);
  if (peer.polling.load(std::memory_order_relaxed) == 0 || peer.sleeping.load(std::memory_order_relaxed) != 0) return false;
  rma::Mailbox& box = w.layout.mailbox(static_cast<std::uint32_t>(target), static_cast<std::uint32_t>(w.rank));
  box.kind = r.kind;
  box.bytes = r.kind == rma::MailKind::get ? r.answer_bytes : r.bytes;
  box.offset = r.offset;
  box.op = static_cast<std::uint8_t>(r.op);
  box.element = static_cast<std::uint8_t>(r.element);
  box.fetch = r.answer != nullptr ? 1 : 0;
  if (r.bytes > 0) std::memcpy(box.data, r.data, r.bytes);
  box.state.store(rma::kMailPosted, std::memory_order_release);
  w.member(target).mail_posted.fetch_add(1, std::memory_order_release);
  std::uint32_t state = rma::kMailPosted;
  for (int spin = 0; spin < kSpinsBeforeWithdrawing; ++spin) {
    state = box.state.load(std::memory_order_acquire);
    if (state == rma::kMailDone) break;
    progress::cpu_relax();
  }
  if (state != rma::kMailDone) {
    std::uint32_t expected = rma::kMailPosted;
    if (box.state.compare_exchange_strong(expected, rma::kMailWithdrawn, std::memory_order_acq_rel)) {
      box.state.store(rma::kMailEmpty, std::memory_order_relaxed);
      return false;
    }
    // Taken: the target is applying it now.
    while (box.state.load(std::memory_order_acquire) != rma::kMailDone) progress::cpu_relax();
  }
  if (r.answer != nullptr) std::memcpy(r.answer, box.data, r.answer_bytes);
  box.state.store(rma::kMailEmpty, std::memory_order_relaxed);
  return true;
}

void serve_mailboxes(Window& w) {
  const auto me = static_cast<std::uint32_t>(w.rank);
  const std::uint64_t posted = w.member(w.rank).mail_posted.load(std::memory_order_acquire);
  if (posted == w.mail_seen) return;
  w.mail_seen = posted;
  for (std::uint32_t o = 0; o < static_cast<std::uint32_t>(w.size); ++o) {
    rma::Mailbox& box = w.layout.mailbox(me, o);
    std::uint32_t expected = rma::kMailPosted;
    if (box.state.load(std::memory_order_relaxed) != rma::kMailPosted ||
        !box.state.compare_exchange_strong(expected, rma::kMailTaken, std::memory_order_acq_rel)) {
      continue;
    }
    std::byte* at = w.flavor == rma::Flavor::dynamic ? reinterpret_cast<std::byte*>(box.offset)
                                                     : static_cast<std::byte*>(w.base) + box.offset;
    std::atomic<std::uint32_t>& lock = w.member(w.rank).accumulate_lock;
    switch (box.kind) {
      case rma::MailKind::put: std::memcpy(at, box.data, box.bytes); break;
      case rma::MailKind::get: std::memcpy(box.data, at, box.bytes); break;
      case rma::MailKind::accumulate: {
        // Under the lock, as every accumulate to memory reached by CMA.
        const coll::Combine combine = coll::Combine::predefined(static_cast<coll::Op>(box.op),
                                                                static_cast<coll::Element>(box.element));
        const rma::AccumulateLockGuard guard(lock);
        alignas(16) std::byte old[rma::kMailBytes];
        rma::accumulate_plainly(at, box.data, box.fetch != 0 ? old : nullptr, box.bytes / combine.element_bytes(),
                                combine);
        if (box.fetch != 0) std::memcpy(box.data, old, box.bytes);
        break;
      }
      case rma::MailKind::compare_and_swap: {
        const std::uint32_t n = box.bytes / 2;
        const rma::AccumulateLockGuard guard(lock);
        alignas(16) std::byte old[rma::kMailBytes / 2];
        std::memcpy(old, at, n);
        if (std::memcmp(at, box.data + n, n) == 0) std::memcpy(at, box.data, n);
        std::memcpy(box.data, old, n);
        break;
      }
    }
    box.state.store(rma::kMailDone, std::memory_order_release);
    // Serving is work: the engine keeps polling while operations come,
    // instead of going to sleep and leaving them to CMA.
    core::Runtime::instance().engine().note_activity();
  }
}

}  // namespace mpf::mpi
