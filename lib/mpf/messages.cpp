// Sending and receiving: mpf_send, mpf_receive, mpf_check_receive. The
// queue operations are the runtime's (conversation/table.hpp); here they
// wait in the progress engine, so a process waiting for a message also
// serves its MPI traffic, and sleeps until a sender wakes it.
#include <mpf.h>

#include <cstdio>
#include <exception>
#include <optional>

#include "common/memory_copy.hpp"
#include "mpf/state.hpp"
#include "shm/counters.hpp"
#include "shm/node_memory.hpp"

namespace mpf::api {
namespace {

using conversation::Found;
using conversation::Record;
using conversation::Waiting;

shm::RankCounters& counters() { return core::Runtime::instance().control()->counters; }

// Waits in the engine until `ready()`, shown as `function` waiting on the
// connection's conversation for `what`; `which` says what wakes it.
template <class Ready>
void wait_on(const conversation::Connection& k, Waiting which, conversation::ConversationWait what,
             const char* function, Ready&& ready) {
  conversation::Table& table = *state().table;
  auto look = [&] {
    table.want(k.conversation, which);
    return ready();
  };
  progress::BlockedCall call =
      progress::BlockedCall::conversation(progress::kAnySource, static_cast<std::int32_t>(k.conversation),
                                          k.role | (static_cast<std::uint32_t>(what) << 8), function);
  // With more processes than CPUs, yield at once (for yield_us, then
  // sleep): a conversation's partners take turns on the CPUs, and a sleeper
  // costs its waker a futex call and itself a wake-up per message (a
  // BROADCAST to 15 receivers on 2 CPUs delivered 2.4x more so).
  call.crowd = core::Runtime::instance().oversubscribed();
  core::Runtime::instance().engine().wait_until(look, call);
  table.unwant(k.conversation, which);
}

// The next message for receive connection k, or nothing.
Found look(conversation::Connection& k, std::uint64_t capacity) {
  conversation::Table& table = *state().table;
  return k.role == conversation::kRoleFcfs ? table.take_fcfs(k.conversation, capacity)
                                           : table.next_broadcast(k, capacity);
}

Waiting waiting_of(const conversation::Connection& k) {
  return k.role == conversation::kRoleFcfs ? Waiting::fcfs : Waiting::broadcast;
}

// A message that stayed in its sender's buffer: one copy with Cross Memory
// Attach, or from the copy the sender stages in node memory when that is
// refused (or rndv_mode=copy).
int read_direct(const conversation::Connection& k, Record& r, void* to) {
  core::Runtime& rt = core::Runtime::instance();
  if ((r.flags.load(std::memory_order_acquire) & conversation::kWantStaged) == 0) {
    const common::Status status =
        rt.transport().get(static_cast<std::uint32_t>(r.sender), to, transport::RemoteMemory{r.address, 0}, 0, r.bytes);
    if (status == common::Status::done) return MPF_SUCCESS;
    if (status == common::Status::error) return MPF_ERR_INTERN;  // reported on stderr by the transport
    r.flags.fetch_or(conversation::kWantStaged, std::memory_order_seq_cst);
    rt.transport().wake(static_cast<std::uint32_t>(r.sender));
  }
  wait_on(k, waiting_of(k), conversation::ConversationWait::message, "mpf_receive",
          [&] { return r.staged.load(std::memory_order_acquire) != 0; });
  if (r.staged.load(std::memory_order_relaxed) == conversation::kStagingFailed) {
    std::fprintf(stderr,
                 "mpf_receive (rank %u): a message of %llu bytes from rank %d, too large for the queue "
                 "(mpf_queue_bytes), could not be read: Cross Memory Attach is refused and the sender could not "
                 "stage a copy (it said why)\n",
                 rt.job().rank, static_cast<unsigned long long>(r.bytes), r.sender);
    return MPF_ERR_INTERN;
  }
  try {
    const shm::NodeMemory staged = shm::NodeMemory::open(rt.segment(), r.staged.load(std::memory_order_relaxed), false);
    common::copy_memory(static_cast<std::byte*>(to), staged.data(), r.bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpf_receive (rank %u): %s\n", rt.job().rank, e.what());
    return MPF_ERR_INTERN;
  }
  return MPF_SUCCESS;
}

// A direct message's sender waits for its readers, staging a copy in node
// memory for readers that cannot reach its buffer.
int await_readers(const conversation::Connection& k, Record& r, const void* buf) {
  core::Runtime& rt = core::Runtime::instance();
  conversation::Table& table = *state().table;
  std::optional<shm::NodeMemory> staged;
  int rc = MPF_SUCCESS;
  auto stage = [&] {
    try {
      staged.emplace(shm::NodeMemory::create(rt.segment(), rt.job().rank, "mpf.message", r.bytes));
      common::copy_memory(staged->data(), static_cast<const std::byte*>(buf), r.bytes);
      r.staged.store(staged->id(), std::memory_order_release);
      table.wake_readers(k.conversation, r);
    } catch (const std::exception& e) {
      // Its readers cannot have the message: they give up, and so do we.
      std::fprintf(stderr, "mpf_send (rank %u): %s\n", rt.job().rank, e.what());
      rc = MPF_ERR_RESOURCES;
      r.staged.store(conversation::kStagingFailed, std::memory_order_release);
      table.wake_readers(k.conversation, r);
    }
  };
  if (state().stage_direct) {
    r.flags.fetch_or(conversation::kWantStaged, std::memory_order_relaxed);
    stage();
  }
  table.publish(k.conversation, r);
  wait_on(k, Waiting::senders, conversation::ConversationWait::readers, "mpf_send", [&] {
    if (!staged && rc == MPF_SUCCESS && (r.flags.load(std::memory_order_acquire) & conversation::kWantStaged) != 0) {
      stage();
    }
    return r.refs.load(std::memory_order_acquire) == 1;
  });
  table.drop_sender(k.conversation, r);
  return rc;
}

}  // namespace
}  // namespace mpf::api

using namespace mpf::api;

extern "C" {

int mpf_send(mpf_lnvc_t lnvc, const void* buf, size_t bytes) {
  if (!initialized()) return MPF_ERR_NOT_INITIALIZED;
  ConnectionSlot* slot = slot_of(lnvc);
  if (slot == nullptr) return MPF_ERR_HANDLE;
  if (slot->connection.role != mpf::conversation::kRoleSend) return MPF_ERR_ROLE;
  if (buf == nullptr && bytes > 0) return MPF_ERR_ARG;
  const mpf::conversation::Connection& k = slot->connection;
  mpf::conversation::Table& table = *state().table;
  const auto address = reinterpret_cast<std::uint64_t>(buf);
  mpf::conversation::Reservation r = table.try_reserve(k.conversation, bytes, address);
  if (r.record == nullptr) {
    mpf::shm::count(counters().mpf_full_waits);
    wait_on(k, Waiting::senders, mpf::conversation::ConversationWait::room, "mpf_send", [&] {
      r = table.try_reserve(k.conversation, bytes, address);
      return r.record != nullptr;
    });
  }
  int rc = MPF_SUCCESS;
  if (table.direct(bytes)) {
    rc = await_readers(k, *r.record, buf);
  } else {
    table.copy_in(k.conversation, r, buf, bytes);
    table.publish(k.conversation, *r.record);
  }
  mpf::shm::count(counters().mpf_sent);
  mpf::shm::count(counters().mpf_sent_bytes, bytes);
  return rc;
}

int mpf_receive(mpf_lnvc_t lnvc, void* buf, size_t* bytes) {
  if (!initialized()) return MPF_ERR_NOT_INITIALIZED;
  ConnectionSlot* slot = slot_of(lnvc);
  if (slot == nullptr) return MPF_ERR_HANDLE;
  if (slot->connection.role == mpf::conversation::kRoleSend) return MPF_ERR_ROLE;
  if (bytes == nullptr || (buf == nullptr && *bytes > 0)) return MPF_ERR_ARG;
  mpf::conversation::Connection& k = slot->connection;
  mpf::conversation::Table& table = *state().table;
  const std::uint64_t capacity = *bytes;
  Found f = look(k, capacity);
  if (f.what == Found::What::nothing) {
    wait_on(k, waiting_of(k), mpf::conversation::ConversationWait::message, "mpf_receive", [&] {
      f = look(k, capacity);
      return f.what != Found::What::nothing;
    });
  }
  Record& r = *f.record;
  if (f.what == Found::What::too_long) {
    *bytes = r.bytes;
    return MPF_ERR_TRUNCATE;
  }
  // Taken before its sender finished writing it: wait for the rest.
  if (r.ready.load(std::memory_order_acquire) == 0) {
    wait_on(k, waiting_of(k), mpf::conversation::ConversationWait::message, "mpf_receive",
            [&] { return r.ready.load(std::memory_order_acquire) != 0; });
  }
  const std::uint64_t length = r.bytes;
  int rc = MPF_SUCCESS;
  if ((r.flags.load(std::memory_order_relaxed) & mpf::conversation::kDirect) != 0) {
    rc = read_direct(k, r, buf);
  } else {
    table.copy_out(k.conversation, f, buf);
  }
  table.finish_read(k.conversation, r);
  if (k.role == mpf::conversation::kRoleBroadcast) table.advance(k, f);
  *bytes = length;
  mpf::shm::count(counters().mpf_received);
  mpf::shm::count(counters().mpf_received_bytes, length);
  return rc;
}

int mpf_check_receive(mpf_lnvc_t lnvc) {
  if (!initialized()) return MPF_ERR_NOT_INITIALIZED;
  ConnectionSlot* slot = slot_of(lnvc);
  if (slot == nullptr) return MPF_ERR_HANDLE;
  if (slot->connection.role == mpf::conversation::kRoleSend) return MPF_ERR_ROLE;
  mpf::core::Runtime::instance().engine().progress();
  return state().table->has_message(slot->connection) ? 1 : 0;
}

}  // extern "C"
