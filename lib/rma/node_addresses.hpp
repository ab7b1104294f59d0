// Which of this process's memory other ranks of the node can map, and the
// mappings this process holds of theirs.
//
// A window over memory that lies in node memory (shm::NodeMemory: what
// MPI_Alloc_mem hands out, another window's allocated memory) is reached
// by its origins directly, as fast as one that MPI_Win_allocate made
// (seed 001's "global shared memory"): the member publishes the piece's id
// and the offset (find), and each origin maps the piece once for all the
// windows that use it (open).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "shm/node_memory.hpp"

namespace mpf::rma {

// Where an address range lies in node memory.
struct Placement {
  std::uint64_t id = 0;  // the piece (shm::NodeMemory::id)
  std::uint64_t offset = 0;
};

// This process maps piece `id` at [base, base + bytes) (its own, or one it
// opened); forget() when it unmaps it.
void remember(const std::byte* base, std::uint64_t bytes, std::uint64_t id);
void forget(const std::byte* base);
// The piece holding all of [address, address + bytes), if any.
std::optional<Placement> find(const void* address, std::uint64_t bytes);

// A piece of another rank's, mapped in this process, shared by every
// window that reaches memory in it; unmapped when the last one lets go.
struct Mapping {
  std::byte* data = nullptr;
  std::uint64_t bytes = 0;
  std::shared_ptr<shm::NodeMemory> hold;  // null when this process owns or had already mapped it
};
// Maps piece `id` (or finds it mapped); throws shm::NodeMemoryError when
// the piece is gone.
Mapping open(std::uint64_t id);

}  // namespace mpf::rma
