// A collective as a C++20 coroutine, so that one algorithm serves both the
// blocking call (MPI_Bcast) and the nonblocking one (MPI_Ibcast). The
// algorithm co_awaits conditions — "step 3 of the parent's slot has been
// taken", "my slot is free again" — with `co_await until(peer, condition)`;
// a condition is a function that tries and returns true once it has
// succeeded (it is not asked again after that). Whoever owns the task
// drives it:
//
//   blocking     run() advances it and waits on the progress engine (spin,
//                yield, sleep) while its condition does not hold;
//   nonblocking  the request keeps it, and every MPI_Test/MPI_Wait advances
//                it as far as it goes without waiting.
//
// The awaiter lives in the coroutine frame while the task is suspended, so
// the condition is stored as a pointer to it: no allocation per wait. Frames
// themselves come from a pool of freed ones (FrameCache), so a collective
// called in a loop allocates nothing after its first call.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <utility>

#include "coll/block_pool.hpp"
#include "progress/engine.hpp"

namespace mpf::coll {

// Coroutine frames, reused (block_pool.hpp): the frames of one algorithm
// always have the same size.
class FrameCache {
 public:
  // Each frame carries its block's size in a header before it (GCC 12 does
  // not pass a coroutine's operator delete the size it allocated).
  static void* take(std::size_t bytes) {
    std::size_t capacity = 0;
    std::byte* block = Pool::take(bytes + kHeader, &capacity);
    *reinterpret_cast<std::size_t*>(block) = capacity;
    return block + kHeader;
  }
  static void give(void* frame) {
    std::byte* block = static_cast<std::byte*>(frame) - kHeader;
    Pool::give(block, *reinterpret_cast<const std::size_t*>(block));
  }

 private:
  static constexpr std::size_t kHeader = alignof(std::max_align_t);
  using Pool = BlockPool<FrameCache, 16, 64 * 1024>;
};

class Task {
 public:
  struct promise_type {
    // The condition the task waits on, type-erased: its object and a thunk.
    void* condition = nullptr;
    bool (*test)(void*) = nullptr;
    std::int32_t peer = -1;  // world rank it waits for (introspection), -1: any
    std::exception_ptr error;

    static void* operator new(std::size_t bytes) { return FrameCache::take(bytes); }
    static void operator delete(void* frame) { FrameCache::give(frame); }

    Task get_return_object() { return Task(std::coroutine_handle<promise_type>::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() { error = std::current_exception(); }
  };

  template <class Condition>
  struct Until {
    std::int32_t peer;
    Condition condition;
    bool await_ready() { return condition(); }
    void await_suspend(std::coroutine_handle<promise_type> h) {
      h.promise().condition = &condition;
      h.promise().test = [](void* c) { return (*static_cast<Condition*>(c))(); };
      h.promise().peer = peer;
    }
    void await_resume() {}
  };

  Task() = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (handle_) handle_.destroy();
  }

  // Runs the task until it waits for a condition that does not hold yet,
  // or to its end; true when it has ended. Rethrows what the task threw.
  // An empty Task (Task{}: nothing to do) has ended.
  bool advance() {
    if (!handle_) return true;
    while (!handle_.done()) {
      promise_type& p = handle_.promise();
      if (p.test != nullptr) {
        if (!p.test(p.condition)) return false;
        p.test = nullptr;
      }
      handle_.resume();
      if (p.error) std::rethrow_exception(std::exchange(p.error, nullptr));
    }
    return true;
  }
  bool done() const { return !handle_ || handle_.done(); }
  // The world rank the task waits for now (-1: any or none).
  std::int32_t waiting_for() const { return handle_ && !handle_.done() ? handle_.promise().peer : -1; }

  // The blocking form: drives the task to its end, waiting in the engine
  // (shown as `call`, with the rank it waits for) while it cannot move.
  void run(progress::Engine& engine, progress::BlockedCall call) {
    while (!advance()) {
      call.peer = waiting_for();
      engine.wait_until([this] { return condition_holds(); }, call);
    }
  }

 private:
  explicit Task(std::coroutine_handle<promise_type> h) : handle_(h) {}
  // Tests the current condition once; when it holds, advance() resumes
  // without testing again.
  bool condition_holds() {
    promise_type& p = handle_.promise();
    if (p.test == nullptr) return true;
    if (!p.test(p.condition)) return false;
    p.test = nullptr;
    return true;
  }

  std::coroutine_handle<promise_type> handle_;
};

// co_await until(peer, [&] { return try_something(); });
template <class Condition>
Task::Until<Condition> until(std::int32_t peer, Condition condition) {
  return {peer, std::move(condition)};
}

// co_await finished(sub): waits until another task has run to its end.
inline auto finished(Task& sub) {
  return until(-1, [&sub] { return sub.advance(); });
}

}  // namespace mpf::coll
