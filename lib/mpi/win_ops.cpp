// One-sided communication calls (MPI-3.1 §11.3): MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and the
// request forms MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate.
//
// Each call checks its arguments and its epoch, then moves the data at
// once by the path the target's memory allows (seed 001 §3):
//   direct      the target's memory is mapped here: copies, and CPU atomics
//               for accumulates (rma/element_ops.hpp)
//   cma         Cross Memory Attach straight into the target's process,
//               the target's datatype as the list of pieces; accumulates
//               read, combine and write back under the target's accumulate
//               lock
//   via_target  the target's engine applies it (win_via_target.hpp)
// Any datatype works on either side: a non-contiguous one is packed or
// unpacked around the move. An operation on the first two paths is
// complete at the target when its call returns, so its request is too.
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/memory_copy.hpp"
#include "common/streaming_copy.hpp"
#include "core/runtime.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/reduce_ops.hpp"
#include "mpi/requests.hpp"
#include "mpi/win.hpp"
#include "mpi/win_accumulate.hpp"
#include "mpi/win_mailbox.hpp"
#include "mpi/win_via_target.hpp"
#include "rma/element_ops.hpp"
#include "rma/put_stream.hpp"
#include "shm/counters.hpp"

namespace mpf::mpi {
namespace {

using rma::Reach;

// One side's data: `count` elements of a datatype at a buffer.
struct Data {
  const void* buffer = nullptr;
  int count = 0;
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  const TypeInfo* type = nullptr;  // set by check_data
  std::uint64_t bytes() const { return type == nullptr ? 0 : static_cast<std::uint64_t>(count) * type->size; }
};

// What one operation needs: the call, its window and target, and the
// target side's data (its buffer unused: the place is `disp`).
struct Operation {
  const char* call;
  Window* w;
  int target;
  MPI_Aint disp;
  Data at_target;
};

// Where the operation's target data lies, once checked.
struct Place {
  Reach reach = Reach::none;
  std::byte* direct = nullptr;   // mapped here: the data's start (self, or node memory)
  std::uint64_t address = 0;     // in the target's process: the data's start
  std::uint64_t offset = 0;      // from the target's window base (or, dynamic: the address)
  rma::Mapping hold;             // a dynamic window's region, mapped for the call
  std::atomic<std::uint32_t>* lock = nullptr;  // the target's accumulate lock
  // Accumulates there use CPU atomics: the memory is node memory, which
  // every origin reaches directly. Memory reached by CMA or through the
  // target's engine is updated under its accumulate lock, by the target
  // too, so the two ways never mix on one element.
  bool atomics = false;
};

// Why `d` is bad (the slow path of check_data, out of line).
[[gnu::cold, gnu::noinline]] int data_error(const Operation& op, const char* side, const Data& d) {
  if (d.count < 0) {
    return win_error(op.call, op.w->handle, MPI_ERR_COUNT,
                     std::string("negative ") + side + " count " + std::to_string(d.count));
  }
  return win_error(op.call, op.w->handle, MPI_ERR_TYPE, std::string(side) + " datatype: " + datatype_problem(d.handle));
}

// A null buffer is allowed: it is MPI_BOTTOM, with a datatype of absolute
// addresses.
int check_data(const Operation& op, const char* side, Data& d) {
  d.type = usable_type(d.handle);
  return d.count >= 0 && d.type != nullptr ? MPI_SUCCESS : data_error(op, side, d);
}

// Bytes an operation needs for a moment: small ones on the stack (a
// fetch_and_op's 8 bytes cost no allocation), larger ones on the heap.
class Scratch {
 public:
  std::byte* get(std::uint64_t bytes, bool zeroed) {
    std::byte* p = inline_;
    if (bytes > sizeof inline_) {
      heap_.resize(bytes);
      p = heap_.data();
    }
    if (zeroed) std::memset(p, 0, bytes);
    return p;
  }

 private:
  alignas(16) std::byte inline_[256];
  std::vector<std::byte> heap_;
};

// The predefined type a datatype's data is made of, or MPI_DATATYPE_NULL.
MPI_Datatype basic_of(const Data& d) {
  return d.type->predefined && d.type->basic == MPI_DATATYPE_NULL ? d.handle : d.type->basic;
}

std::string range_text(std::uint64_t from, std::uint64_t to) {
  return "[" + std::to_string(from) + ", " + std::to_string(to) + ")";
}

// The attached memory of a dynamic window's member that holds [from, to):
// one region (*spans false), or regions that follow one another in memory
// (*spans true); *first is the region holding `from`. Read as a seqlock:
// the member attaches and detaches without telling anyone.
bool find_region(const Window& w, int target, std::uint64_t from, std::uint64_t to, rma::Region* first,
                 bool* spans) {
  const rma::MemberBlock& m = w.member(target);
  const std::uint32_t n = w.layout.regions();
  for (;;) {
    const std::uint32_t before = m.regions_version.load(std::memory_order_acquire);
    if (before % 2 != 0) continue;
    bool hit = false;
    *spans = false;
    std::uint64_t at = from;
    for (std::uint32_t hop = 0; hop <= n && !hit; ++hop) {
      bool next = false;
      for (std::uint32_t i = 0; i < n; ++i) {
        const rma::Region r = w.layout.region(static_cast<std::uint32_t>(target), i);
        if (r.size == 0 || at < r.address || at >= r.address + r.size) continue;
        if (hop == 0) *first = r;
        if (to <= r.address + r.size) {
          hit = true;
        } else {
          at = r.address + r.size;
          next = true;
          *spans = true;
        }
        break;
      }
      if (!next) break;
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (m.regions_version.load(std::memory_order_relaxed) == before) return hit;
  }
}

bool cma_allowed() {
  return core::Runtime::instance().tunables().text(common::Tunable::rndv_mode) != "copy";
}

// Checks the target side of `op` (rank, epoch, datatype, range) and finds
// where its data lies. *skip: the target is MPI_PROC_NULL.
int locate(Operation& op, std::uint64_t origin_bytes, Place* place, bool* skip) {
  Window& w = *op.w;
  *skip = false;
  if (op.target == MPI_PROC_NULL) {
    *skip = true;
    return MPI_SUCCESS;
  }
  if (op.target < 0 || op.target >= w.size) {
    return win_error(op.call, w.handle, MPI_ERR_RANK,
                     "target rank " + std::to_string(op.target) + " is not in " + win_label(w) + " of " +
                         std::to_string(w.size) + " ranks");
  }
  if (!w.may_access(op.target)) {
    return win_error(op.call, w.handle, MPI_ERR_RMA_SYNC,
                     "no access epoch at rank " + std::to_string(op.target) + " is open on " + win_label(w) +
                         " (MPI_Win_fence, MPI_Win_start or MPI_Win_lock opens one)");
  }
  if (int rc = check_data(op, "target", op.at_target)) return rc;
  const Data& d = op.at_target;
  if (d.bytes() != origin_bytes) {
    return win_error(op.call, w.handle, MPI_ERR_TYPE,
                     "the origin's data is " + std::to_string(origin_bytes) + " bytes and the target's " +
                         std::to_string(d.bytes()) + " bytes: their type signatures must match");
  }
  const WinTarget& t = w.targets[static_cast<std::size_t>(op.target)];
  place->lock = &w.member(op.target).accumulate_lock;
  if (w.flavor != rma::Flavor::dynamic && op.disp < 0) {
    return win_error(op.call, w.handle, MPI_ERR_DISP, "negative target displacement " + std::to_string(op.disp));
  }
  if (d.count == 0 || d.type->size == 0) {
    place->reach = Reach::none;  // nothing to move
    return MPI_SUCCESS;
  }
  // The bytes the data touches, from the target's base (or address).
  const std::int64_t start = w.flavor == rma::Flavor::dynamic ? op.disp : op.disp * static_cast<std::int64_t>(t.disp_unit);
  const std::int64_t lo = start + d.type->true_lb;
  const std::int64_t hi = start + static_cast<std::int64_t>(d.count - 1) * d.type->extent() + d.type->true_ub;
  if (w.flavor == rma::Flavor::dynamic) {
    rma::Region r{};
    bool spans = false;
    if (lo < 0 ||
        !find_region(w, op.target, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi), &r, &spans)) {
      return win_error(op.call, w.handle, MPI_ERR_RMA_RANGE,
                       "target range " + range_text(static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi)) +
                           " lies in no memory rank " + std::to_string(op.target) + " has attached to " +
                           win_label(w));
    }
    place->offset = static_cast<std::uint64_t>(start);
    place->address = static_cast<std::uint64_t>(start);
    place->atomics = r.memory_id != 0 && !spans;
    if (spans && op.target != w.rank) {
      // Over several regions: by address in the target's process, whatever
      // memory each region is (CMA reaches node memory too), accumulates
      // under the target's lock.
      place->reach = cma_allowed() ? Reach::cma : Reach::via_target;
    } else if (op.target == w.rank) {
      place->reach = Reach::direct;
      place->direct = reinterpret_cast<std::byte*>(start);
    } else if (r.memory_id != 0) {
      place->hold = rma::open(r.memory_id);
      place->reach = Reach::direct;
      place->direct = place->hold.data + r.memory_offset + (static_cast<std::uint64_t>(start) - r.address);
    } else {
      place->reach = cma_allowed() ? Reach::cma : Reach::via_target;
    }
    return MPI_SUCCESS;
  }
  if (lo < 0 || static_cast<std::uint64_t>(hi) > t.size) {
    return win_error(op.call, w.handle, MPI_ERR_RMA_RANGE,
                     "target range " + range_text(static_cast<std::uint64_t>(lo < 0 ? 0 : lo), static_cast<std::uint64_t>(hi)) +
                         " is outside rank " + std::to_string(op.target) + "'s window of " + std::to_string(t.size) +
                         " bytes");
  }
  place->offset = static_cast<std::uint64_t>(start);
  place->address = t.address + static_cast<std::uint64_t>(start);
  place->reach = op.target == w.rank ? Reach::direct : t.reach;
  place->atomics = t.reach == Reach::direct;
  if (place->reach == Reach::direct) place->direct = t.direct + start;
  return MPI_SUCCESS;
}

// The pieces of the target's data in its process (each run of adjacent
// pieces one: the kernel pins pages per piece).
std::vector<iovec> pieces_at(std::uint64_t address, const Data& d) {
  std::vector<iovec> out;
  for_each_run(*d.type, static_cast<std::uint64_t>(d.count), d.bytes(), [&](std::int64_t at, std::uint64_t n) {
    out.push_back({reinterpret_cast<void*>(address + static_cast<std::uint64_t>(at)), n});
  });
  return out;
}

// The target refused Cross Memory Attach: from now on its engine applies
// what this rank asks (said once by the transport, shown by mpfinspect).
void cma_refused(Operation& op, Place& place) {
  op.w->targets[static_cast<std::size_t>(op.target)].reach = Reach::via_target;
  place.reach = Reach::via_target;
}

int transport_failed(const Operation& op) {
  return win_error(op.call, op.w->handle, MPI_ERR_OTHER,
                   "Cross Memory Attach to rank " + std::to_string(op.target) + " failed (the reason is above)");
}

// Copies packed bytes to (write) or from the target's data by CMA.
common::Status cma_move(const Operation& op, const Place& place, bool write, std::byte* packed) {
  const std::vector<iovec> pieces = pieces_at(place.address, op.at_target);
  const std::uint32_t world = op.w->targets[static_cast<std::size_t>(op.target)].world;
  return core::Runtime::instance().transport().copy_pieces(world, write, packed, pieces.data(), pieces.size());
}

// Counted for the rank (its counters) and the window (mpfinspect).
void count_operation(Window& w) {
  if (w.fence_epoch) ++w.fence_operations;
  std::atomic<std::uint64_t>& n = w.member(w.rank).operations;
  n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  shm::count(core::Runtime::instance().control()->counters.rma_operations);
}

// ---- the operations ----------------------------------------------------------

// Copies `bytes` of data laid out as `from` into the layout of `to`,
// through a staging buffer only when neither is contiguous; `stream`: a
// contiguous copy stores around the cache.
void copy_typed(const Data& to, const Data& from, std::uint64_t bytes, bool stream) {
  auto* dst = static_cast<std::byte*>(const_cast<void*>(to.buffer));
  const auto count = static_cast<std::uint64_t>(from.count);
  if (from.type->contiguous && to.type->contiguous) {
    if (stream) {
      common::copy_streaming(dst, from.buffer, bytes);
    } else {
      common::copy_memory(dst, from.buffer, bytes);
    }
  } else if (from.type->contiguous) {
    unpack(*to.type, static_cast<const std::byte*>(from.buffer), bytes, dst);
  } else if (to.type->contiguous) {
    pack(*from.type, from.buffer, count, dst);
  } else {
    std::vector<std::byte> staging(bytes);
    pack(*from.type, from.buffer, count, staging.data());
    unpack(*to.type, staging.data(), bytes, dst);
  }
}

// What put and get start with: the origin's data and the target side
// checked, the operation counted. False when there is no more to do: an
// error (*rc), MPI_PROC_NULL, or no data.
bool begin(Operation& op, Data& origin, Place* place, int* rc) {
  *rc = check_data(op, "origin", origin);
  bool skip = false;
  if (*rc == MPI_SUCCESS) *rc = locate(op, origin.bytes(), place, &skip);
  if (*rc != MPI_SUCCESS || skip || place->reach == Reach::none) return false;
  count_operation(*op.w);
  return true;
}

// The target's data where this process maps it, as a Data.
Data target_here(const Operation& op, const Place& place) {
  return {place.direct, op.at_target.count, op.at_target.handle, op.at_target.type};
}

int put(Operation op, Data origin) {
  Place place;
  int rc = MPI_SUCCESS;
  if (!begin(op, origin, &place, &rc)) return rc;
  const std::uint64_t bytes = origin.bytes();
  const TypeInfo& tt = *op.at_target.type;
  if (place.reach == Reach::direct) {
    copy_typed(target_here(op, place), origin, bytes, bytes >= rma::put_stream_threshold());
    return MPI_SUCCESS;
  }
  std::vector<std::byte> staging;
  const std::byte* data = contiguous_source(*origin.type, origin.buffer, static_cast<std::uint64_t>(origin.count), staging);
  if (place.reach == Reach::cma) {
    if (tt.contiguous && bytes <= rma::kMailBytes &&
        hand_over(*op.w, op.target, {rma::MailKind::put, place.offset, data, static_cast<std::uint32_t>(bytes)})) {
      return MPI_SUCCESS;
    }
    const common::Status s = cma_move(op, place, true, const_cast<std::byte*>(data));
    if (s == common::Status::done) return MPI_SUCCESS;
    if (s == common::Status::error) return transport_failed(op);
    cma_refused(op, place);
  }
  return put_via_target(*op.w, op.target, place.offset, op.at_target.handle, op.at_target.count, data, bytes);
}

int get(Operation op, Data origin) {
  Place place;
  int rc = MPI_SUCCESS;
  if (!begin(op, origin, &place, &rc)) return rc;
  const std::uint64_t bytes = origin.bytes();
  const TypeInfo& tt = *op.at_target.type;
  auto* out = static_cast<std::byte*>(const_cast<void*>(origin.buffer));
  if (place.reach == Reach::direct) {
    // Into the origin's buffer, which it reads next: through the cache.
    copy_typed(origin, target_here(op, place), bytes, false);
    return MPI_SUCCESS;
  }
  if (place.reach == Reach::cma) {
    std::vector<std::byte> staging(origin.type->contiguous ? 0 : bytes);
    std::byte* into = origin.type->contiguous ? out : staging.data();
    MailRequest r{rma::MailKind::get, place.offset};
    r.answer = into;
    r.answer_bytes = static_cast<std::uint32_t>(bytes);
    if (tt.contiguous && bytes <= rma::kMailBytes && hand_over(*op.w, op.target, r)) {
      if (!origin.type->contiguous) unpack(*origin.type, staging.data(), bytes, out);
      return MPI_SUCCESS;
    }
    const common::Status s = cma_move(op, place, false, into);
    if (s == common::Status::done) {
      if (!origin.type->contiguous) unpack(*origin.type, staging.data(), bytes, out);
      return MPI_SUCCESS;
    }
    if (s == common::Status::error) return transport_failed(op);
    cma_refused(op, place);
  }
  return get_via_target(*op.w, op.target, place.offset, op.at_target.handle, op.at_target.count, out,
                        origin.handle, origin.count);
}

// The checks every accumulate shares: the operation is predefined (no
// user function, MPI-3.1 §11.3.4) and the data on every side is made of
// the same predefined type. *element gets that type.
int check_accumulate(const Operation& op, MPI_Op mpi_op, const Data* origin, const Data* result,
                     MPI_Datatype* element) {
  if (mpi_op < MPI_MAX || mpi_op > MPI_NO_OP) {
    return win_error(op.call, op.w->handle, MPI_ERR_OP,
                     op_name(mpi_op) + " cannot accumulate: only the predefined operations can (with MPI_REPLACE and "
                                       "MPI_NO_OP)");
  }
  *element = MPI_DATATYPE_NULL;
  for (const Data* d : {origin, result}) {
    if (d == nullptr || d->type == nullptr) continue;
    const MPI_Datatype b = basic_of(*d);
    if (b == MPI_DATATYPE_NULL) {
      return win_error(op.call, op.w->handle, MPI_ERR_TYPE,
                       datatype_name(d->handle) + " mixes several predefined types; an accumulate needs one");
    }
    if (*element == MPI_DATATYPE_NULL) *element = b;
    if (b != *element) {
      return win_error(op.call, op.w->handle, MPI_ERR_TYPE,
                       "the data is of " + datatype_name(*element) + " and of " + datatype_name(b) +
                           ": every side of an accumulate must be of one predefined type");
    }
  }
  return MPI_SUCCESS;
}

// MPI_Accumulate and MPI_Get_accumulate (result.buffer null: none).
int accumulate(Operation op, Data origin, Data result, MPI_Op mpi_op) {
  const bool fetch = result.handle != MPI_DATATYPE_NULL;
  const bool reads_origin = mpi_op != MPI_NO_OP;
  if (reads_origin) {
    if (int rc = check_data(op, "origin", origin)) return rc;
  }
  if (fetch) {
    if (int rc = check_data(op, "result", result)) return rc;
  }
  Place place;
  bool skip = false;
  const std::uint64_t bytes = reads_origin ? origin.bytes() : result.bytes();
  if (int rc = locate(op, bytes, &place, &skip)) return rc;
  // Nothing to move (a count of 0, a type of no data): empty signatures
  // always match, whatever types they are made of.
  if (skip || place.reach == Reach::none) return MPI_SUCCESS;
  MPI_Datatype element = MPI_DATATYPE_NULL;
  if (int rc = check_accumulate(op, mpi_op, reads_origin ? &origin : nullptr, fetch ? &result : nullptr, &element)) {
    return rc;
  }
  const MPI_Datatype target_basic = basic_of(op.at_target);
  if (target_basic != element && element != MPI_DATATYPE_NULL) {
    return win_error(op.call, op.w->handle, MPI_ERR_TYPE,
                     "the target's data is of " + datatype_name(target_basic) + " and the origin's of " +
                         datatype_name(element) + ": an accumulate must be of one predefined type");
  }
  element = target_basic;
  if (const std::string problem = op_problem(mpi_op, element); !problem.empty()) {
    return win_error(op.call, op.w->handle, MPI_ERR_OP, problem);
  }
  count_operation(*op.w);
  const coll::Combine combine = combine_of(mpi_op, element);
  std::vector<std::byte> in_staging;
  const std::byte* in = reads_origin ? contiguous_source(*origin.type, origin.buffer,
                                                         static_cast<std::uint64_t>(origin.count), in_staging)
                                     : nullptr;
  // The combine kernels read an operand for every element, even MPI_NO_OP's.
  Scratch zeros;
  if (in == nullptr) in = zeros.get(bytes, true);
  // The values before: straight into a contiguous result, else packed here
  // and unpacked at the end.
  auto* result_out = static_cast<std::byte*>(const_cast<void*>(result.buffer));
  Scratch old_staging;
  const bool result_in_place = fetch && result.type->contiguous;
  std::byte* old = !fetch ? nullptr : result_in_place ? result_out : old_staging.get(bytes, false);
  auto deliver_result = [&] {
    if (fetch && !result_in_place) unpack(*result.type, old, bytes, result_out);
  };
  const TypeInfo& tt = *op.at_target.type;
  const std::size_t e = combine.element_bytes();
  if (place.reach == Reach::direct) {
    if (place.atomics && !rma::is_pair(combine.element())) {
      // Element by element: every run holds whole scalars.
      std::uint64_t done = 0;
      for_each_run(tt, static_cast<std::uint64_t>(op.at_target.count), bytes, [&](std::int64_t at, std::uint64_t n) {
        rma::accumulate_atomically(place.direct + at, in + done, fetch ? old + done : nullptr, n / e, combine,
                                   *place.lock);
        done += n;
      });
    } else {
      const rma::AccumulateLockGuard guard(*place.lock);
      accumulate_in_place(place.direct, tt, static_cast<std::uint64_t>(op.at_target.count), in, old, combine);
    }
    deliver_result();
    return MPI_SUCCESS;
  }
  if (place.reach == Reach::cma) {
    MailRequest r{rma::MailKind::accumulate, place.offset, in, static_cast<std::uint32_t>(bytes)};
    r.answer = old;
    r.answer_bytes = fetch ? static_cast<std::uint32_t>(bytes) : 0;
    r.op = combine.op();
    r.element = combine.element();
    if (tt.contiguous && !rma::is_pair(combine.element()) && bytes <= rma::kMailBytes &&
        hand_over(*op.w, op.target, r)) {
      deliver_result();
      return MPI_SUCCESS;
    }
    // Read, combine and write back, with the target's accumulate lock held
    // by whoever updates its memory.
    std::vector<std::byte> current(bytes);
    common::Status s;
    {
      const rma::AccumulateLockGuard guard(*place.lock);
      s = cma_move(op, place, false, current.data());
      if (s == common::Status::done) {
        if (fetch) std::memcpy(old, current.data(), bytes);
        if (mpi_op != MPI_NO_OP) {
          rma::accumulate_plainly(current.data(), in, nullptr, bytes / e, combine);
          s = cma_move(op, place, true, current.data());
        }
      }
    }
    if (s == common::Status::done) {
      deliver_result();
      return MPI_SUCCESS;
    }
    if (s == common::Status::error) return transport_failed(op);
    cma_refused(op, place);
  }
  return accumulate_via_target(*op.w, op.target, place.offset, op.at_target.handle, op.at_target.count, in, bytes,
                               mpi_op, fetch ? result_out : nullptr, result.handle, result.count);
}

int compare_and_swap(Operation op, const void* origin, const void* compare, void* result) {
  Window& w = *op.w;
  if (int rc = check_data(op, "target", op.at_target)) return rc;
  const TypeInfo& t = *op.at_target.type;
  const std::size_t bytes = t.size;
  const MPI_Datatype h = op.at_target.handle;
  const bool integer_like = t.predefined && (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) &&
                            h != MPI_FLOAT && h != MPI_DOUBLE && h != MPI_REAL && h != MPI_DOUBLE_PRECISION &&
                            h != MPI_REAL4 && h != MPI_REAL8 && h != MPI_C_FLOAT_COMPLEX && h != MPI_COMPLEX &&
                            h != MPI_COMPLEX8 && h != MPI_CXX_FLOAT_COMPLEX && h != MPI_FLOAT_INT && h != MPI_2INT &&
                            h != MPI_2REAL;
  if (!integer_like) {
    return win_error(op.call, w.handle, MPI_ERR_TYPE,
                     datatype_name(h) + " cannot be compared and swapped: use an integer, logical or byte type");
  }
  if (origin == nullptr || compare == nullptr || result == nullptr) {
    return win_error(op.call, w.handle, MPI_ERR_BUFFER, "origin, compare or result buffer is NULL");
  }
  Place place;
  bool skip = false;
  if (int rc = locate(op, bytes, &place, &skip)) return rc;
  if (skip) return MPI_SUCCESS;
  count_operation(w);
  auto* out = static_cast<std::byte*>(result);
  const auto* in = static_cast<const std::byte*>(origin);
  const auto* expected = static_cast<const std::byte*>(compare);
  if (place.reach == Reach::direct) {
    if (place.atomics) {
      rma::compare_and_swap(place.direct, expected, in, out, bytes, *place.lock);
    } else {
      const rma::AccumulateLockGuard guard(*place.lock);
      std::memcpy(out, place.direct, bytes);
      if (std::memcmp(place.direct, expected, bytes) == 0) std::memcpy(place.direct, in, bytes);
    }
    return MPI_SUCCESS;
  }
  if (place.reach == Reach::cma) {
    std::byte both[16];
    std::memcpy(both, in, bytes);
    std::memcpy(both + bytes, expected, bytes);
    MailRequest r{rma::MailKind::compare_and_swap, place.offset, both, static_cast<std::uint32_t>(2 * bytes)};
    r.answer = out;
    r.answer_bytes = static_cast<std::uint32_t>(bytes);
    if (hand_over(w, op.target, r)) return MPI_SUCCESS;
    std::byte current[8];
    common::Status s;
    {
      const rma::AccumulateLockGuard guard(*place.lock);
      s = cma_move(op, place, false, current);
      if (s == common::Status::done && std::memcmp(current, expected, bytes) == 0) {
        s = cma_move(op, place, true, const_cast<std::byte*>(in));
      }
    }
    if (s == common::Status::done) {
      std::memcpy(out, current, bytes);
      return MPI_SUCCESS;
    }
    if (s == common::Status::error) return transport_failed(op);
    cma_refused(op, place);
  }
  return compare_and_swap_via_target(w, op.target, place.offset, h, in, expected, out);
}

// A request form's request, complete when the call returns: operations on
// the direct and CMA paths are complete by then, and the call completes
// one its target's engine applies before it returns (the slow path; a
// request that may complete later would have to carry its answer's
// unpacking).
int with_request(const char* call, Window& w, int target, MPI_Request* request, int rc) {
  if (rc != MPI_SUCCESS) return rc;
  if (target >= 0 && target < w.size && w.targets[static_cast<std::size_t>(target)].reach == Reach::via_target) {
    finish_operations(w, target, call);
  }
  MpiRequest& r = requests().add(request);
  r.active = true;
  r.is_send = true;
  r.call = call;
  r.comm = w.comm;
  r.peer = target;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Put", win, &rc);
  if (w == nullptr) return rc;
  return put({"MPI_Put", w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
             {origin_addr, origin_count, origin_datatype});
}

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Get", win, &rc);
  if (w == nullptr) return rc;
  return get({"MPI_Get", w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
             {origin_addr, origin_count, origin_datatype});
}

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Accumulate", win, &rc);
  if (w == nullptr) return rc;
  if (op == MPI_NO_OP) {
    return win_error("MPI_Accumulate", win, MPI_ERR_OP,
                     "MPI_NO_OP accumulates nothing: it is for MPI_Get_accumulate and MPI_Fetch_and_op");
  }
  return accumulate({"MPI_Accumulate", w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
                    {origin_addr, origin_count, origin_datatype}, {}, op);
}

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Get_accumulate", win, &rc);
  if (w == nullptr) return rc;
  return accumulate({"MPI_Get_accumulate", w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
                    {origin_addr, origin_count, origin_datatype}, {result_addr, result_count, result_datatype}, op);
}

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Fetch_and_op", win, &rc);
  if (w == nullptr) return rc;
  return accumulate({"MPI_Fetch_and_op", w, target_rank, target_disp, {nullptr, 1, datatype}},
                    {origin_addr, 1, datatype}, {result_addr, 1, datatype}, op);
}

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win) {
  int rc = 0;
  Window* w = window_of("MPI_Compare_and_swap", win, &rc);
  if (w == nullptr) return rc;
  return compare_and_swap({"MPI_Compare_and_swap", w, target_rank, target_disp, {nullptr, 1, datatype}}, origin_addr,
                          compare_addr, result_addr);
}

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  const char* call = "MPI_Rput";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (request == nullptr) return win_error(call, win, MPI_ERR_REQUEST, "request is NULL");
  rc = put({call, w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
           {origin_addr, origin_count, origin_datatype});
  return with_request(call, *w, target_rank, request, rc);
}

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  const char* call = "MPI_Rget";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (request == nullptr) return win_error(call, win, MPI_ERR_REQUEST, "request is NULL");
  rc = get({call, w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
           {origin_addr, origin_count, origin_datatype});
  return with_request(call, *w, target_rank, request, rc);
}

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  const char* call = "MPI_Raccumulate";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (request == nullptr) return win_error(call, win, MPI_ERR_REQUEST, "request is NULL");
  rc = accumulate({call, w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
                  {origin_addr, origin_count, origin_datatype}, {}, op);
  return with_request(call, *w, target_rank, request, rc);
}

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  const char* call = "MPI_Rget_accumulate";
  int rc = 0;
  Window* w = window_of(call, win, &rc);
  if (w == nullptr) return rc;
  if (request == nullptr) return win_error(call, win, MPI_ERR_REQUEST, "request is NULL");
  rc = accumulate({call, w, target_rank, target_disp, {nullptr, target_count, target_datatype}},
                  {origin_addr, origin_count, origin_datatype}, {result_addr, result_count, result_datatype}, op);
  return with_request(call, *w, target_rank, request, rc);
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Put = PMPI_Put
#pragma weak MPI_Get = PMPI_Get
#pragma weak MPI_Accumulate = PMPI_Accumulate
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
#pragma weak MPI_Rput = PMPI_Rput
#pragma weak MPI_Rget = PMPI_Rget
#pragma weak MPI_Raccumulate = PMPI_Raccumulate
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate

}  // extern "C"
