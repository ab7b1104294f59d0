#include "conversation/table.hpp"

#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "common/memory_copy.hpp"

namespace mpf::conversation {
namespace {

// pthread_mutex_t as a BasicLockable, for std::lock_guard.
class SharedLock {
 public:
  explicit SharedLock(pthread_mutex_t& m) : m_(&m) {}
  void lock() { pthread_mutex_lock(m_); }
  void unlock() { pthread_mutex_unlock(m_); }

 private:
  pthread_mutex_t* m_;
};

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

std::atomic<std::uint32_t>& connections_of(Entry& e, std::uint8_t role) {
  return role == kRoleSend ? e.senders : role == kRoleFcfs ? e.fcfs : e.broadcast;
}

}  // namespace

OpenStatus Table::open(std::string_view name, std::uint8_t role, Connection& out) {
  TableHeader& header = view_.header_mut();
  SharedLock table_lock(header.lock);
  std::lock_guard table_guard(table_lock);
  std::uint32_t found = header.conversations;
  std::uint32_t free_entry = header.conversations;
  for (std::uint32_t c = 0; c < header.conversations; ++c) {
    Entry& e = view_.entry(c);
    if (e.state.load(std::memory_order_relaxed) == EntryState::free) {
      if (free_entry == header.conversations) free_entry = c;
    } else if (name == e.name) {
      found = c;
      break;
    }
  }
  if (found == header.conversations) {
    if (free_entry == header.conversations) return OpenStatus::table_full;
    found = free_entry;
    Entry& e = view_.entry(found);
    std::memset(e.name, 0, kNameBytes);
    std::memcpy(e.name, name.data(), name.size());
    ++e.generation;
    e.created_ns.store(now_ns(), std::memory_order_relaxed);
    e.state.store(EntryState::live, std::memory_order_release);
    header.live.fetch_add(1, std::memory_order_relaxed);
  }
  Entry& e = view_.entry(found);
  SharedLock entry_lock(e.lock);
  std::lock_guard entry_guard(entry_lock);
  std::atomic<std::uint8_t>& roles = view_.roles(found)[me_];
  const std::uint8_t mine = roles.load(std::memory_order_relaxed);
  if ((role == kRoleFcfs && (mine & kRoleBroadcast) != 0) || (role == kRoleBroadcast && (mine & kRoleFcfs) != 0)) {
    // A conversation the rank has just created has no connection of it yet.
    return OpenStatus::mixed_protocols;
  }
  out = Connection{found, role, 0, 0};
  if (role == kRoleBroadcast) {
    const std::uint64_t end = e.write_pos.load(std::memory_order_relaxed);
    out.head = out.joined_at = end;
    if (e.fcfs.load(std::memory_order_relaxed) == 0 && e.broadcast.load(std::memory_order_relaxed) == 0) {
      // Nobody received: what was sent meanwhile waits for the first
      // receiver to join, and this is it. Records that are not FCFS's
      // (sent to BROADCAST receivers that left since) are not its own.
      std::uint64_t pos = e.fcfs_pos.load(std::memory_order_relaxed);
      out.head = pos;
      for (; pos < end; pos += footprint_at(found, pos)) {
        Record& r = view_.record(found, pos);
        const std::uint32_t flags = r.flags.load(std::memory_order_relaxed);
        if ((flags & kForFcfs) != 0) r.flags.store((flags & ~kForFcfs) | kAdopted, std::memory_order_relaxed);
      }
      e.fcfs_pos.store(end, std::memory_order_relaxed);
    }
  }
  connections_of(e, role).fetch_add(1, std::memory_order_relaxed);
  roles.store(mine | role, std::memory_order_relaxed);
  return OpenStatus::opened;
}

void Table::close(const Connection& k, bool last_of_role) {
  const std::uint32_t c = k.conversation;
  TableHeader& header = view_.header_mut();
  SharedLock table_lock(header.lock);
  std::lock_guard table_guard(table_lock);
  Entry& e = view_.entry(c);
  SharedLock entry_lock(e.lock);
  std::lock_guard entry_guard(entry_lock);
  if (k.role == kRoleBroadcast) {
    // Let go of every record this receiver has not read. Under the lock
    // nothing is released meanwhile; before release_pos nothing is its own.
    std::uint64_t pos = std::max(k.head, e.release_pos.load(std::memory_order_relaxed));
    const std::uint64_t end = e.write_pos.load(std::memory_order_relaxed);
    for (; pos < end; pos += footprint_at(c, pos)) {
      Record& r = view_.record(c, pos);
      const std::uint32_t flags = r.flags.load(std::memory_order_relaxed);
      if (pos < k.joined_at && (flags & kAdopted) == 0) continue;
      r.refs.fetch_sub(1, std::memory_order_acq_rel);
      if ((flags & kDirect) != 0) waker_->wake(static_cast<std::uint32_t>(r.sender));  // it waits for its readers
    }
    release_locked(c);
  }
  connections_of(e, k.role).fetch_sub(1, std::memory_order_relaxed);
  if (last_of_role) {
    std::atomic<std::uint8_t>& roles = view_.roles(c)[me_];
    roles.store(roles.load(std::memory_order_relaxed) & ~k.role, std::memory_order_relaxed);
  }
  if (e.senders.load(std::memory_order_relaxed) + e.fcfs.load(std::memory_order_relaxed) +
          e.broadcast.load(std::memory_order_relaxed) ==
      0) {
    discard_locked(c);
  }
}

void Table::discard_locked(std::uint32_t c) {
  Entry& e = view_.entry(c);
  // Give the queue's pages back: a discarded conversation costs no memory.
  const std::uint64_t used = std::min(e.write_pos.load(std::memory_order_relaxed), view_.queue_bytes());
  if (used > 0) ::madvise(view_.ring(c), (used + kPage - 1) / kPage * kPage, MADV_REMOVE);
  std::atomic<std::uint8_t>* roles = view_.roles(c);
  for (std::uint32_t r = 0; r < view_.header().nranks; ++r) roles[r].store(0, std::memory_order_relaxed);
  e.write_pos.store(0, std::memory_order_relaxed);
  e.release_pos.store(0, std::memory_order_relaxed);
  e.fcfs_pos.store(0, std::memory_order_relaxed);
  e.messages.store(0, std::memory_order_relaxed);
  e.bytes.store(0, std::memory_order_relaxed);
  e.sent.store(0, std::memory_order_relaxed);
  std::memset(e.name, 0, kNameBytes);
  e.state.store(EntryState::free, std::memory_order_release);
  view_.header_mut().live.fetch_sub(1, std::memory_order_relaxed);
}

bool Table::room_for(std::uint32_t c, std::uint64_t bytes) const {
  const Entry& e = view_.entry(c);
  const std::uint64_t need = footprint(bytes, direct(bytes) ? kDirect : 0);
  return view_.queue_bytes() -
             (e.write_pos.load(std::memory_order_acquire) - e.release_pos.load(std::memory_order_acquire)) >=
         need;
}

Reservation Table::try_reserve(std::uint32_t c, std::uint64_t bytes, std::uint64_t address) {
  if (!room_for(c, bytes)) return {};
  const std::uint32_t kind = direct(bytes) ? kDirect : 0;
  const std::uint64_t need = footprint(bytes, kind);
  Entry& e = view_.entry(c);
  SharedLock entry_lock(e.lock);
  std::lock_guard guard(entry_lock);
  const std::uint64_t w = e.write_pos.load(std::memory_order_relaxed);
  if (view_.queue_bytes() - (w - e.release_pos.load(std::memory_order_relaxed)) < need) return {};
  const std::uint32_t broadcast = e.broadcast.load(std::memory_order_relaxed);
  // One FCFS receiver reads it if any is connected; with nobody receiving
  // it waits for the first receiver to join (open() hands it over).
  const bool for_fcfs = e.fcfs.load(std::memory_order_relaxed) > 0 || broadcast == 0;
  Record& r = view_.record(c, w);
  r.bytes = bytes;
  r.refs.store(broadcast + (for_fcfs ? 1 : 0) + 1, std::memory_order_relaxed);
  r.ready.store(0, std::memory_order_relaxed);
  r.flags.store(kind | (for_fcfs ? kForFcfs : 0), std::memory_order_relaxed);
  r.sender = static_cast<std::int32_t>(me_);
  r.claimer.store(-1, std::memory_order_relaxed);
  r.sent_ns = now_ns();
  r.address = address;
  r.staged.store(0, std::memory_order_relaxed);
  if (!for_fcfs && e.fcfs_pos.load(std::memory_order_relaxed) == w)
    e.fcfs_pos.store(w + need, std::memory_order_relaxed);
  e.messages.fetch_add(1, std::memory_order_relaxed);
  e.bytes.fetch_add(bytes, std::memory_order_relaxed);
  e.sent.fetch_add(1, std::memory_order_relaxed);
  // Release: a receiver that sees the new end sees the record.
  e.write_pos.store(w + need, std::memory_order_release);
  return {&r, w};
}

template <class Copy>
void Table::for_each_piece(std::uint32_t c, std::uint64_t pos, std::uint64_t bytes, Copy&& copy) const {
  const std::uint64_t q = view_.queue_bytes();
  const std::uint64_t at = (pos + kLine) % q;
  const std::uint64_t first = std::min(bytes, q - at);
  copy(view_.ring(c) + at, 0, first);
  if (first < bytes) copy(view_.ring(c), first, bytes - first);
}

void Table::copy_in(std::uint32_t c, const Reservation& r, const void* data, std::uint64_t bytes) const {
  const auto* from = static_cast<const std::byte*>(data);
  for_each_piece(c, r.pos, bytes, [&](std::byte* ring, std::uint64_t offset, std::uint64_t n) {
    common::copy_memory(ring, from + offset, n);
  });
}

void Table::copy_out(std::uint32_t c, const Found& f, void* to) const {
  auto* out = static_cast<std::byte*>(to);
  for_each_piece(c, f.pos, f.record->bytes, [&](const std::byte* ring, std::uint64_t offset, std::uint64_t n) {
    common::copy_memory(out + offset, ring, n);
  });
}

void Table::publish(std::uint32_t c, Record& r) {
  // seq_cst: a claimer that stores its rank and then finds the message not
  // ready is seen by wake_readers' load (and the other way round).
  r.ready.store(1, std::memory_order_seq_cst);
  wake_readers(c, r);
  if ((r.flags.load(std::memory_order_relaxed) & kDirect) == 0) drop(c, r);
}

void Table::wake_readers(std::uint32_t c, Record& r) {
  if ((r.flags.load(std::memory_order_relaxed) & kForFcfs) != 0) {
    const std::int32_t claimer = r.claimer.load(std::memory_order_seq_cst);
    if (claimer >= 0) {
      waker_->wake(static_cast<std::uint32_t>(claimer));
    } else {
      wake_one(c, Waiting::fcfs);
    }
  }
  wake_all(c, Waiting::broadcast);
}

Found Table::take_fcfs(std::uint32_t c, std::uint64_t capacity) {
  Entry& e = view_.entry(c);
  if (e.fcfs_pos.load(std::memory_order_acquire) == e.write_pos.load(std::memory_order_acquire)) return {};
  SharedLock entry_lock(e.lock);
  std::lock_guard guard(entry_lock);
  const std::uint64_t pos = e.fcfs_pos.load(std::memory_order_relaxed);
  const std::uint64_t end = e.write_pos.load(std::memory_order_relaxed);
  if (pos == end) return {};
  Record& r = view_.record(c, pos);
  const std::uint64_t next = pos + footprint_at(c, pos);
  if (r.bytes > capacity) return {Found::What::too_long, pos, next, &r};
  r.claimer.store(static_cast<std::int32_t>(me_), std::memory_order_seq_cst);
  // The next record of FCFS's: records after a held one are not released.
  std::uint64_t after = next;
  while (after < end && (view_.record(c, after).flags.load(std::memory_order_relaxed) & kForFcfs) == 0) {
    after += footprint_at(c, after);
  }
  e.fcfs_pos.store(after, std::memory_order_release);
  return {Found::What::message, pos, next, &r};
}

Found Table::next_broadcast(Connection& k, std::uint64_t capacity) {
  const std::uint32_t c = k.conversation;
  Entry& e = view_.entry(c);
  if (k.head < k.joined_at) {
    // Records adopted at joining, among others' that may be released at
    // any time: looked at under the lock, which holds releases back.
    SharedLock entry_lock(e.lock);
    std::lock_guard guard(entry_lock);
    k.head = std::max(k.head, e.release_pos.load(std::memory_order_relaxed));
    while (k.head < k.joined_at && (view_.record(c, k.head).flags.load(std::memory_order_relaxed) & kAdopted) == 0) {
      k.head += footprint_at(c, k.head);
    }
  }
  // From here on every record is this receiver's, held for it.
  if (k.head == e.write_pos.load(std::memory_order_acquire)) return {};
  Record& r = view_.record(c, k.head);
  const std::uint64_t next = k.head + footprint_at(c, k.head);
  return {r.bytes > capacity ? Found::What::too_long : Found::What::message, k.head, next, &r};
}

bool Table::has_message(Connection& k) {
  if (k.role == kRoleFcfs) {
    const Entry& e = view_.entry(k.conversation);
    return e.fcfs_pos.load(std::memory_order_acquire) != e.write_pos.load(std::memory_order_acquire);
  }
  return next_broadcast(k, ~std::uint64_t{0}).what != Found::What::nothing;
}

void Table::finish_read(std::uint32_t c, Record& r) {
  if ((r.flags.load(std::memory_order_relaxed) & kDirect) != 0) {
    const auto sender = static_cast<std::uint32_t>(r.sender);
    drop(c, r);
    waker_->wake(sender);  // it waits for its readers
    return;
  }
  drop(c, r);
}

void Table::drop(std::uint32_t c, Record& r) {
  if (r.refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  Entry& e = view_.entry(c);
  SharedLock entry_lock(e.lock);
  std::lock_guard guard(entry_lock);
  release_locked(c);
}

void Table::release_locked(std::uint32_t c) {
  Entry& e = view_.entry(c);
  std::uint64_t pos = e.release_pos.load(std::memory_order_relaxed);
  const std::uint64_t end = e.write_pos.load(std::memory_order_relaxed);
  const std::uint64_t from = pos;
  while (pos < end) {
    Record& r = view_.record(c, pos);
    if (r.refs.load(std::memory_order_acquire) != 0) break;
    e.messages.fetch_sub(1, std::memory_order_relaxed);
    e.bytes.fetch_sub(r.bytes, std::memory_order_relaxed);
    pos += footprint_at(c, pos);
  }
  if (pos == from) return;
  // seq_cst: a sender that says it waits for room and then finds none is
  // seen by wake_all's load of the bitmap.
  e.release_pos.store(pos, std::memory_order_seq_cst);
  wake_all(c, Waiting::senders);
}

void Table::arrive_at_finalize() {
  TableHeader& h = view_.header_mut();
  if (h.finalizing.fetch_add(1, std::memory_order_seq_cst) + 1 < h.nranks) return;
  // The last to arrive: whoever waits for it is asleep or about to look.
  for (std::uint32_t r = 0; r < h.nranks; ++r) {
    if (r != me_) waker_->wake(r);
  }
}

void Table::want(std::uint32_t c, Waiting which) const {
  std::atomic<std::uint64_t>& word = view_.waiting(c, which)[me_ / 64];
  const std::uint64_t bit = std::uint64_t{1} << (me_ % 64);
  if ((word.load(std::memory_order_relaxed) & bit) == 0) word.fetch_or(bit, std::memory_order_seq_cst);
  // The caller's next look for a message (or room) comes after the bit
  // (Dekker with the fence in wake_all and wake_one). Only waiting ranks
  // call this.
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

void Table::unwant(std::uint32_t c, Waiting which) const {
  std::atomic<std::uint64_t>& word = view_.waiting(c, which)[me_ / 64];
  const std::uint64_t bit = std::uint64_t{1} << (me_ % 64);
  if ((word.load(std::memory_order_relaxed) & bit) != 0) word.fetch_and(~bit, std::memory_order_relaxed);
}

void Table::wake_all(std::uint32_t c, Waiting which) {
  std::atomic<std::uint64_t>* words = view_.waiting(c, which);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (std::uint32_t w = 0; w < view_.header().bitmap_words; ++w) {
    if (words[w].load(std::memory_order_relaxed) == 0) continue;
    std::uint64_t bits = words[w].exchange(0, std::memory_order_acq_rel);
    while (bits != 0) {
      const int b = __builtin_ctzll(bits);
      bits &= bits - 1;
      waker_->wake(w * 64 + static_cast<std::uint32_t>(b));
    }
  }
}

void Table::wake_one(std::uint32_t c, Waiting which) {
  std::atomic<std::uint64_t>* words = view_.waiting(c, which);
  const std::uint32_t n = view_.header().bitmap_words;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Start after the rank woken last, so that waiting receivers take turns.
  const std::uint32_t start = view_.entry(c).wake_cursor.load(std::memory_order_relaxed);
  for (std::uint32_t i = 0; i <= n; ++i) {
    const std::uint32_t w = (start / 64 + i) % n;
    std::uint64_t bits = words[w].load(std::memory_order_relaxed);
    if (i == 0) bits &= ~std::uint64_t{0} << (start % 64);  // ranks from `start` on first
    while (bits != 0) {
      const std::uint64_t bit = bits & (~bits + 1);
      if ((words[w].fetch_and(~bit, std::memory_order_acq_rel) & bit) != 0) {
        const std::uint32_t rank = w * 64 + static_cast<std::uint32_t>(__builtin_ctzll(bit));
        view_.entry(c).wake_cursor.store(rank + 1, std::memory_order_relaxed);
        waker_->wake(rank);
        return;
      }
      bits &= ~bit;
    }
  }
}

}  // namespace mpf::conversation
