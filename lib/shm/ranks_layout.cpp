#include "shm/ranks_layout.hpp"

#include <new>
#include <string>

namespace mpf::shm {
namespace {

constexpr std::uint64_t kWaitingOffset = kCacheLine;
constexpr std::uint64_t kControlOffset = kWaitingOffset + round_up(sizeof(NodeWaiting), kCacheLine);

std::uint64_t introspection_offset(std::uint32_t nranks) {
  return round_up(kControlOffset + std::uint64_t{nranks} * sizeof(RankControl), alignof(Introspection));
}

}  // namespace

std::uint64_t RanksLayout::bytes_for(std::uint32_t nranks) {
  return introspection_offset(nranks) + std::uint64_t{nranks} * sizeof(Introspection);
}

RegionSpec RanksLayout::spec() {
  static_assert(sizeof(Header) <= kWaitingOffset);
  return {kName, kVersion, [](const RegionGeometry& g) { return bytes_for(g.nranks); },
          [](std::span<std::byte> region, const RegionGeometry& g) {
            std::byte* base = region.data();
            new (base) Header{g.nranks, static_cast<std::uint32_t>(sizeof(Introspection)), kWaitingOffset,
                              kControlOffset, introspection_offset(g.nranks)};
            new (base + kWaitingOffset) NodeWaiting{};
            // The per-rank blocks are few pages even for large jobs, and
            // every rank touches its own at start anyway.
            for (std::uint32_t r = 0; r < g.nranks; ++r) {
              new (base + kControlOffset + r * sizeof(RankControl)) RankControl{};
              new (base + introspection_offset(g.nranks) + r * sizeof(Introspection)) Introspection{};
            }
          }};
}

RanksLayout::RanksLayout(const Region& region, std::uint32_t nranks) {
  const Header& h = region_header<Header>(region, kName);
  const bool consistent = h.nranks == nranks && h.introspection_bytes == sizeof(Introspection) &&
                          h.waiting_offset == kWaitingOffset && h.control_offset == kControlOffset &&
                          h.introspection_offset == introspection_offset(nranks) && bytes_for(nranks) <= region.bytes;
  if (!consistent) {
    throw SegmentError("the segment's region " + std::string(kName) + " does not match a job of " +
                       std::to_string(nranks) + " ranks");
  }
  waiting_ = reinterpret_cast<NodeWaiting*>(region.base + h.waiting_offset);
  control_ = reinterpret_cast<RankControl*>(region.base + h.control_offset);
  introspection_ = reinterpret_cast<Introspection*>(region.base + h.introspection_offset);
}

}  // namespace mpf::shm
