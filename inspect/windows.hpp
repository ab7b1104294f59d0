// A job's RMA windows as mpfinspect shows them, read from their shared part
// in node memory (rma/window_layout.hpp) without the ranks' help: each
// member's memory and how origins reach it, its epochs, the lock requests
// held and queued at it with their ages, and the operations its engine
// has still to apply for origins.
#pragma once

#include <nlohmann/json.hpp>

#include "shm/segment.hpp"

namespace mpf::inspect {

nlohmann::json windows_json(const shm::Segment& segment, std::int64_t now_ns);

}  // namespace mpf::inspect
