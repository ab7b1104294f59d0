// Operations on memory no origin can reach by itself (rma::Reach::via_target:
// a member's process memory where Cross Memory Attach is refused): the
// member's progress engine applies them (seed 001 §3, "process local
// memory"). The origin sends each as one message to the member's engine,
// in a context of the window's own (core::kRmaContextBit); the member
// applies it when its engine next makes progress (any MPI call that waits
// or tests), in the order each origin sent them, and answers those that
// return data on a tag the origin chose and posted a receive for.
//
// The target's datatype travels as its layout (blocks) the first time an
// origin uses it at a target; the target keeps it by (origin, handle), so
// later operations name it only (seed 001 §4; counted as rma_types_sent
// and rma_type_cache_hits).
//
// Completion is by counting: the origin counts what it asked of each
// member in the window's shared part (`sent`), the member what it has
// applied (`done`), and a closing call waits until they agree.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "mpi/win.hpp"

namespace mpf::mpi {

// The operations. `offset` is where the target's data starts, from its
// window's base (a dynamic window: the address); `data` the origin's
// data, packed. Answers land in `out` (get: `origin_count` elements of
// `origin_type`; fetching accumulates: the result's), when the operation
// completes (finish_operations).
int put_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                   const std::byte* data, std::uint64_t bytes);
int get_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                   std::byte* out, MPI_Datatype origin_type, int origin_count);
// `result` null: MPI_Accumulate; else MPI_Get_accumulate (result_count of result_type).
int accumulate_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                          const std::byte* data, std::uint64_t bytes, MPI_Op op, std::byte* result,
                          MPI_Datatype result_type, int result_count);
int compare_and_swap_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype type,
                                const std::byte* origin, const std::byte* compare, std::byte* result);

// Waits until the operations this rank issued to `target` (-1: to every
// member) are complete at the target and here (their answers arrived).
void finish_operations(Window& w, int target, const char* call);
// True when the operations `origin` asked this rank's engine to apply are
// all applied.
bool applied_from(const Window& w, int origin);
// Waits until they are (progressing this rank's engine, which applies them).
void wait_applied_from(const Window& w, int origin, const char* call);

// Makes the engine apply the operations origins send this rank, on every
// round of progress (win_create.cpp calls it with the first window).
void serve_windows_from_now_on();
// The window is going: forget what this rank keeps for it.
void forget_window(const Window& w);

}  // namespace mpf::mpi
