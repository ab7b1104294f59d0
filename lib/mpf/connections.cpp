// Joining and leaving conversations: mpf_open_send, mpf_open_receive,
// mpf_close_send, mpf_close_receive.
#include <mpf.h>

#include <cstring>
#include <string_view>

#include "mpf/state.hpp"

namespace mpf::api {
namespace {

int open(const char* name, std::uint8_t role, mpf_lnvc_t* lnvc) {
  if (!initialized()) return MPF_ERR_NOT_INITIALIZED;
  if (lnvc == nullptr) return MPF_ERR_ARG;
  if (name == nullptr) return MPF_ERR_NAME;
  const std::size_t length = ::strnlen(name, MPF_MAX_NAME + 1);
  if (length == 0 || length > MPF_MAX_NAME) return MPF_ERR_NAME;
  ProcessState& s = state();
  conversation::Connection connection;
  switch (s.table->open(std::string_view(name, length), role, connection)) {
    case conversation::OpenStatus::table_full:
      return MPF_ERR_RESOURCES;
    case conversation::OpenStatus::mixed_protocols:
      return MPF_ERR_PROTOCOL;
    case conversation::OpenStatus::opened:
      break;
  }
  ++s.per_role[{connection.conversation, role}];
  s.connections.push_back({connection, true});
  *lnvc = static_cast<mpf_lnvc_t>(s.connections.size() - 1);
  return MPF_SUCCESS;
}

int close(mpf_lnvc_t lnvc, bool receive) {
  if (!initialized()) return MPF_ERR_NOT_INITIALIZED;
  ConnectionSlot* slot = slot_of(lnvc);
  if (slot == nullptr) return MPF_ERR_HANDLE;
  if ((slot->connection.role != conversation::kRoleSend) != receive) return MPF_ERR_ROLE;
  ProcessState& s = state();
  auto count = s.per_role.find({slot->connection.conversation, slot->connection.role});
  const bool last = --count->second == 0;
  if (last) s.per_role.erase(count);
  s.table->close(slot->connection, last);
  slot->open = false;
  return MPF_SUCCESS;
}

}  // namespace
}  // namespace mpf::api

extern "C" {

int mpf_open_send(const char* name, mpf_lnvc_t* lnvc) {
  return mpf::api::open(name, mpf::conversation::kRoleSend, lnvc);
}

int mpf_open_receive(const char* name, int protocol, mpf_lnvc_t* lnvc) {
  if (!mpf::api::initialized()) return MPF_ERR_NOT_INITIALIZED;
  if (protocol != MPF_FCFS && protocol != MPF_BROADCAST) return MPF_ERR_PROTOCOL;
  return mpf::api::open(name, protocol == MPF_FCFS ? mpf::conversation::kRoleFcfs : mpf::conversation::kRoleBroadcast,
                        lnvc);
}

int mpf_close_send(mpf_lnvc_t lnvc) { return mpf::api::close(lnvc, false); }

int mpf_close_receive(mpf_lnvc_t lnvc) { return mpf::api::close(lnvc, true); }

}  // extern "C"
