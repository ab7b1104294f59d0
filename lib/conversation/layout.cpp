#include "conversation/layout.hpp"

#include <new>
#include <string>

#include "common/tunables.hpp"

namespace mpf::conversation {
namespace {

std::uint64_t round_up(std::uint64_t n, std::uint64_t to) { return (n + to - 1) / to * to; }

struct Geometry {
  std::uint32_t conversations;
  std::uint32_t bitmap_words;
  std::uint64_t queue_bytes;
  std::uint64_t entry_bytes;
  std::uint64_t entries_offset;
  std::uint64_t rings_offset;
  std::uint64_t bytes;
};

Geometry geometry_of(const shm::RegionGeometry& g) {
  Geometry r{};
  r.conversations = static_cast<std::uint32_t>(g.tunables.integer(common::Tunable::mpf_conversations));
  r.bitmap_words = (g.nranks + 63) / 64;
  r.queue_bytes = round_up(static_cast<std::uint64_t>(g.tunables.integer(common::Tunable::mpf_queue_bytes)), kPage);
  r.entry_bytes = sizeof(Entry) + round_up(g.nranks, kLine) + round_up(3ull * r.bitmap_words * 8, kLine);
  r.entries_offset = round_up(sizeof(TableHeader), kLine);
  r.rings_offset = round_up(r.entries_offset + r.conversations * r.entry_bytes, kPage);
  r.bytes = r.rings_offset + r.conversations * r.queue_bytes;
  return r;
}

void init_shared_mutex(pthread_mutex_t& m) {
  pthread_mutexattr_t attributes;
  pthread_mutexattr_init(&attributes);
  pthread_mutexattr_setpshared(&attributes, PTHREAD_PROCESS_SHARED);
  pthread_mutex_init(&m, &attributes);
  pthread_mutexattr_destroy(&attributes);
}

}  // namespace

shm::RegionSpec TableView::spec() {
  return {kRegionName, kVersion, [](const shm::RegionGeometry& g) { return geometry_of(g).bytes; },
          [](std::span<std::byte> region, const shm::RegionGeometry& g) {
            const Geometry geometry = geometry_of(g);
            auto* header = new (region.data()) TableHeader{};
            header->conversations = geometry.conversations;
            header->nranks = g.nranks;
            header->bitmap_words = geometry.bitmap_words;
            header->queue_bytes = geometry.queue_bytes;
            header->entry_bytes = geometry.entry_bytes;
            header->entries_offset = geometry.entries_offset;
            header->rings_offset = geometry.rings_offset;
            init_shared_mutex(header->lock);
            for (std::uint32_t c = 0; c < geometry.conversations; ++c) {
              auto* entry = new (region.data() + geometry.entries_offset + c * geometry.entry_bytes) Entry{};
              init_shared_mutex(entry->lock);
            }
          }};
}

TableView::TableView(const shm::Region& region) {
  const auto& h = shm::region_header<TableHeader>(region, kRegionName);
  const std::uint64_t entries_end = h.entries_offset + std::uint64_t{h.conversations} * h.entry_bytes;
  if (h.queue_bytes == 0 || h.queue_bytes % kPage != 0 || h.entry_bytes < sizeof(Entry) ||
      h.bitmap_words != (h.nranks + 63) / 64 || entries_end > h.rings_offset ||
      h.rings_offset + std::uint64_t{h.conversations} * h.queue_bytes > region.bytes) {
    throw shm::SegmentError("the segment's region " + std::string(kRegionName) + " does not match its geometry");
  }
  base_ = region.base;
  header_ = reinterpret_cast<TableHeader*>(region.base);
}

}  // namespace mpf::conversation
