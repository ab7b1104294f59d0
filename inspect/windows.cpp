#include "inspect/windows.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "rma/window_layout.hpp"
#include "shm/node_memory.hpp"

namespace mpf::inspect {
namespace {

const char* flavor_name(rma::Flavor f) {
  switch (f) {
    case rma::Flavor::create: return "create";
    case rma::Flavor::allocate: return "allocate";
    case rma::Flavor::dynamic: return "dynamic";
    case rma::Flavor::shared: return "shared";
  }
  return "unknown";
}

const char* memory_text(rma::Reach r) {
  switch (r) {
    case rma::Reach::direct: return "node memory, reached directly";
    case rma::Reach::cma: return "process memory, reached by Cross Memory Attach";
    case rma::Reach::via_target: return "process memory, reached through its engine (Cross Memory Attach is off)";
    case rma::Reach::none: break;
  }
  return "none";
}

const char* lock_name(std::uint32_t type) {
  return static_cast<rma::LockType>(type) == rma::LockType::exclusive ? "exclusive" : "shared";
}

nlohmann::json epochs_json(std::uint32_t bits) {
  nlohmann::json out = nlohmann::json::array();
  if (bits & rma::kEpochFence) out.push_back("fence");
  if (bits & rma::kEpochAccess) out.push_back("access");
  if (bits & rma::kEpochExposure) out.push_back("exposure");
  if (bits & rma::kEpochLockAll) out.push_back("lock_all");
  if (bits & rma::kEpochLocks) out.push_back("locks");
  return out;
}

struct Request {
  std::uint32_t ticket;
  nlohmann::json json;
};

nlohmann::json member_json(const rma::WindowLayout& w, std::uint32_t m, std::int64_t now) {
  const rma::MemberBlock& b = w.member(m);
  nlohmann::json holders = nlohmann::json::array();
  std::vector<Request> queued;
  nlohmann::json unapplied = nlohmann::json::array();
  for (std::uint32_t o = 0; o < w.members(); ++o) {
    const rma::LockSlot& s = w.lock_slot(m, o);
    const std::uint32_t state = s.state.load(std::memory_order_acquire);
    if (state == rma::kLockHeld || state == rma::kLockWaiting) {
      const std::int64_t since = s.since_ns.load(std::memory_order_relaxed);
      nlohmann::json r = {{"rank", w.member(o).world_rank},
                          {"type", lock_name(s.type.load(std::memory_order_relaxed))},
                          {"seconds", since > 0 ? static_cast<double>(now - since) * 1e-9 : 0.0}};
      if (state == rma::kLockHeld) {
        holders.push_back(r);
      } else {
        r["ticket"] = s.ticket.load(std::memory_order_relaxed);
        queued.push_back({s.ticket.load(std::memory_order_relaxed), r});
      }
    }
    const std::uint64_t sent = w.sent(m, o).load(std::memory_order_relaxed);
    const std::uint64_t done = w.done(m, o).load(std::memory_order_relaxed);
    if (sent > done) unapplied.push_back({{"origin", w.member(o).world_rank}, {"operations", sent - done}});
  }
  // The queue in the order it is served: by ticket.
  std::sort(queued.begin(), queued.end(), [](const Request& a, const Request& b) { return a.ticket < b.ticket; });
  nlohmann::json queue = nlohmann::json::array();
  for (const Request& r : queued) queue.push_back(r.json);
  char name[sizeof b.name + 1] = {};
  std::memcpy(name, b.name, sizeof b.name);
  nlohmann::json out = {{"rank", b.world_rank},
                        {"handle", b.handle},
                        {"bytes", b.size},
                        {"disp_unit", b.disp_unit},
                        {"memory", memory_text(static_cast<rma::Reach>(b.reach))},
                        {"epochs", epochs_json(b.epochs.load(std::memory_order_relaxed))},
                        {"locks_held", b.locks_held.load(std::memory_order_relaxed)},
                        {"operations", b.operations.load(std::memory_order_relaxed)},
                        {"lock", {{"holders", holders}, {"queued", queue}}},
                        {"unapplied", unapplied}};
  if (name[0] != '\0') out["name"] = name;
  if (w.flavor() == rma::Flavor::dynamic) out["attached_regions"] = b.regions.load(std::memory_order_relaxed);
  return out;
}

}  // namespace

nlohmann::json windows_json(const shm::Segment& segment, std::int64_t now) {
  nlohmann::json windows = nlohmann::json::array();
  for (const shm::NodeMemoryListing& piece : shm::NodeMemory::list(segment)) {
    if (piece.name != rma::kWindowMemoryName) continue;
    try {
      // Read-only: looking never changes a window. A window freed since
      // the listing is simply not shown.
      const shm::NodeMemory memory = shm::NodeMemory::open(segment, piece.id, false);
      const rma::WindowLayout w(memory.data(), memory.bytes());
      const rma::WindowHeader& h = w.header();
      nlohmann::json members = nlohmann::json::array();
      for (std::uint32_t m = 0; m < w.members(); ++m) members.push_back(member_json(w, m, now));
      windows.push_back({{"node_memory_id", piece.id},
                         {"context", h.context},
                         {"flavor", flavor_name(w.flavor())},
                         {"created_seconds_ago", static_cast<double>(now - h.created_ns) * 1e-9},
                         {"members", members}});
    } catch (const std::exception&) {
      continue;
    }
  }
  return windows;
}

}  // namespace mpf::inspect
