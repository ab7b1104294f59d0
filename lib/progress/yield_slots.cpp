#include "progress/yield_slots.hpp"

namespace mpf::progress {

void YieldSlots::init(const shm::RanksLayout& node, std::uint32_t local, std::uint32_t node_size,
                      std::uint32_t slots) {
  shm::NodeWaiting& header = node.waiting();
  node_ = &node;
  local_ = local;
  node_size_ = node_size;
  slots_ = slots;
  taken_ = &header.yield_slots_taken;
  next_ = &header.sleep_tickets_next;
  oldest_ = &header.sleep_tickets_oldest;
  owners_ = header.sleep_ticket_owners;
}

bool YieldSlots::try_take() {
  std::atomic_ref<std::uint32_t> taken(*taken_);
  std::uint32_t now = taken.load(std::memory_order_relaxed);
  while (now < slots_) {
    if (taken.compare_exchange_weak(now, now + 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

void YieldSlots::release() { std::atomic_ref<std::uint32_t>(*taken_).fetch_sub(1, std::memory_order_relaxed); }

void YieldSlots::pass_on() {
  std::atomic_ref<std::uint64_t> oldest(*oldest_);
  std::atomic_ref<std::uint64_t> next(*next_);
  std::uint64_t ticket = oldest.load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t end = next.load(std::memory_order_acquire);
    if (ticket >= end) break;
    // Places older than the ring holds have been reused: skip to the ring.
    const std::uint64_t first_held = end > shm::kSleepTicketPlaces ? end - shm::kSleepTicketPlaces : 0;
    if (ticket < first_held) {
      if (oldest.compare_exchange_weak(ticket, first_held, std::memory_order_acq_rel)) ticket = first_held;
      continue;
    }
    const std::uint32_t owner =
        std::atomic_ref<std::uint32_t>(owners_[ticket % shm::kSleepTicketPlaces]).load(std::memory_order_acquire);
    if (!oldest.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel)) continue;  // another took it
    // The owner may have woken, or not yet written its place (then `owner`
    // is an older sleeper's): its own ticket says whether it still sleeps
    // on this one.
    // Owners are local indices: the queue is the node's.
    if (owner < node_size_) {
      std::uint64_t expected = ticket + 1;
      shm::RankControl& sleeper = node_->rank(owner);
      if (sleeper.sleep_ticket.compare_exchange_strong(expected, shm::kPromotedTicket, std::memory_order_acq_rel)) {
        shm::ring_doorbell(sleeper, node_->rank(local_));
        return;
      }
    }
    ++ticket;
  }
  release();
}

void YieldSlots::enter_queue() {
  const std::uint64_t ticket = std::atomic_ref<std::uint64_t>(*next_).fetch_add(1, std::memory_order_acq_rel);
  node_->rank(local_).sleep_ticket.store(ticket + 1, std::memory_order_release);
  std::atomic_ref<std::uint32_t>(owners_[ticket % shm::kSleepTicketPlaces])
      .store(local_, std::memory_order_release);
}

bool YieldSlots::leave_queue() {
  return node_->rank(local_).sleep_ticket.exchange(0, std::memory_order_acq_rel) == shm::kPromotedTicket;
}

}  // namespace mpf::progress
