#include "mpi/win_via_target.hpp"

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "core/context_space.hpp"
#include "core/internal_p2p.hpp"
#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/reduce_ops.hpp"
#include "mpi/win_accumulate.hpp"
#include "mpi/win_mailbox.hpp"
#include "mpi/win_wait.hpp"
#include "rma/element_ops.hpp"
#include "shm/counters.hpp"

namespace mpf::mpi {
namespace {

constexpr std::int32_t kRequestTag = 0;  // answers use tags from 1 on

enum class Kind : std::uint32_t { put = 1, get = 2, accumulate = 3, compare_and_swap = 4 };

// The message an origin sends: this header, the target datatype's layout
// when the target has not seen it (a LayoutHeader and its blocks), then
// the data.
struct RequestHeader {
  Kind kind;
  std::int32_t op;          // accumulate: the MPI_Op
  std::uint64_t offset;     // the target's data, from its base (dynamic: the address)
  std::int32_t count;       // of the target datatype
  std::int32_t type;        // the origin's handle of it
  std::int32_t element;     // accumulate: the predefined type it is made of
  std::int32_t reply_tag;   // 0: no answer
  std::uint32_t blocks;     // > 0: its layout follows
  std::uint32_t fetch;      // accumulate: answer with the old values
  std::uint64_t data_bytes;
};

struct LayoutHeader {
  std::uint64_t size;
  std::int64_t lb, ub, true_lb, true_ub;
  std::uint32_t contiguous;
  std::int32_t basic;
};

std::uint32_t rma_context(const Window& w) { return comm_of(w.comm).context | core::kRmaContextBit; }

core::Runtime& runtime() { return core::Runtime::instance(); }
progress::Engine& engine() { return runtime().engine(); }
shm::RankCounters& counters() { return runtime().control()->counters; }

// ---- the origin's side ---------------------------------------------------------

// An operation on its way: the request message, and the answer expected.
struct Pending {
  int target = 0;
  progress::Request* send = nullptr;
  progress::Request* answer = nullptr;
  std::vector<std::byte> message;  // what `send` sends, kept until it is out
  std::vector<std::byte> staging;  // the answer, packed, when it lands in a non-contiguous buffer
  std::shared_ptr<const TypeInfo> into_type;
  std::byte* into = nullptr;
  std::uint64_t into_bytes = 0;
};

std::map<MPI_Win, std::deque<Pending>>& pending() {
  static std::map<MPI_Win, std::deque<Pending>> table;
  return table;
}

// Datatypes whose layout a target has: (target world rank, handle).
std::set<std::pair<std::uint32_t, MPI_Datatype>>& layouts_sent() {
  static std::set<std::pair<std::uint32_t, MPI_Datatype>> sent;
  return sent;
}

std::int32_t next_answer_tag() {
  static std::int32_t tag = 0;
  tag = tag >= (1 << 30) ? 1 : tag + 1;
  return tag;
}

// Sends one operation to `target`'s engine; its answer (when `answered`,
// `answer_bytes` of it) lands in `into` as `into_type`.
void send_operation(Window& w, int target, RequestHeader h, MPI_Datatype target_type, const std::byte* data,
                    std::uint64_t bytes, bool answered, std::byte* into, MPI_Datatype into_type,
                    std::uint64_t answer_bytes) {
  const WinTarget& t = w.targets[static_cast<std::size_t>(target)];
  const TypeInfo& type = *find_type(target_type);
  const bool named = type.predefined && target_type < kFirstDerivedType;
  const bool layout = !named && layouts_sent().insert({t.world, target_type}).second;
  h.type = target_type;
  h.blocks = layout ? static_cast<std::uint32_t>(type.blocks.size()) : 0;
  h.data_bytes = bytes;
  Pending p;
  p.target = target;
  p.message.resize(sizeof h + (layout ? sizeof(LayoutHeader) + type.blocks.size() * sizeof(Block) : 0) + bytes);
  std::byte* at = p.message.data() + sizeof h;
  if (layout) {
    const LayoutHeader l{type.size, type.lb, type.ub, type.true_lb, type.true_ub, type.contiguous ? 1u : 0u,
                         type.basic};
    std::memcpy(at, &l, sizeof l);
    at += sizeof l;
    std::memcpy(at, type.blocks.data(), type.blocks.size() * sizeof(Block));
    at += type.blocks.size() * sizeof(Block);
    shm::count(counters().rma_types_sent);
  }
  if (bytes > 0) std::memcpy(at, data, bytes);
  const std::uint32_t context = rma_context(w);
  const auto peer = static_cast<std::int32_t>(t.world);
  if (answered) {
    const TypeInfo* it = find_type(into_type);
    std::byte* land = into;
    if (!it->contiguous) {
      p.staging.resize(answer_bytes);
      land = p.staging.data();
      p.into_type = share_type(into_type);
      p.into = into;
      p.into_bytes = answer_bytes;
    }
    h.reply_tag = next_answer_tag();
    p.answer = core::start_internal(false, peer, context, h.reply_tag, land, answer_bytes);
  }
  std::memcpy(p.message.data(), &h, sizeof h);
  // Counted before it can arrive: the target looks for requests when its
  // member block says more were asked than it served.
  rma::MemberBlock& m = w.member(target);
  std::atomic<std::uint64_t>& sent = w.layout.sent(static_cast<std::uint32_t>(target), static_cast<std::uint32_t>(w.rank));
  sent.store(sent.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  m.asked.fetch_add(1, std::memory_order_release);
  ++w.sent_via_target;
  p.send = core::start_internal(true, peer, context, kRequestTag, p.message.data(), p.message.size());
  pending()[w.handle].push_back(std::move(p));
}

// Frees what is done of the operations on their way to `target` (-1: any);
// true when none is left.
bool settle(Window& w, int target) {
  auto it = pending().find(w.handle);
  if (it == pending().end()) return true;
  std::deque<Pending>& list = it->second;
  bool left = false;
  for (auto p = list.begin(); p != list.end();) {
    const bool mine = target < 0 || p->target == target;
    const bool done = p->send->done() && (p->answer == nullptr || p->answer->done());
    if (!mine || !done) {
      left = left || mine;
      ++p;
      continue;
    }
    if (p->into_type) unpack(*p->into_type, p->staging.data(), p->into_bytes, p->into);
    engine().free_request(p->send);
    if (p->answer != nullptr) engine().free_request(p->answer);
    p = list.erase(p);
  }
  if (list.empty()) pending().erase(it);
  return !left;
}

// ---- the target's side -----------------------------------------------------------

// Layouts origins sent, by (origin world rank, the origin's handle).
std::map<std::pair<std::uint32_t, MPI_Datatype>, std::shared_ptr<TypeInfo>>& cached_layouts() {
  static std::map<std::pair<std::uint32_t, MPI_Datatype>, std::shared_ptr<TypeInfo>> cache;
  return cache;
}

// An answer on its way, with the bytes it sends.
struct Answer {
  progress::Request* send;
  std::vector<std::byte> bytes;
};
std::deque<Answer>& answers() {
  static std::deque<Answer> list;
  return list;
}

// A request being received (a large one arrives over several rounds).
struct Arriving {
  MPI_Win window = MPI_WIN_NULL;
  progress::Request* receive = nullptr;
  std::vector<std::byte> message;
};
Arriving& arriving() {
  static Arriving a;
  return a;
}

void answer(const Window& w, std::uint32_t origin_world, std::int32_t tag, std::vector<std::byte> bytes) {
  Answer a{nullptr, std::move(bytes)};
  a.send = core::start_internal(true, static_cast<std::int32_t>(origin_world), rma_context(w), tag, a.bytes.data(),
                                a.bytes.size());
  answers().push_back(std::move(a));
}

// Applies one request from `origin_world`.
void apply(Window& w, std::uint32_t origin_world, const std::vector<std::byte>& message) {
  RequestHeader h;
  std::memcpy(&h, message.data(), sizeof h);
  const std::byte* at = message.data() + sizeof h;
  std::shared_ptr<const TypeInfo> type;
  if (h.type < kFirstDerivedType) {
    type = share_type(h.type);
  } else if (h.blocks > 0) {
    LayoutHeader l;
    std::memcpy(&l, at, sizeof l);
    at += sizeof l;
    auto t = std::make_shared<TypeInfo>();
    t->size = l.size;
    t->lb = l.lb;
    t->ub = l.ub;
    t->true_lb = l.true_lb;
    t->true_ub = l.true_ub;
    t->contiguous = l.contiguous != 0;
    t->basic = l.basic;
    t->committed = true;
    t->blocks.resize(h.blocks);
    std::memcpy(t->blocks.data(), at, h.blocks * sizeof(Block));
    at += h.blocks * sizeof(Block);
    cached_layouts()[{origin_world, h.type}] = t;
    type = t;
  } else {
    type = cached_layouts().at({origin_world, h.type});
    shm::count(counters().rma_type_cache_hits);
  }
  const std::byte* data = at;
  std::byte* base = w.flavor == rma::Flavor::dynamic ? reinterpret_cast<std::byte*>(h.offset)
                                                     : static_cast<std::byte*>(w.base) + h.offset;
  const auto count = static_cast<std::uint64_t>(h.count);
  const std::uint64_t bytes = count * type->size;
  std::atomic<std::uint32_t>& lock = w.member(w.rank).accumulate_lock;
  switch (h.kind) {
    case Kind::put: unpack(*type, data, bytes, base); break;
    case Kind::get: {
      std::vector<std::byte> out(bytes);
      pack(*type, base, count, out.data());
      answer(w, origin_world, h.reply_tag, std::move(out));
      break;
    }
    case Kind::accumulate: {
      const coll::Combine combine = combine_of(h.op, h.element);
      std::vector<std::byte> old(h.fetch != 0 ? bytes : 0);
      {
        const rma::AccumulateLockGuard guard(lock);
        accumulate_in_place(base, *type, count, data, h.fetch != 0 ? old.data() : nullptr, combine);
      }
      if (h.fetch != 0) answer(w, origin_world, h.reply_tag, std::move(old));
      break;
    }
    case Kind::compare_and_swap: {
      const std::size_t n = type->size;
      std::vector<std::byte> old(n);
      {
        const rma::AccumulateLockGuard guard(lock);
        std::memcpy(old.data(), base, n);
        if (std::memcmp(base, data + n, n) == 0) std::memcpy(base, data, n);  // data: origin, then compare
      }
      answer(w, origin_world, h.reply_tag, std::move(old));
      break;
    }
  }
  shm::count(counters().rma_applied);
  // Counted, then the origin woken: it may wait for this count.
  const Communicator& c = comm_of(w.comm);
  const std::int32_t origin = c.rank_of[origin_world];
  std::atomic<std::uint64_t>& done = w.layout.done(static_cast<std::uint32_t>(w.rank), static_cast<std::uint32_t>(origin));
  done.store(done.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  runtime().transport().wake(origin_world);
}

// The progress hook: applies what has arrived, one request at a time in
// the order each origin sent them.
void serve() {
  static bool serving = false;  // the engine calls hooks from inside progress(); do not nest
  if (serving) return;
  serving = true;
  for (const auto& slot : window_table()) {
    if (slot != nullptr) serve_mailboxes(*slot);
  }
  while (!answers().empty() && answers().front().send->done()) {
    engine().free_request(answers().front().send);
    answers().pop_front();
  }
  Arriving& a = arriving();
  if (a.receive != nullptr) {
    if (!a.receive->done()) {
      serving = false;
      return;
    }
    if (Window* w = find_win(a.window)) apply(*w, static_cast<std::uint32_t>(a.receive->status.source), a.message);
    engine().free_request(a.receive);
    a.receive = nullptr;
  }
  for (const auto& slot : window_table()) {
    if (slot == nullptr) continue;
    Window& w = *slot;
    const std::uint64_t asked = w.member(w.rank).asked.load(std::memory_order_acquire);
    while (w.served < asked) {
      match::UnexpectedMessage* m = engine().claim(progress::kAnySource, kRequestTag, rma_context(w));
      if (m == nullptr) break;  // counted, not arrived yet
      ++w.served;
      a.message.assign(m->bytes, std::byte{0});
      progress::Request* r = engine().new_request();
      r->peer = static_cast<std::int32_t>(m->source);
      r->tag = kRequestTag;
      r->context = rma_context(w);
      r->buffer = a.message.data();
      r->bytes = a.message.size();
      engine().receive_claimed(r, m);
      if (!r->done()) {
        a.window = w.handle;
        a.receive = r;
        serving = false;
        return;
      }
      apply(w, static_cast<std::uint32_t>(r->status.source), a.message);
      engine().free_request(r);
    }
  }
  serving = false;
}

}  // namespace

int put_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                   const std::byte* data, std::uint64_t bytes) {
  RequestHeader h{};
  h.kind = Kind::put;
  h.offset = offset;
  h.count = target_count;
  send_operation(w, target, h, target_type, data, bytes, false, nullptr, MPI_BYTE, 0);
  return MPI_SUCCESS;
}

int get_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                   std::byte* out, MPI_Datatype origin_type, int origin_count) {
  RequestHeader h{};
  h.kind = Kind::get;
  h.offset = offset;
  h.count = target_count;
  const std::uint64_t bytes = static_cast<std::uint64_t>(origin_count) * find_type(origin_type)->size;
  send_operation(w, target, h, target_type, nullptr, 0, true, out, origin_type, bytes);
  return MPI_SUCCESS;
}

int accumulate_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype target_type, int target_count,
                          const std::byte* data, std::uint64_t bytes, MPI_Op op, std::byte* result,
                          MPI_Datatype result_type, int result_count) {
  RequestHeader h{};
  h.kind = Kind::accumulate;
  h.op = op;
  h.offset = offset;
  h.count = target_count;
  const TypeInfo& t = *find_type(target_type);
  h.element = t.predefined && t.basic == MPI_DATATYPE_NULL ? target_type : t.basic;
  h.fetch = result != nullptr ? 1 : 0;
  if (result == nullptr) {
    send_operation(w, target, h, target_type, data, bytes, false, nullptr, MPI_BYTE, 0);
  } else {
    const std::uint64_t answer = static_cast<std::uint64_t>(result_count) * find_type(result_type)->size;
    send_operation(w, target, h, target_type, data, bytes, true, result, result_type, answer);
  }
  return MPI_SUCCESS;
}

int compare_and_swap_via_target(Window& w, int target, std::uint64_t offset, MPI_Datatype type,
                                const std::byte* origin, const std::byte* compare, std::byte* result) {
  RequestHeader h{};
  h.kind = Kind::compare_and_swap;
  h.offset = offset;
  h.count = 1;
  const std::size_t n = find_type(type)->size;
  std::byte both[16];
  std::memcpy(both, origin, n);
  std::memcpy(both + n, compare, n);
  send_operation(w, target, h, type, both, 2 * n, true, result, type, n);
  return MPI_SUCCESS;
}

void finish_operations(Window& w, int target, const char* call) {
  // Nothing ever went through a target's engine: nothing to wait for (the
  // path of every window whose memory origins reach themselves).
  if (w.sent_via_target == 0) return;
  const auto me = static_cast<std::uint32_t>(w.rank);
  const int first = target < 0 ? 0 : target;
  const int last = target < 0 ? w.size - 1 : target;
  for (int t = first; t <= last; ++t) {
    const auto u = static_cast<std::uint32_t>(t);
    wait_for(w, t, shm::RmaWait::applied, call, [&] {
      return settle(w, t) &&
             w.layout.done(u, me).load(std::memory_order_acquire) >= w.layout.sent(u, me).load(std::memory_order_relaxed);
    });
  }
}

bool applied_from(const Window& w, int origin) {
  const auto me = static_cast<std::uint32_t>(w.rank);
  const auto o = static_cast<std::uint32_t>(origin);
  return w.layout.done(me, o).load(std::memory_order_relaxed) >= w.layout.sent(me, o).load(std::memory_order_acquire);
}

void wait_applied_from(const Window& w, int origin, const char* call) {
  wait_for(w, origin, shm::RmaWait::applied, call, [&] { return applied_from(w, origin); });
}

void serve_windows_from_now_on() { engine().add_progress_hook(serve); }

void forget_window(const Window& w) { pending().erase(w.handle); }

}  // namespace mpf::mpi
