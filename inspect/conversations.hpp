// A job's MPF conversations as mpfinspect shows them, read from the node's
// conversation table (conversation/layout.hpp) without the ranks' help:
// each conversation's name, who is connected in which role, what is
// queued and for how long, and who waits on it.
#pragma once

#include <nlohmann/json.hpp>

#include "shm/segment.hpp"

namespace mpf::inspect {

// An empty array when the segment has no conversation table.
nlohmann::json conversations_json(const shm::Segment& segment, std::int64_t now_ns);

// "sender", "FCFS receiver", "BROADCAST receiver": the role a blocked
// rank's wait record names (its context's low byte).
const char* conversation_role(std::uint32_t context);
// "message", "room", "readers": what it waits for (conversation::ConversationWait).
const char* conversation_wait(std::uint32_t context);

}  // namespace mpf::inspect
