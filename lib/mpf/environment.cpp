// Joining and leaving the job, and the error texts.
#include <mpf.h>

#include <cstdio>
#include <exception>

#include "mpf/state.hpp"

namespace mpf::api {

ProcessState& state() {
  static ProcessState s;
  return s;
}

}  // namespace mpf::api

using mpf::api::state;
using mpf::core::Api;
using mpf::core::Runtime;

extern "C" {

int mpf_init(int*, char***) {
  Runtime& rt = Runtime::instance();
  if (rt.joined(Api::mpf) || rt.left(Api::mpf)) return MPF_ERR_INITIALIZED;
  try {
    rt.join(Api::mpf);
    const mpf::conversation::TableView view(
        rt.segment().region(mpf::conversation::kRegionName, mpf::conversation::kVersion));
    state().table.emplace(view, rt.job().rank, state().wakes);
    state().stage_direct = rt.tunables().text(mpf::common::Tunable::rndv_mode) == "copy";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpf_init: %s\n", e.what());
    return MPF_ERR_INTERN;
  }
  return MPF_SUCCESS;
}

int mpf_finalize(void) {
  if (!mpf::api::initialized()) return MPF_ERR_NOT_INITIALIZED;
  // Collective: connections close once every process of the job has
  // arrived, so messages sent just before a sender's mpf_finalize reach
  // receivers that were still to join or to read them.
  mpf::conversation::Table& table = *state().table;
  table.arrive_at_finalize();
  Runtime::instance().engine().wait_until(
      [&] { return table.all_arrived(); },
      mpf::progress::BlockedCall::finalize(mpf::progress::WaitApi::mpf, "mpf_finalize"));
  for (std::size_t i = 0; i < state().connections.size(); ++i) {
    const mpf::api::ConnectionSlot& slot = state().connections[i];
    if (!slot.open) continue;
    if (slot.connection.role == mpf::conversation::kRoleSend) {
      mpf_close_send(static_cast<mpf_lnvc_t>(i));
    } else {
      mpf_close_receive(static_cast<mpf_lnvc_t>(i));
    }
  }
  try {
    Runtime::instance().leave(Api::mpf, "mpf_finalize");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpf_finalize: %s\n", e.what());
    return MPF_ERR_INTERN;
  }
  return MPF_SUCCESS;
}

int mpf_rank(void) {
  if (!mpf::api::initialized()) return MPF_ERR_NOT_INITIALIZED;
  return static_cast<int>(Runtime::instance().job().rank);
}

int mpf_size(void) {
  if (!mpf::api::initialized()) return MPF_ERR_NOT_INITIALIZED;
  return static_cast<int>(Runtime::instance().job().size);
}

const char* mpf_error_string(int error) {
  switch (error) {
    case MPF_SUCCESS:
      return "success";
    case MPF_ERR_NOT_INITIALIZED:
      return "MPF is not initialised: call mpf_init first (and nothing after mpf_finalize)";
    case MPF_ERR_NAME:
      return "invalid conversation name: it must be 1 to 63 bytes (MPF_MAX_NAME)";
    case MPF_ERR_PROTOCOL:
      return "invalid protocol: use MPF_FCFS or MPF_BROADCAST, and only one of them per process on a conversation";
    case MPF_ERR_HANDLE:
      return "invalid conversation handle: never opened by this process, or closed";
    case MPF_ERR_ROLE:
      return "wrong role: mpf_send needs a send connection, mpf_receive and mpf_check_receive a receive "
             "connection, and each close its own kind";
    case MPF_ERR_TRUNCATE:
      return "message truncated: it is longer than the receive buffer; it stays queued and *bytes holds its length";
    case MPF_ERR_RESOURCES:
      return "out of resources: every conversation of the node's table is in use (raise the tunable "
             "mpf_conversations), or shared memory to stage a message larger than mpf_queue_bytes could not be had";
    case MPF_ERR_ARG:
      return "invalid argument: a NULL pointer where a buffer, a length or a handle must be";
    case MPF_ERR_INITIALIZED:
      return "MPF is already initialised (mpf_init is called once per process)";
    case MPF_ERR_INTERN:
      return "internal error: the runtime failed (the reason was printed on stderr)";
    default:
      return "unknown MPF error code";
  }
}

}  // extern "C"
