#include "progress/wait_record.hpp"

namespace mpf::progress {

void CollectiveLog::write(std::uint32_t slot, const CollectiveTrack& track) {
  shm::CommRecord& r = records_[slot];
  // Size 0 marks the entry free while it changes owner; a reader that
  // acquires a nonzero size sees the fields stored before it.
  r.size.store(0, std::memory_order_relaxed);
  r.context.store(track.context, std::memory_order_relaxed);
  r.epoch.store(track.epoch, std::memory_order_relaxed);
  r.rank.store(track.rank, std::memory_order_relaxed);
  r.started.store(track.started, std::memory_order_relaxed);
  r.completed.store(track.completed, std::memory_order_relaxed);
  r.kinds.store(track.kinds, std::memory_order_relaxed);
  r.size.store(track.size, std::memory_order_release);
}

void CollectiveLog::show(CollectiveTrack& track, std::uint32_t context, std::uint32_t epoch, std::uint32_t size,
                         std::int32_t rank) {
  if (records_ == nullptr) return;
  track.context = context;
  track.epoch = epoch;
  track.size = size;
  track.rank = rank;
  track.last_shown = ++clock_;
  if (track.log != this || track.slot >= shm::kCommRecords || tracks_[track.slot] != &track) {
    // A free entry, else the one shown longest ago.
    std::uint32_t victim = 0;
    for (std::uint32_t i = 0; i < shm::kCommRecords; ++i) {
      if (tracks_[i] == nullptr) {
        victim = i;
        break;
      }
      if (tracks_[i]->last_shown < tracks_[victim]->last_shown) victim = i;
    }
    if (CollectiveTrack* old = tracks_[victim]) {
      old->log = nullptr;
      old->slot = ~0u;
    }
    tracks_[victim] = &track;
    track.slot = victim;
    track.log = this;
  }
  write(track.slot, track);
}

void CollectiveLog::publish(CollectiveTrack* waited) {
  if (records_ == nullptr) return;
  if (waited != nullptr && waited->size != 0) show(*waited, waited->context, waited->epoch, waited->size, waited->rank);
  for (std::uint32_t i = 0; i < shm::kCommRecords; ++i) {
    const CollectiveTrack* t = tracks_[i];
    if (t == nullptr) continue;
    // Relaxed: a reader wants the latest values, not an order among them.
    shm::CommRecord& r = records_[i];
    r.kinds.store(t->kinds, std::memory_order_relaxed);
    r.started.store(t->started, std::memory_order_relaxed);
    r.completed.store(t->completed, std::memory_order_relaxed);
  }
}

}  // namespace mpf::progress
