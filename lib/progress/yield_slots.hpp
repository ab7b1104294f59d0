// The node's yield slots (SPEC §2 Waiting), used when ranks outnumber CPUs.
// A waiting rank that holds a slot keeps yielding; every other waiting rank
// sleeps on its futex. A CPU with a yielding rank never idles, so a rank
// woken there runs after a context switch, not after an idle virtual CPU
// is woken (tens of microseconds here), and a message for a yielding rank
// needs no wake-up at all.
//
// Which ranks yield matters as much as how many. When a holder's wait ends
// it passes its slot to the rank that has slept longest, and wakes it: the
// rank that waited longest is the likeliest to be handed work next (in a
// token ring it is always the next receiver), and it is then awake, a hop
// or two ahead, when its message comes. The queue of sleepers is a ticket
// counter and a ring of owners in the node's waiting state (shm::NodeWaiting); each sleeper's ticket
// in its RankControl says whether it still sleeps on it.
#pragma once

#include <atomic>
#include <cstdint>

#include "shm/ranks_layout.hpp"

namespace mpf::progress {

class YieldSlots {
 public:
  // How many slots a node of `nranks` ranks on `ncpus` CPUs has. With at
  // most `all_yield_per_cpu` ranks per CPU, one per rank: every waiting
  // rank yields, since the rank with work gets its turn soon. With more, a
  // CPU's round of yields takes longer than a wake-up, and
  // `yielders_per_cpu` per CPU yield.
  static std::uint32_t slots_for(std::uint32_t nranks, std::uint32_t ncpus, std::uint32_t yielders_per_cpu,
                                 std::uint32_t all_yield_per_cpu) {
    return nranks <= ncpus * all_yield_per_cpu ? nranks : ncpus * yielders_per_cpu;
  }
  // `slots` slots for the node of `node_size` ranks (slots_for), for the
  // rank at `local` (its place in the node's ranks region).
  void init(const shm::RanksLayout& node, std::uint32_t local, std::uint32_t node_size, std::uint32_t slots);
  bool enabled() const { return node_ != nullptr; }

  // Takes a free slot; false when all are held.
  bool try_take();
  // Gives a slot back, to nobody: its holder goes to sleep.
  void release();
  // Gives a slot whose holder's wait ended to the longest sleeper, waking
  // it, or back to the node when nobody sleeps.
  void pass_on();

  // Before a sleep: queue this rank, so that a slot can be passed to it.
  void enter_queue();
  // After it: leave the queue; true when a slot was passed to this rank
  // meanwhile (it holds it now).
  bool leave_queue();

 private:
  const shm::RanksLayout* node_ = nullptr;
  std::uint32_t local_ = 0;
  std::uint32_t node_size_ = 0;
  std::uint32_t slots_ = 0;
  std::uint32_t* taken_ = nullptr;  // the node's waiting state's fields, through std::atomic_ref
  std::uint64_t* next_ = nullptr;
  std::uint64_t* oldest_ = nullptr;
  std::uint32_t* owners_ = nullptr;
};

}  // namespace mpf::progress
