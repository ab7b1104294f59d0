#include "inspect/conversations.hpp"

#include <cstring>
#include <string>
#include <vector>

#include "conversation/layout.hpp"

namespace mpf::inspect {
namespace {

nlohmann::json ranks_with(const conversation::TableView& view, std::uint32_t c, std::uint8_t role) {
  nlohmann::json ranks = nlohmann::json::array();
  const std::atomic<std::uint8_t>* roles = view.roles(c);
  for (std::uint32_t r = 0; r < view.header().nranks; ++r) {
    if ((roles[r].load(std::memory_order_relaxed) & role) != 0) ranks.push_back(r);
  }
  return ranks;
}

nlohmann::json waiting(const conversation::TableView& view, std::uint32_t c, conversation::Waiting which) {
  nlohmann::json ranks = nlohmann::json::array();
  const std::atomic<std::uint64_t>* words = view.waiting(c, which);
  for (std::uint32_t w = 0; w < view.header().bitmap_words; ++w) {
    std::uint64_t bits = words[w].load(std::memory_order_relaxed);
    while (bits != 0) {
      ranks.push_back(w * 64 + static_cast<std::uint32_t>(__builtin_ctzll(bits)));
      bits &= bits - 1;
    }
  }
  return ranks;
}

}  // namespace

const char* conversation_role(std::uint32_t context) {
  switch (context & 0xff) {
    case conversation::kRoleSend:
      return "sender";
    case conversation::kRoleFcfs:
      return "FCFS receiver";
    case conversation::kRoleBroadcast:
      return "BROADCAST receiver";
  }
  return "connection";
}

const char* conversation_wait(std::uint32_t context) {
  switch (static_cast<conversation::ConversationWait>(context >> 8)) {
    case conversation::ConversationWait::message:
      return "message";
    case conversation::ConversationWait::room:
      return "room";
    case conversation::ConversationWait::readers:
      return "readers";
  }
  return "unknown";
}

nlohmann::json conversations_json(const shm::Segment& segment, std::int64_t now) {
  nlohmann::json out = nlohmann::json::array();
  const std::optional<shm::Region> region = segment.find_region(conversation::kRegionName, conversation::kVersion);
  if (!region) return out;
  const conversation::TableView view(*region);
  for (std::uint32_t c = 0; c < view.conversations(); ++c) {
    const conversation::Entry& e = view.entry(c);
    if (e.state.load(std::memory_order_acquire) != conversation::EntryState::live) continue;
    char name[conversation::kNameBytes + 1] = {};
    std::memcpy(name, e.name, conversation::kNameBytes);
    const std::uint64_t messages = e.messages.load(std::memory_order_relaxed);
    nlohmann::json entry = {
        {"id", c},
        {"name", name},
        {"generation", e.generation},
        {"connections",
         {{"senders", e.senders.load(std::memory_order_relaxed)},
          {"fcfs_receivers", e.fcfs.load(std::memory_order_relaxed)},
          {"broadcast_receivers", e.broadcast.load(std::memory_order_relaxed)}}},
        {"senders", ranks_with(view, c, conversation::kRoleSend)},
        {"fcfs_receivers", ranks_with(view, c, conversation::kRoleFcfs)},
        {"broadcast_receivers", ranks_with(view, c, conversation::kRoleBroadcast)},
        {"queued_messages", messages},
        {"queued_bytes", e.bytes.load(std::memory_order_relaxed)},
        {"queue_used_bytes",
         e.write_pos.load(std::memory_order_relaxed) - e.release_pos.load(std::memory_order_relaxed)},
        {"queue_bytes", view.queue_bytes()},
        {"fcfs_waiting", e.fcfs_pos.load(std::memory_order_relaxed) != e.write_pos.load(std::memory_order_relaxed)},
        {"sent", e.sent.load(std::memory_order_relaxed)},
        {"age_seconds", static_cast<double>(now - static_cast<std::int64_t>(e.created_ns.load())) * 1e-9},
        {"waiting_receivers", waiting(view, c, conversation::Waiting::fcfs)},
        {"waiting_broadcast_receivers", waiting(view, c, conversation::Waiting::broadcast)},
        {"waiting_senders", waiting(view, c, conversation::Waiting::senders)},
    };
    // The oldest record still held: its page is in memory, as it holds a
    // message (reading a page never written would allocate it).
    if (messages > 0) {
      const conversation::Record& oldest = view.record(c, e.release_pos.load(std::memory_order_relaxed));
      entry["oldest_message_seconds"] = static_cast<double>(now - static_cast<std::int64_t>(oldest.sent_ns)) * 1e-9;
    } else {
      entry["oldest_message_seconds"] = nullptr;
    }
    out.push_back(entry);
  }
  return out;
}

}  // namespace mpf::inspect
