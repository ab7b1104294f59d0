#include "rma/window_layout.hpp"

#include <new>
#include <stdexcept>
#include <string>

namespace mpf::rma {
namespace {

constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t to) { return (n + to - 1) / to * to; }

}  // namespace

// Each array starts on its own cache line, in the order of the file comment.
void WindowLayout::place(std::uint32_t members, Flavor flavor, std::uint32_t regions) {
  members_ = members;
  regions_ = flavor == Flavor::dynamic ? regions : 0;
  const std::uint64_t pairs = std::uint64_t{members} * members;
  std::uint64_t at = round_up(sizeof(WindowHeader), kLine);
  auto next = [&](std::uint64_t bytes) {
    const std::uint64_t here = at;
    at = round_up(at + bytes, kLine);
    return here;
  };
  fence_offset_ = next(sizeof(FenceCounters));
  members_offset_ = next(members * sizeof(MemberBlock));
  locks_offset_ = next(pairs * sizeof(LockSlot));
  posts_offset_ = next(pairs * sizeof(std::uint32_t));
  completes_offset_ = next(pairs * sizeof(std::uint32_t));
  sent_offset_ = next(pairs * sizeof(std::uint64_t));
  done_offset_ = next(pairs * sizeof(std::uint64_t));
  mailboxes_offset_ = next(pairs * sizeof(Mailbox));
  regions_offset_ = next(std::uint64_t{members} * regions_ * sizeof(Region));
  end_ = at;
}

std::uint64_t WindowLayout::control_bytes(std::uint32_t members, Flavor flavor, std::uint32_t regions) {
  WindowLayout l;
  l.place(members, flavor, regions);
  // The data starts on a page of its own: the members' parts are page
  // aligned (allocate) and first touched by their owners.
  return round_up(l.end_, 4096);
}

WindowLayout WindowLayout::create(std::byte* base, std::uint64_t bytes, std::uint32_t members, std::uint32_t context,
                                  Flavor flavor, std::uint32_t regions, std::uint32_t creator_handle,
                                  std::uint64_t data_bytes, std::int64_t now_ns) {
  auto* h = new (base) WindowHeader{};
  h->magic = kWindowMagic;
  h->version = kWindowVersion;
  h->members = members;
  h->context = context;
  h->flavor = static_cast<std::uint32_t>(flavor);
  h->creator_handle = creator_handle;
  h->regions = flavor == Flavor::dynamic ? regions : 0;
  h->data_offset = control_bytes(members, flavor, regions);
  h->data_bytes = data_bytes;
  h->created_ns = now_ns;
  WindowLayout l(base, bytes);
  new (&l.fence()) FenceCounters{};
  for (std::uint32_t m = 0; m < members; ++m) new (&l.member(m)) MemberBlock{};
  return l;
}

WindowLayout::WindowLayout(std::byte* base, std::uint64_t bytes) : base_(base) {
  if (bytes < sizeof(WindowHeader)) throw std::runtime_error("an RMA window's shared memory is too short");
  const WindowHeader& h = header();
  if (h.magic != kWindowMagic || h.version != kWindowVersion) {
    throw std::runtime_error("the shared memory is not an RMA window of version " + std::to_string(kWindowVersion));
  }
  const auto flavor = static_cast<Flavor>(h.flavor);
  if (h.members == 0 || h.flavor < 1 || h.flavor > 4) throw std::runtime_error("an RMA window's header is damaged");
  place(h.members, flavor, h.regions);
  if (h.data_offset < end_ || h.data_offset + h.data_bytes > bytes) {
    throw std::runtime_error("an RMA window of " + std::to_string(h.members) + " members needs more than its " +
                             std::to_string(bytes) + " bytes");
  }
}

}  // namespace mpf::rma
