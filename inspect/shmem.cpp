#include "inspect/shmem.hpp"

#include <sys/uio.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "shm/node_memory.hpp"
#include "symmetric/layout.hpp"

namespace mpf::inspect {
namespace {

using symmetric::Area;

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

const char* area_name(Area a) { return a == Area::heap ? "heap" : a == Area::statics ? "static data" : "nowhere"; }

const char* comparison(std::uint8_t cmp) {
  static const char* const kNames[] = {"?", "==", "!=", ">", ">=", "<", "<="};
  return cmp <= 6 ? kNames[cmp] : "?";
}

// A word's bits as the number its type says.
nlohmann::json value_of(std::uint64_t bits, symmetric::ValueKind kind, std::uint8_t bytes) {
  if (kind == symmetric::ValueKind::floating) {
    if (bytes == 4) {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  const unsigned shift = 64 - 8 * static_cast<unsigned>(bytes);
  if (kind == symmetric::ValueKind::signed_integer) {
    return shift == 0 ? static_cast<std::int64_t>(bits) : static_cast<std::int64_t>(bits << shift) >> shift;
  }
  return shift == 0 ? bits : bits & (~std::uint64_t{0} >> shift);
}

// The `bytes` at symmetric `ref` of PE `pe`: from the heaps, or from the
// PE's process for static data (null when the kernel does not let us).
std::optional<std::uint64_t> read_word(const symmetric::Layout& layout, std::uint64_t ref, std::uint32_t pe,
                                       std::uint8_t bytes) {
  std::uint64_t bits = 0;
  const std::uint64_t offset = symmetric::offset_of(ref);
  if (symmetric::area_of(ref) == Area::heap) {
    if (offset + bytes > layout.heap_bytes()) return std::nullopt;
    std::memcpy(&bits, layout.heap(pe) + offset, bytes);
    return bits;
  }
  if (symmetric::area_of(ref) != Area::statics) return std::nullopt;
  const symmetric::PeState& s = layout.pe(pe);
  iovec local{&bits, bytes};
  iovec remote{reinterpret_cast<void*>(s.static_base + offset), bytes};
  if (::process_vm_readv(s.pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes)) return std::nullopt;
  return bits;
}

nlohmann::json place(std::uint64_t ref) {
  return {{"area", area_name(symmetric::area_of(ref))}, {"offset", symmetric::offset_of(ref)}};
}

// The PE that holds the lock at `ref`, or -1.
int lock_holder(const symmetric::Layout& layout, std::uint64_t ref) {
  for (std::uint32_t p = 0; p < layout.npes(); ++p) {
    for (const auto& held : layout.pe(p).held_locks) {
      if (held.load(std::memory_order_relaxed) == ref) return static_cast<int>(p);
    }
  }
  return -1;
}

nlohmann::json wait_json(const symmetric::Layout& layout, std::uint32_t pe, const symmetric::PeWait& w) {
  nlohmann::json j = place(w.ref);
  j["address"] = hex(w.address);
  if (w.what == symmetric::WaitWhat::lock) {
    j["what"] = "lock";
    j["ticket"] = w.value;
    const std::optional<std::uint64_t> word = read_word(layout, w.ref, 0, 8);
    j["serving"] = word ? nlohmann::json(*word >> 32) : nlohmann::json(nullptr);
    j["held_by"] = lock_holder(layout, w.ref);
    return j;
  }
  j["what"] = w.what == symmetric::WaitWhat::signal ? "signal" : "wait_until";
  j["comparison"] = comparison(w.cmp);
  j["value"] = value_of(w.value, w.kind, w.bytes);
  j["words"] = w.count;
  const std::optional<std::uint64_t> now = read_word(layout, w.ref, pe, w.bytes);
  j["current"] = now ? value_of(*now, w.kind, w.bytes) : nlohmann::json(nullptr);
  return j;
}

}  // namespace

nlohmann::json add_shmem_state(const shm::Segment& segment, nlohmann::json& ranks) {
  std::optional<shm::NodeMemory> piece;
  for (const shm::NodeMemoryListing& m : shm::NodeMemory::list(segment)) {
    if (m.name != symmetric::kPieceName) continue;
    try {
      piece.emplace(shm::NodeMemory::open(segment, m.id, false));
    } catch (const shm::NodeMemoryError&) {
      return nullptr;  // finalized since it was listed
    }
    break;
  }
  if (!piece) return nullptr;
  symmetric::Layout layout;
  try {
    layout = symmetric::Layout(piece->data(), piece->bytes());
  } catch (const std::exception&) {
    return nullptr;
  }
  for (std::uint32_t p = 0; p < layout.npes() && p < ranks.size(); ++p) {
    nlohmann::json& rank = ranks[p];
    nlohmann::json held = nlohmann::json::array();
    for (const auto& slot : layout.pe(p).held_locks) {
      const std::uint64_t ref = slot.load(std::memory_order_relaxed);
      if (ref != 0) held.push_back(place(ref));
    }
    rank["shmem_locks_held"] = held;
    nlohmann::json& b = rank["blocked_in"];
    if (b.is_null() || b.value("kind", "") != "shmem_wait") continue;
    symmetric::PeWait w{};
    bool read = false;
    for (int tries = 0; tries < 1000 && !read; ++tries) read = layout.pe(p).wait.try_read(w);
    if (read && w.what != symmetric::WaitWhat::none) b["shmem"] = wait_json(layout, p, w);
  }
  return {{"heap_bytes", layout.heap_bytes()}, {"pes", layout.npes()}};
}

}  // namespace mpf::inspect
