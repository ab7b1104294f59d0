// Node-shared memory created while the job runs: RMA windows, symmetric
// heaps, conversation queues. Any rank creates a piece (an anonymous memfd:
// nothing of it can be left behind in /dev/shm), lists it in the segment's
// directory ("shm.node_memory"), and hands its id to the ranks that need it;
// they, and mpfinspect, map it through /proc/<creator>/fd/<fd>. The kernel
// frees it when the last process that maps it ends, so it goes away with the
// job on every exit path, a crash or a SIGKILL of mpfrun included.
//
// Usage:
//   NodeMemory heap = NodeMemory::create(segment, my_rank, "shmem.heap", bytes);
//   broadcast(heap.id());                      // the API's own business
//   NodeMemory peer = NodeMemory::open(segment, id);   // on another rank
//   std::byte* p = peer.data();                // zeroed at creation
//
// The creator must keep its object (and so its descriptor) until every
// rank that needs the memory has opened it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shm/region.hpp"
#include "shm/segment.hpp"

namespace mpf::shm {

// One entry of the directory. `word` is (generation << 2) | state, so that
// an id names one use of an entry and a stale id is seen for what it is.
// The creator fills the fields while the state is kCreating and publishes
// them with a release store of kLive; it withdraws the entry (kFree, next
// generation) before it closes its descriptor, so a reader that saw the
// same live word before and after opening the descriptor opened the right
// memory.
struct alignas(kCacheLine) NodeMemoryEntry {
  std::atomic<std::uint64_t> word;
  std::uint32_t owner_rank;
  std::int32_t owner_pid;
  std::int32_t owner_fd;
  std::uint32_t reserved;
  std::uint64_t bytes;
  char name[32];  // NUL-terminated
};
static_assert(sizeof(NodeMemoryEntry) == kCacheLine);

// Windows, heaps and conversations of all the node's ranks at once: one
// piece per window, a few per rank's MPI_Alloc_mem heap.
inline constexpr std::uint32_t kNodeMemoryEntries = 1024;

class NodeMemoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A listed piece of node memory, as mpfinspect shows it.
struct NodeMemoryListing {
  std::uint64_t id;
  std::string name;
  std::uint32_t owner_rank;
  std::int32_t owner_pid;
  std::uint64_t bytes;
};

class NodeMemory {
 public:
  static constexpr std::string_view kName = "shm.node_memory";
  static constexpr std::uint32_t kVersion = 2;
  static RegionSpec spec();

  // `bytes` of zeroed memory, listed under `name` (at most 31 characters)
  // as owned by rank `me`. Throws NodeMemoryError naming the call that
  // failed, or the directory being full.
  static NodeMemory create(const Segment& segment, std::uint32_t me, std::string_view name, std::uint64_t bytes);
  // Maps the memory another rank created. Throws NodeMemoryError when the
  // id names nothing live (freed, or its creator is gone).
  static NodeMemory open(const Segment& segment, std::uint64_t id, bool writable = true);
  // Every piece listed now.
  static std::vector<NodeMemoryListing> list(const Segment& segment);

  NodeMemory() = default;
  NodeMemory(NodeMemory&& other) noexcept;
  NodeMemory& operator=(NodeMemory&& other) noexcept;
  NodeMemory(const NodeMemory&) = delete;
  NodeMemory& operator=(const NodeMemory&) = delete;
  // The creator withdraws the entry; every mapping is released.
  ~NodeMemory();

  std::byte* data() const { return static_cast<std::byte*>(base_); }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t id() const { return id_; }
  bool owner() const { return entry_ != nullptr; }

 private:
  NodeMemory(void* base, std::uint64_t bytes, std::uint64_t id, int fd, NodeMemoryEntry* entry)
      : base_(base), bytes_(bytes), id_(id), fd_(fd), entry_(entry) {}
  void release();

  void* base_ = nullptr;
  std::uint64_t bytes_ = 0;
  std::uint64_t id_ = 0;
  int fd_ = -1;                       // the creator's descriptor, kept for the others to open
  NodeMemoryEntry* entry_ = nullptr;  // the creator's directory entry
};

}  // namespace mpf::shm
