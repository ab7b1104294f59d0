// A small operation handed to a target that is in the library right now,
// for memory the origin can otherwise reach only by Cross Memory Attach.
//
// A CMA copy costs a system call that pins the target's pages (2 us here,
// whatever the size up to a few KiB), while a target polling its engine
// applies a small put, get or accumulate to its own memory in a fraction
// of that. So an origin whose target waits in the engine (RankControl::
// polling) posts the operation in their pair's mailbox in the window's
// shared part and spins briefly; the target's engine takes it, applies it
// and marks it done. If the target does not take it in time (it left the
// library to compute), the origin withdraws it and copies by CMA itself:
// one compare-and-swap decides who applies it, so it is applied once and
// the target's help is never needed.
//
//   origin                                 target (a progress hook)
//   fill, state = posted (release)
//   spin until done ........................ posted -> taken (CAS), apply, done
//   or posted -> withdrawn (CAS): CMA itself
//   read the answer, state = empty
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mpf::rma {

inline constexpr std::uint32_t kMailEmpty = 0;
inline constexpr std::uint32_t kMailPosted = 1;
inline constexpr std::uint32_t kMailTaken = 2;
inline constexpr std::uint32_t kMailDone = 3;
inline constexpr std::uint32_t kMailWithdrawn = 4;

enum class MailKind : std::uint32_t { put = 1, get = 2, accumulate = 3, compare_and_swap = 4 };

// Bytes a mailbox carries: a put's or accumulate's data, a get's or a
// fetching accumulate's answer, a compare-and-swap's two operands.
inline constexpr std::size_t kMailBytes = 192;

struct alignas(64) Mailbox {
  std::atomic<std::uint32_t> state;
  MailKind kind;
  std::uint32_t bytes;
  std::uint8_t op;       // accumulate: coll::Op
  std::uint8_t element;  // accumulate: coll::Element
  std::uint8_t fetch;    // accumulate: answer with the values before
  std::uint8_t reserved;
  std::uint64_t offset;  // of the data, from the target's window base (dynamic: its address)
  std::uint64_t reserved2[5];
  std::byte data[kMailBytes];
};
static_assert(sizeof(Mailbox) == 256);

}  // namespace mpf::rma
