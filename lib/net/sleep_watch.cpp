#include "net/sleep_watch.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "common/futex.hpp"

namespace mpf::net {

void SleepWatch::start(int fd, shm::RankControl& rank) {
  fd_ = fd;
  rank_ = &rank;
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  stopping_.store(false);
  thread_ = std::thread([this] { run(); });
}

void SleepWatch::stop() {
  if (!thread_.joinable()) return;
  stopping_.store(true, std::memory_order_seq_cst);
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(stop_fd_, &one, sizeof one);
  armed_.store(1, std::memory_order_seq_cst);
  wake_thread();
  thread_.join();
  ::close(stop_fd_);
  stop_fd_ = -1;
}

void SleepWatch::wake_thread() { common::futex_wake(armed_); }

void SleepWatch::run() {
  for (;;) {
    while (armed_.load(std::memory_order_seq_cst) == 0) common::futex_wait(armed_, 0);
    if (stopping_.load(std::memory_order_seq_cst)) return;
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, -1);
    if (stopping_.load(std::memory_order_seq_cst)) return;
    if (ready <= 0) continue;  // EINTR
    if ((fds[0].revents & (POLLIN | POLLERR | POLLHUP)) == 0) continue;
    // Disarmed before the ring: the rank, once awake, reads the queue and
    // arms again only when it is about to sleep once more (the descriptor
    // stays readable until it has read the queue).
    armed_.store(0, std::memory_order_seq_cst);
    rank_->doorbell.fetch_add(1, std::memory_order_seq_cst);
    common::futex_wake(rank_->doorbell);
  }
}

}  // namespace mpf::net
