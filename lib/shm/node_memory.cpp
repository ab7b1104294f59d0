#include "shm/node_memory.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <utility>

#include "common/system_error.hpp"

namespace mpf::shm {
namespace {

enum State : std::uint64_t { kFree = 0, kCreating = 1, kLive = 2 };

constexpr std::uint64_t state_of(std::uint64_t word) { return word & 3; }
constexpr std::uint64_t generation_of(std::uint64_t word) { return word >> 2; }
constexpr std::uint64_t make_word(std::uint64_t generation, std::uint64_t state) { return generation << 2 | state; }

// id: the entry's index in the low 16 bits, its generation above; never 0
// (generations start at 1), so 0 can mean "none" to callers.
constexpr std::uint64_t make_id(std::uint32_t index, std::uint64_t generation) { return generation << 16 | index; }

struct Directory {
  std::uint32_t entries;
  std::uint32_t reserved;
};
constexpr std::uint64_t kEntriesOffset = kCacheLine;

NodeMemoryEntry* entries_of(const Segment& segment) {
  const Region r = segment.region(NodeMemory::kName, NodeMemory::kVersion);
  const Directory& d = region_header<Directory>(r, NodeMemory::kName);
  if (d.entries != kNodeMemoryEntries || r.bytes < kEntriesOffset + kNodeMemoryEntries * sizeof(NodeMemoryEntry)) {
    throw SegmentError("the segment's region " + std::string(NodeMemory::kName) + " has an inconsistent header");
  }
  return reinterpret_cast<NodeMemoryEntry*>(r.base + kEntriesOffset);
}

}  // namespace

RegionSpec NodeMemory::spec() {
  return {kName, kVersion,
          [](const RegionGeometry&) { return kEntriesOffset + kNodeMemoryEntries * sizeof(NodeMemoryEntry); },
          [](std::span<std::byte> region, const RegionGeometry&) {
            new (region.data()) Directory{kNodeMemoryEntries, 0};
            for (std::uint32_t i = 0; i < kNodeMemoryEntries; ++i) {
              new (region.data() + kEntriesOffset + i * sizeof(NodeMemoryEntry)) NodeMemoryEntry{};
            }
          }};
}

NodeMemory NodeMemory::create(const Segment& segment, std::uint32_t me, std::string_view name, std::uint64_t bytes) {
  if (name.empty() || name.size() >= sizeof(NodeMemoryEntry::name)) {
    throw NodeMemoryError("node memory name '" + std::string(name) + "' must have 1 to " +
                          std::to_string(sizeof(NodeMemoryEntry::name) - 1) + " characters");
  }
  NodeMemoryEntry* entries = entries_of(segment);
  // Claim a free entry: one compare-and-swap; the next generation makes
  // every id of its earlier uses stale.
  NodeMemoryEntry* entry = nullptr;
  std::uint32_t index = 0;
  std::uint64_t generation = 0;
  for (; index < kNodeMemoryEntries && entry == nullptr; ++index) {
    std::uint64_t word = entries[index].word.load(std::memory_order_relaxed);
    if (state_of(word) != kFree) continue;
    generation = generation_of(word) + 1;
    if (entries[index].word.compare_exchange_strong(word, make_word(generation, kCreating),
                                                    std::memory_order_acquire)) {
      entry = &entries[index];
      break;
    }
  }
  if (entry == nullptr) {
    throw NodeMemoryError("the node's directory of shared memory is full (" + std::to_string(kNodeMemoryEntries) +
                          " pieces live at once); free windows or heaps the program no longer uses");
  }
  auto withdraw = [&] { entry->word.store(make_word(generation, kFree), std::memory_order_release); };
  const std::string memfd_name = "mpf-node-" + std::string(name);
  const int fd = ::memfd_create(memfd_name.c_str(), MFD_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    withdraw();
    throw NodeMemoryError(common::system_error_text("memfd_create for node memory " + std::string(name), err));
  }
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    withdraw();
    throw NodeMemoryError("cannot size node memory " + std::string(name) + " to " + std::to_string(bytes) +
                          " bytes: " + common::system_error_text("ftruncate", err));
  }
  void* base = bytes == 0 ? nullptr : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    withdraw();
    throw NodeMemoryError(common::system_error_text("mmap of node memory " + std::string(name) + " (" +
                                                        std::to_string(bytes) + " bytes)",
                                                    err));
  }
  entry->owner_rank = me;
  entry->owner_pid = static_cast<std::int32_t>(::getpid());
  entry->owner_fd = fd;
  entry->bytes = bytes;
  std::memset(entry->name, 0, sizeof entry->name);
  std::memcpy(entry->name, name.data(), name.size());
  // Release: a reader that sees kLive sees the fields.
  entry->word.store(make_word(generation, kLive), std::memory_order_release);
  return NodeMemory(base, bytes, make_id(index, generation), fd, entry);
}

NodeMemory NodeMemory::open(const Segment& segment, std::uint64_t id, bool writable) {
  NodeMemoryEntry* entries = entries_of(segment);
  const auto index = static_cast<std::uint32_t>(id & 0xffff);
  const std::uint64_t generation = id >> 16;
  if (index >= kNodeMemoryEntries || generation == 0) {
    throw NodeMemoryError("node memory id " + std::to_string(id) + " names no piece of node memory");
  }
  NodeMemoryEntry& e = entries[index];
  const std::uint64_t live = make_word(generation, kLive);
  auto gone = [&] {
    return NodeMemoryError("node memory id " + std::to_string(id) + " was freed by its creator");
  };
  // Acquire: the fields the creator wrote before it published the entry.
  if (e.word.load(std::memory_order_acquire) != live) throw gone();
  const pid_t pid = e.owner_pid;
  const int owner_fd = e.owner_fd;
  const std::uint64_t bytes = e.bytes;
  const std::string name(e.name, ::strnlen(e.name, sizeof e.name));
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(owner_fd);
  const int fd = ::open(path.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (e.word.load(std::memory_order_acquire) != live) throw gone();
    throw NodeMemoryError(common::system_error_text("open " + path + " (node memory " + name + " of rank " +
                                                        std::to_string(e.owner_rank) + ")",
                                                    err));
  }
  // The creator withdraws the entry before it closes its descriptor: the
  // same live word now means the descriptor was still the memory's.
  if (e.word.load(std::memory_order_acquire) != live) {
    ::close(fd);
    throw gone();
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != bytes) {
    ::close(fd);
    throw NodeMemoryError(path + " is not node memory " + name + " of " + std::to_string(bytes) + " bytes");
  }
  void* base = bytes == 0 ? nullptr
                          : ::mmap(nullptr, bytes, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the memory
  if (base == MAP_FAILED) {
    throw NodeMemoryError(common::system_error_text("mmap of node memory " + name, err));
  }
  return NodeMemory(base, bytes, id, -1, nullptr);
}

std::vector<NodeMemoryListing> NodeMemory::list(const Segment& segment) {
  const NodeMemoryEntry* entries = entries_of(segment);
  std::vector<NodeMemoryListing> out;
  for (std::uint32_t i = 0; i < kNodeMemoryEntries; ++i) {
    const NodeMemoryEntry& e = entries[i];
    const std::uint64_t word = e.word.load(std::memory_order_acquire);
    if (state_of(word) != kLive) continue;
    NodeMemoryListing l{make_id(i, generation_of(word)), std::string(e.name, ::strnlen(e.name, sizeof e.name)),
                        e.owner_rank, e.owner_pid, e.bytes};
    // Listed only if the entry did not change while we read it.
    if (e.word.load(std::memory_order_acquire) == word) out.push_back(std::move(l));
  }
  return out;
}

void NodeMemory::release() {
  if (entry_ != nullptr) {
    // Withdrawn first, then the descriptor closed (see open()).
    const std::uint64_t word = entry_->word.load(std::memory_order_relaxed);
    entry_->word.store(make_word(generation_of(word), kFree), std::memory_order_release);
  }
  if (fd_ >= 0) ::close(fd_);
  if (base_ != nullptr) ::munmap(base_, bytes_);
  base_ = nullptr;
  fd_ = -1;
  entry_ = nullptr;
}

NodeMemory::NodeMemory(NodeMemory&& other) noexcept
    : base_(std::exchange(other.base_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      id_(std::exchange(other.id_, 0)),
      fd_(std::exchange(other.fd_, -1)),
      entry_(std::exchange(other.entry_, nullptr)) {}

NodeMemory& NodeMemory::operator=(NodeMemory&& other) noexcept {
  if (this != &other) {
    release();
    base_ = std::exchange(other.base_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    id_ = std::exchange(other.id_, 0);
    fd_ = std::exchange(other.fd_, -1);
    entry_ = std::exchange(other.entry_, nullptr);
  }
  return *this;
}

NodeMemory::~NodeMemory() { release(); }

}  // namespace mpf::shm
