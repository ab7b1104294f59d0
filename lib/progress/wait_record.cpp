#include "progress/wait_record.hpp"

namespace mpf::progress {

shm::CommRecord& CollectiveLog::claim(CollectiveTrack& track, std::uint32_t context, std::uint32_t epoch,
                                      std::uint32_t size, std::int32_t rank) {
  std::uint32_t victim = 0;
  for (std::uint32_t i = 1; i < shm::kCommRecords; ++i) {
    if (owners_[i].used < owners_[victim].used) victim = i;
  }
  owners_[victim] = {context, epoch, clock_};
  track.slot = victim;
  shm::CommRecord& r = records_[victim];
  // Size 0 marks the entry free while it changes owner; a reader that
  // acquires a nonzero size sees the fields stored before it.
  r.size.store(0, std::memory_order_relaxed);
  r.context.store(context, std::memory_order_relaxed);
  r.epoch.store(epoch, std::memory_order_relaxed);
  r.rank.store(rank, std::memory_order_relaxed);
  r.started.store(track.started, std::memory_order_relaxed);
  r.completed.store(track.completed, std::memory_order_relaxed);
  r.kinds.store(track.kinds, std::memory_order_relaxed);
  r.size.store(size, std::memory_order_release);
  return r;
}

}  // namespace mpf::progress
