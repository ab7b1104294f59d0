// Sleeping while the network may bring work. A rank with nothing to do
// sleeps on its doorbell (a futex word in its control block) until a peer
// on its node rings it; packets from other nodes arrive in the endpoint's
// completion queue instead, which rings nothing. The watch is a thread of
// the rank's that the rank arms just before it sleeps (after libfabric's
// fi_trywait said the queue is empty and may be waited on): the thread
// waits for the queue's descriptor to become readable and rings the
// doorbell. It calls no libfabric function, so the endpoint stays
// single-threaded, and it sleeps in poll(2) or on its own futex, never
// spinning.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "shm/ranks_layout.hpp"

namespace mpf::net {

class SleepWatch {
 public:
  SleepWatch() = default;
  ~SleepWatch() { stop(); }
  SleepWatch(const SleepWatch&) = delete;
  SleepWatch& operator=(const SleepWatch&) = delete;

  // Starts the thread: it watches `fd` for the rank whose control block is
  // `rank`. Throws std::system_error when it cannot.
  void start(int fd, shm::RankControl& rank);
  // Stops and joins the thread (idempotent).
  void stop();
  // The rank is about to sleep: ring its doorbell once `fd` is readable.
  void arm() {
    if (armed_.exchange(1, std::memory_order_seq_cst) == 0) wake_thread();
  }

 private:
  void run();
  void wake_thread();

  std::thread thread_;
  std::atomic<std::uint32_t> armed_{0};  // the thread's futex word: 1 while the rank sleeps or is about to
  std::atomic<bool> stopping_{false};
  int fd_ = -1;
  int stop_fd_ = -1;  // an eventfd that ends the thread's poll
  shm::RankControl* rank_ = nullptr;
};

}  // namespace mpf::net
