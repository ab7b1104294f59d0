// This process's MPF state: the node's conversation table and the
// connections it opened, by handle. Handles are indices that are never
// reused, so a closed handle stays recognisably closed.
#pragma once

#include <mpf.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "conversation/table.hpp"
#include "core/runtime.hpp"

namespace mpf::api {

struct ConnectionSlot {
  conversation::Connection connection;
  bool open = false;
};

class Wakes final : public conversation::Waker {
 public:
  void wake(std::uint32_t rank) override { core::Runtime::instance().transport().wake(rank); }
};

struct ProcessState {
  Wakes wakes;
  std::optional<conversation::Table> table;
  std::vector<ConnectionSlot> connections;
  // Open connections per (conversation, role): the rank's role in the
  // table ends with the last of them.
  std::map<std::pair<std::uint32_t, std::uint8_t>, std::uint32_t> per_role;
  // rndv_mode=copy: never read another process's memory (CMA); large
  // messages are staged in node memory instead.
  bool stage_direct = false;
};

ProcessState& state();

inline bool initialized() { return core::Runtime::instance().joined(core::Api::mpf); }

// The open connection `lnvc` names, or null (MPF_ERR_HANDLE).
inline ConnectionSlot* slot_of(mpf_lnvc_t lnvc) {
  ProcessState& s = state();
  if (lnvc < 0 || static_cast<std::size_t>(lnvc) >= s.connections.size()) return nullptr;
  ConnectionSlot& slot = s.connections[static_cast<std::size_t>(lnvc)];
  return slot.open ? &slot : nullptr;
}

}  // namespace mpf::api
