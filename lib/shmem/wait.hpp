// Waiting in a SHMEM call: through the progress engine (spin, yield, then
// sleep on the futex until a write wakes this PE: every put, atomic and
// signal to another PE wakes it if it sleeps), so a waiting PE also serves
// its MPI traffic and 64 PEs on 2 CPUs do not spin each other out. What
// the PE waits for is shown in its PeState for mpfinspect while it waits.
#pragma once

#include <atomic>
#include <cstring>
#include <type_traits>

#include "core/runtime.hpp"
#include "progress/wait_record.hpp"
#include "shmem/state.hpp"

namespace mpf::shmem {

template <class T>
constexpr symmetric::ValueKind value_kind() {
  if constexpr (std::is_floating_point_v<T>) return symmetric::ValueKind::floating;
  if constexpr (std::is_signed_v<T>) return symmetric::ValueKind::signed_integer;
  return symmetric::ValueKind::unsigned_integer;
}

// What a wait on `count` words of T from `address` for `cmp` `value` shows.
template <class T>
symmetric::PeWait wait_record(symmetric::WaitWhat what, const char* call, const T* address, std::uint32_t count,
                              int cmp, T value) {
  symmetric::PeWait w{};
  w.what = what;
  w.kind = value_kind<T>();
  w.bytes = sizeof(T);
  w.cmp = static_cast<std::uint8_t>(cmp);
  w.count = count;
  w.ref = symmetric_ref_of(address, sizeof(T) * count);
  w.address = reinterpret_cast<std::uintptr_t>(address);
  std::memcpy(&w.value, &value, sizeof(T) < sizeof w.value ? sizeof(T) : sizeof w.value);
  const std::size_t n = ::strnlen(call, sizeof w.function - 1);  // display text: a long name is cut
  std::memcpy(w.function, call, n);
  w.function[n] = '\0';
  return w;
}

// Waits until done(), shown as `record` (and to the engine as `call`).
template <class Done>
void wait_for(const char* call, const symmetric::PeWait& record, Done&& done) {
  symmetric::PeState& me = g_state.layout.pe(g_state.me);
  me.wait.write([&](symmetric::PeWait& w) { w = record; });
  // Published before the first look: a PE that writes what this one waits
  // for (a lock's releaser, which looks for the next ticket's holder) then
  // either finds the record or its write is seen by that look.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  core::Runtime::instance().engine().wait_until(done, progress::BlockedCall::shmem_wait(call));
  me.wait.write([](symmetric::PeWait& w) { w.what = symmetric::WaitWhat::none; });
}

}  // namespace mpf::shmem
