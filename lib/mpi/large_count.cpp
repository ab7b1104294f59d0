// The large-count forms (MPI-4.0 §2.5.8) of point-to-point, statuses, the
// attached buffer, the datatype constructors and queries, and packing; the
// rule they follow is large_count.hpp's. The decoding calls' _c forms are in
// datatype_decoding.cpp, MPI_Op_create_c in coll/ops.cpp, the collectives'
// in large_count_coll.cpp.
#include "mpi/large_count.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "mpi/buffered.hpp"
#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/datatype_table.hpp"
#include "mpi/errors.hpp"
#include "mpi/requests.hpp"

namespace mpf::mpi::large {
namespace {

// True when `t`'s element is one contiguous block, which a count above
// INT_MAX repeats as one (strided) block: the only layouts such a count
// can be built of (datatype_table.hpp, check_large_entry).
bool one_block(const TypeInfo& t) { return t.blocks.size() == 1 && t.blocks[0].count == 1; }

std::string limit_text() { return "INT_MAX (" + std::to_string(INT_MAX) + ")"; }

// `a` * `b` for non-negative operands, or false when it overflows 63 bits.
bool product(MPI_Count a, std::uint64_t b, MPI_Count* out) {
  std::int64_t p = 0;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), &p)) return false;
  *out = p;
  return true;
}

}  // namespace

Counted::~Counted() {
  if (made_ != MPI_DATATYPE_NULL) PMPI_Type_free(&made_);
}

int Counted::describe(const char* call, MPI_Comm comm, const char* what, const void* buf, MPI_Count count,
                      MPI_Datatype datatype) {
  type_ = datatype;
  if (int_sized(count) || !comm_is_valid(comm)) {
    count_ = int_sized(count) ? static_cast<int>(count) : 0;
    return MPI_SUCCESS;
  }
  if (count < 0) {
    return comm_error(call, comm, MPI_ERR_COUNT, std::string("negative ") + what + "count " + std::to_string(count));
  }
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) {
    return comm_error(call, comm, MPI_ERR_TYPE, std::string(what) + "datatype: " + datatype_problem(datatype));
  }
  if (!one_block(*t)) {
    return comm_error(call, comm, MPI_ERR_COUNT,
                      std::string(what) + "count " + std::to_string(count) + " is above " + limit_text() + " and " +
                          datatype_name(datatype) + " is not one contiguous block per element (" +
                          std::to_string(t->blocks.size()) +
                          " blocks): a count that large is taken only of such a type (a basic, contiguous or resized "
                          "one); send a count at most INT_MAX of a larger type instead");
  }
  MPI_Count extent = 0, bytes = 0;
  if (!product(count, static_cast<std::uint64_t>(std::max<std::int64_t>(t->extent(), 0)), &extent) ||
      !product(count, t->size, &bytes)) {
    return comm_error(call, comm, MPI_ERR_COUNT,
                      std::string(what) + "count " + std::to_string(count) + " of " + datatype_name(datatype) +
                          " spans more bytes than an MPI_Count holds");
  }
  // NULL is MPI_BOTTOM for a derived type with absolute addresses.
  if (buf == nullptr && t->predefined && t->size > 0) {
    return comm_error(call, comm, MPI_ERR_BUFFER,
                      std::string(what) + "buffer is NULL for " + std::to_string(count) + " elements");
  }
  TypeInfo made = build({{0, static_cast<std::uint64_t>(count), t, t->extent()}}, false);
  made.committed = true;
  made.recipe = {MPI_COMBINER_CONTIGUOUS, {}, {}, {type_argument(datatype)}};
  made.recipe.large_counts = {count};
  made_ = add_type(std::move(made));
  type_ = made_;
  count_ = 1;
  return MPI_SUCCESS;
}

int too_large(const char* call, MPI_Comm comm, const std::string& what, MPI_Count value, const char* detail) {
  return comm_error(call, comm, MPI_ERR_COUNT,
                    what + " = " + std::to_string(value) + " is outside the int range (" + std::to_string(INT_MIN) +
                        ".." + std::to_string(INT_MAX) + "): " + detail);
}

template <class T>
int narrow(const char* call, MPI_Comm comm, const char* what, const T* in, std::size_t n, std::vector<int>& out,
           const int** data) {
  *data = nullptr;
  if (in == nullptr) return MPI_SUCCESS;
  out.resize(std::max<std::size_t>(n, 1));  // a given array stays non-null, even when empty
  for (std::size_t i = 0; i < n; ++i) {
    if (!int_sized(in[i])) {
      return too_large(call, comm, std::string(what) + "[" + std::to_string(i) + "]", in[i],
                       "the counts and displacements of the vector collectives are ints here; move the data in "
                       "several calls, or describe it with a larger datatype");
    }
    out[i] = static_cast<int>(in[i]);
  }
  *data = out.data();
  return MPI_SUCCESS;
}

template int narrow<MPI_Count>(const char*, MPI_Comm, const char*, const MPI_Count*, std::size_t, std::vector<int>&,
                               const int**);
template int narrow<MPI_Aint>(const char*, MPI_Comm, const char*, const MPI_Aint*, std::size_t, std::vector<int>&,
                              const int**);

}  // namespace mpf::mpi::large

namespace {

using namespace mpf::mpi;
using large::Counted;
using large::int_sized;

// ---- point-to-point ------------------------------------------------------

// A blocking send or receive of `count` elements: `send` is the int form.
template <class Call>
int single(const char* call, MPI_Comm comm, const void* buf, MPI_Count count, MPI_Datatype datatype, Call&& send) {
  Counted data;
  if (int rc = data.describe(call, comm, "", buf, count, datatype)) return rc;
  return send(data.count(), data.type());
}

// ---- datatypes -------------------------------------------------------------

// A large-count constructor's arguments, checked as the int form checks them.
int begin_type(const char* call, MPI_Datatype oldtype, MPI_Datatype* newtype, const TypeInfo** old) {
  require_initialized(call);
  if (int rc = old_type(call, oldtype, old)) return rc;
  return check_out(call, newtype);
}

int negative(const char* call, const std::string& what, MPI_Count value, int error_class = MPI_ERR_COUNT) {
  return type_error(call, error_class, "negative " + what + " " + std::to_string(value));
}

// `count` copies of `type`, `stride` bytes apart from `disp`, checked for
// the size of its flattened layout.
int entry(const char* call, const std::string& what, MPI_Count count, std::int64_t disp, const TypeInfo* type,
          std::int64_t stride, std::vector<Entry>& out) {
  const Entry e{disp, static_cast<std::uint64_t>(count), type, stride};
  if (int rc = check_large_entry(call, e, what.c_str())) return rc;
  out.push_back(e);
  return MPI_SUCCESS;
}

// A type with a large-count recipe: `counts` in the MPI-4.0 order.
MPI_Datatype add_large(TypeInfo t, int combiner, std::vector<int> integers, std::vector<MPI_Count> counts,
                       std::vector<TypeArgument> types) {
  t.recipe = {combiner, std::move(integers), {}, std::move(types)};
  t.recipe.large_counts = std::move(counts);
  return add_type(std::move(t));
}

bool all_int_sized(const MPI_Count* a, MPI_Count n) {
  if (a == nullptr) return true;
  return std::all_of(a, a + n, int_sized);
}

std::vector<int> ints(const MPI_Count* a, MPI_Count n) {
  return a == nullptr ? std::vector<int>() : std::vector<int>(a, a + n);
}

std::vector<MPI_Aint> addresses(const MPI_Count* a, MPI_Count n) {
  return a == nullptr ? std::vector<MPI_Aint>() : std::vector<MPI_Aint>(a, a + n);
}

// The int form's array argument: null when the caller's was (the int form
// reports it, if it needed one).
template <class T>
const T* array_or_null(const MPI_Count* given, const std::vector<T>& converted) {
  return given == nullptr ? nullptr : converted.data();
}

// The indexed constructors above INT_MAX: block i is lengths[i] (or, for
// the _block ones, `constant`) old elements at displs[i] old extents
// (`in_bytes`: bytes).
int indexed_large(const char* call, int combiner, MPI_Count count, const MPI_Count lengths[], bool is_block,
                  MPI_Count constant, const MPI_Count displs[], bool in_bytes, MPI_Datatype oldtype,
                  MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  if (int rc = begin_type(call, oldtype, newtype, &old)) return rc;
  if (count < 0) return negative(call, "count", count);
  if (is_block && constant < 0) return negative(call, "block length", constant, MPI_ERR_ARG);
  if (count > 0 && ((!is_block && lengths == nullptr) || displs == nullptr)) {
    return type_error(call, MPI_ERR_ARG, "a block length or displacement array is NULL");
  }
  std::vector<Entry> entries;
  std::vector<MPI_Count> counts = {count};
  if (is_block) counts.push_back(constant);
  for (MPI_Count i = 0; i < count; ++i) {
    const MPI_Count len = is_block ? constant : lengths[i];
    if (len < 0) {
      return type_error(call, MPI_ERR_ARG,
                        "negative block length " + std::to_string(len) + " of block " + std::to_string(i));
    }
    const std::int64_t disp = in_bytes ? displs[i] : displs[i] * old->extent();
    const std::string what = is_block ? "blocklength" : "array_of_blocklengths[" + std::to_string(i) + "]";
    if (int rc = entry(call, what, len, disp, old, old->extent(), entries)) return rc;
  }
  if (!is_block) counts.insert(counts.end(), lengths, lengths + count);
  counts.insert(counts.end(), displs, displs + count);
  *newtype = add_large(build(entries, false), combiner, {}, std::move(counts), {type_argument(oldtype)});
  return MPI_SUCCESS;
}

int vector_large(const char* call, int combiner, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                 bool stride_in_bytes, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const TypeInfo* old = nullptr;
  if (int rc = begin_type(call, oldtype, newtype, &old)) return rc;
  if (count < 0) return negative(call, "count", count);
  if (blocklength < 0) return negative(call, "block length", blocklength);
  std::vector<Entry> one;
  if (int rc = entry(call, "blocklength", blocklength, 0, old, old->extent(), one)) return rc;
  const TypeInfo block = build(one, false);
  std::vector<Entry> all;
  const std::int64_t stride_bytes = stride_in_bytes ? stride : stride * old->extent();
  if (int rc = entry(call, "count", count, 0, &block, stride_bytes, all)) return rc;
  *newtype = add_large(build(all, false), combiner, {}, {count, blocklength, stride}, {type_argument(oldtype)});
  return MPI_SUCCESS;
}

// ---- packing ------------------------------------------------------------------

// The arguments MPI_Pack and MPI_Unpack check, for their large forms.
int check_pack(const char* call, MPI_Comm comm, MPI_Count count, MPI_Datatype datatype, const MPI_Count* position,
               const TypeInfo** type) {
  require_initialized(call);
  if (!comm_is_valid(comm)) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COMM, describe_bad_comm(comm));
  if (count < 0) return comm_error(call, comm, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error(call, comm, MPI_ERR_TYPE, problem);
  if (position == nullptr || *position < 0) return comm_error(call, comm, MPI_ERR_ARG, "invalid position");
  *type = find_type(datatype);
  return MPI_SUCCESS;
}

// `count` elements of `type` in bytes, with room for them between
// `position` and `size`; else the error.
int packed_bytes(const char* call, MPI_Comm comm, MPI_Count count, const TypeInfo& type, MPI_Count position,
                 MPI_Count size, MPI_Count* bytes) {
  std::int64_t b = 0;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(count), static_cast<std::int64_t>(type.size), &b) ||
      b > size - position) {
    return comm_error(call, comm, MPI_ERR_TRUNCATE,
                      "needs " + std::to_string(count) + " x " + std::to_string(type.size) +
                          " bytes but the packed buffer has " + std::to_string(size - position) + " left");
  }
  *bytes = b;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

// ---- point-to-point -----------------------------------------------------------

int PMPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return single("MPI_Send_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Send(buf, n, t, dest, tag, comm); });
}
int PMPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return single("MPI_Bsend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Bsend(buf, n, t, dest, tag, comm); });
}
int PMPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return single("MPI_Ssend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Ssend(buf, n, t, dest, tag, comm); });
}
int PMPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  return single("MPI_Rsend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Rsend(buf, n, t, dest, tag, comm); });
}
int PMPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  return single("MPI_Recv_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Recv(buf, n, t, source, tag, comm, status); });
}

int PMPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return single("MPI_Isend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Isend(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return single("MPI_Ibsend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Ibsend(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return single("MPI_Issend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Issend(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return single("MPI_Irsend_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Irsend(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                 MPI_Request* request) {
  return single("MPI_Irecv_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Irecv(buf, n, t, source, tag, comm, request); });
}

int PMPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return single("MPI_Send_init_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Send_init(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return single("MPI_Bsend_init_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Bsend_init(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return single("MPI_Ssend_init_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Ssend_init(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPI_Request* request) {
  return single("MPI_Rsend_init_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Rsend_init(buf, n, t, dest, tag, comm, request); });
}
int PMPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) {
  return single("MPI_Recv_init_c", comm, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Recv_init(buf, n, t, source, tag, comm, request); });
}

int PMPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                    MPI_Status* status) {
  const char* call = "MPI_Sendrecv_c";
  Counted send, recv;
  if (int rc = send.describe(call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = recv.describe(call, comm, "receive ", recvbuf, recvcount, recvtype)) return rc;
  return PMPI_Sendrecv(sendbuf, send.count(), send.type(), dest, sendtag, recvbuf, recv.count(), recv.type(), source,
                       recvtag, comm, status);
}

int PMPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                     MPI_Request* request) {
  const char* call = "MPI_Isendrecv_c";
  Counted send, recv;
  if (int rc = send.describe(call, comm, "send ", sendbuf, sendcount, sendtype)) return rc;
  if (int rc = recv.describe(call, comm, "receive ", recvbuf, recvcount, recvtype)) return rc;
  return PMPI_Isendrecv(sendbuf, send.count(), send.type(), dest, sendtag, recvbuf, recv.count(), recv.type(), source,
                        recvtag, comm, request);
}

}  // extern "C"

namespace {

// The replace forms pack the outgoing message aside and send it as bytes,
// which the int forms count in an int: a message of more bytes is packed
// here and sent through the _c forms. `outgoing` gets the packed bytes;
// false when the int form can take the call as it is (errors included).
bool pack_aside(MPI_Comm comm, const void* buf, MPI_Count count, MPI_Datatype datatype,
                std::vector<std::byte>& outgoing) {
  const TypeInfo* t = usable_type(datatype);
  if (!comm_is_valid(comm) || t == nullptr || count < 0 || t->size == 0) return false;
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::int64_t>(count), static_cast<std::int64_t>(t->size), &bytes) ||
      bytes <= INT_MAX) {
    return false;
  }
  outgoing.resize(static_cast<std::size_t>(bytes));
  pack(*t, buf, static_cast<std::uint64_t>(count), outgoing.data());
  return true;
}

}  // namespace

extern "C" {

int PMPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status* status) {
  const char* call = "MPI_Sendrecv_replace_c";
  require_initialized(call);
  std::vector<std::byte> outgoing;
  if (pack_aside(comm, buf, count, datatype, outgoing)) {
    return PMPI_Sendrecv_c(outgoing.data(), static_cast<MPI_Count>(outgoing.size()), MPI_BYTE, dest, sendtag, buf,
                           count, datatype, source, recvtag, comm, status);
  }
  return single(call, comm, buf, count, datatype, [&](int n, MPI_Datatype t) {
    return PMPI_Sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, status);
  });
}

int PMPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Isendrecv_replace_c";
  require_initialized(call);
  std::vector<std::byte> outgoing;
  if (pack_aside(comm, buf, count, datatype, outgoing)) {
    if (int rc = PMPI_Isendrecv_c(outgoing.data(), static_cast<MPI_Count>(outgoing.size()), MPI_BYTE, dest, sendtag,
                                  buf, count, datatype, source, recvtag, comm, request)) {
      return rc;
    }
    // The send reads `outgoing` (its bytes are one contiguous type, used in
    // place) until the request completes: the request keeps it, as the int
    // form keeps its own copy. Moving a vector keeps its heap block.
    MpiRequest* r = requests().get(*request);
    if (r != nullptr && r->outgoing.empty()) r->outgoing = std::move(outgoing);
    return MPI_SUCCESS;
  }
  return single(call, comm, buf, count, datatype, [&](int n, MPI_Datatype t) {
    return PMPI_Isendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, request);
  });
}

int PMPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  return single("MPI_Mrecv_c", MPI_COMM_WORLD, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Mrecv(buf, n, t, message, status); });
}
int PMPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request) {
  return single("MPI_Imrecv_c", MPI_COMM_WORLD, buf, count, datatype,
                [&](int n, MPI_Datatype t) { return PMPI_Imrecv(buf, n, t, message, request); });
}

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) { return attach_buffer("MPI_Buffer_attach_c", buffer, size); }
int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return detach_buffer("MPI_Buffer_detach_c", buffer_addr, size, LLONG_MAX);
}

// ---- statuses -------------------------------------------------------------------

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error("MPI_Get_count_c", MPI_COMM_WORLD, MPI_ERR_TYPE, problem);
  const std::uint64_t size = find_type(datatype)->size;
  const auto bytes = static_cast<std::uint64_t>(status->mpf_bytes);
  if (size == 0) {
    *count = 0;
  } else {
    *count = bytes % size == 0 ? static_cast<MPI_Count>(bytes / size) : MPI_UNDEFINED;
  }
  return MPI_SUCCESS;
}

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  const std::string problem = datatype_problem(datatype);
  if (!problem.empty()) return comm_error("MPI_Get_elements_c", MPI_COMM_WORLD, MPI_ERR_TYPE, problem);
  *count = static_cast<MPI_Count>(basic_elements(*find_type(datatype), static_cast<std::uint64_t>(status->mpf_bytes)));
  return MPI_SUCCESS;
}

int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return PMPI_Status_set_elements_x(status, datatype, count);
}

// ---- datatype constructors --------------------------------------------------------

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_contiguous_c";
  if (int_sized(count)) return PMPI_Type_contiguous(static_cast<int>(count), oldtype, newtype);
  const TypeInfo* old = nullptr;
  if (int rc = begin_type(call, oldtype, newtype, &old)) return rc;
  if (count < 0) return negative(call, "count", count);
  std::vector<Entry> entries;
  if (int rc = entry(call, "count", count, 0, old, old->extent(), entries)) return rc;
  *newtype = add_large(build(entries, false), MPI_COMBINER_CONTIGUOUS, {}, {count}, {type_argument(oldtype)});
  return MPI_SUCCESS;
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  if (int_sized(count) && int_sized(blocklength) && int_sized(stride)) {
    return PMPI_Type_vector(static_cast<int>(count), static_cast<int>(blocklength), static_cast<int>(stride), oldtype,
                            newtype);
  }
  return vector_large("MPI_Type_vector_c", MPI_COMBINER_VECTOR, count, blocklength, stride, false, oldtype, newtype);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  if (int_sized(count) && int_sized(blocklength)) {
    return PMPI_Type_create_hvector(static_cast<int>(count), static_cast<int>(blocklength), stride, oldtype, newtype);
  }
  return vector_large("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, count, blocklength, stride, true, oldtype,
                      newtype);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (int_sized(count) && (count <= 0 || (all_int_sized(array_of_blocklengths, count) &&
                                          all_int_sized(array_of_displacements, count)))) {
    const MPI_Count n = std::max<MPI_Count>(count, 0);
    const std::vector<int> lengths = ints(array_of_blocklengths, n), displs = ints(array_of_displacements, n);
    return PMPI_Type_indexed(static_cast<int>(count), array_or_null(array_of_blocklengths, lengths),
                             array_or_null(array_of_displacements, displs), oldtype, newtype);
  }
  return indexed_large("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count, array_of_blocklengths, false, 0,
                       array_of_displacements, false, oldtype, newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  if (int_sized(count) && (count <= 0 || all_int_sized(array_of_blocklengths, count))) {
    const MPI_Count n = std::max<MPI_Count>(count, 0);
    const std::vector<int> lengths = ints(array_of_blocklengths, n);
    const std::vector<MPI_Aint> displs = addresses(array_of_displacements, n);
    return PMPI_Type_create_hindexed(static_cast<int>(count), array_or_null(array_of_blocklengths, lengths),
                                     array_or_null(array_of_displacements, displs), oldtype, newtype);
  }
  return indexed_large("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count, array_of_blocklengths, false, 0,
                       array_of_displacements, true, oldtype, newtype);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (int_sized(count) && int_sized(blocklength) && (count <= 0 || all_int_sized(array_of_displacements, count))) {
    const std::vector<int> displs = ints(array_of_displacements, std::max<MPI_Count>(count, 0));
    return PMPI_Type_create_indexed_block(static_cast<int>(count), static_cast<int>(blocklength),
                                          array_or_null(array_of_displacements, displs), oldtype, newtype);
  }
  return indexed_large("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count, nullptr, true,
                       blocklength, array_of_displacements, false, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  if (int_sized(count) && int_sized(blocklength)) {
    const std::vector<MPI_Aint> displs = addresses(array_of_displacements, std::max<MPI_Count>(count, 0));
    return PMPI_Type_create_hindexed_block(static_cast<int>(count), static_cast<int>(blocklength),
                                           array_or_null(array_of_displacements, displs), oldtype, newtype);
  }
  return indexed_large("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, count, nullptr, true,
                       blocklength, array_of_displacements, true, oldtype, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_struct_c";
  if (int_sized(count) && (count <= 0 || all_int_sized(array_of_blocklengths, count))) {
    const MPI_Count n = std::max<MPI_Count>(count, 0);
    const std::vector<int> lengths = ints(array_of_blocklengths, n);
    const std::vector<MPI_Aint> displs = addresses(array_of_displacements, n);
    return PMPI_Type_create_struct(static_cast<int>(count), array_or_null(array_of_blocklengths, lengths),
                                   array_or_null(array_of_displacements, displs), array_of_types, newtype);
  }
  require_initialized(call);
  if (int rc = check_out(call, newtype)) return rc;
  if (count < 0) return negative(call, "count", count);
  if (array_of_blocklengths == nullptr || array_of_displacements == nullptr || array_of_types == nullptr) {
    return type_error(call, MPI_ERR_ARG, "a block length, displacement or type array is NULL");
  }
  std::vector<Entry> entries;
  std::vector<TypeArgument> types;
  for (MPI_Count i = 0; i < count; ++i) {
    const TypeInfo* old = nullptr;
    if (int rc = old_type(call, array_of_types[i], &old)) return rc;
    if (array_of_blocklengths[i] < 0) {
      return type_error(call, MPI_ERR_ARG, "negative block length for block " + std::to_string(i));
    }
    if (int rc = entry(call, "array_of_blocklengths[" + std::to_string(i) + "]", array_of_blocklengths[i],
                       array_of_displacements[i], old, old->extent(), entries)) {
      return rc;
    }
    types.push_back(type_argument(array_of_types[i]));
  }
  std::vector<MPI_Count> counts = {count};
  counts.insert(counts.end(), array_of_blocklengths, array_of_blocklengths + count);
  counts.insert(counts.end(), array_of_displacements, array_of_displacements + count);
  *newtype = add_large(build(entries, true), MPI_COMBINER_STRUCT, {}, std::move(counts), std::move(types));
  return MPI_SUCCESS;
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_subarray_c";
  const MPI_Count n = std::max(ndims, 0);
  if (all_int_sized(array_of_sizes, n) && all_int_sized(array_of_subsizes, n) && all_int_sized(array_of_starts, n)) {
    const std::vector<int> sizes = ints(array_of_sizes, n), subsizes = ints(array_of_subsizes, n),
                           starts = ints(array_of_starts, n);
    return PMPI_Type_create_subarray(ndims, array_or_null(array_of_sizes, sizes),
                                     array_or_null(array_of_subsizes, subsizes), array_or_null(array_of_starts, starts),
                                     order, oldtype, newtype);
  }
  // Some size is above INT_MAX, so every array is there and ndims > 0.
  const TypeInfo* old = nullptr;
  if (int rc = begin_type(call, oldtype, newtype, &old)) return rc;
  if (array_of_sizes == nullptr || array_of_subsizes == nullptr || array_of_starts == nullptr) {
    return type_error(call, MPI_ERR_ARG, "ndims " + std::to_string(ndims) + " must be positive, with non-NULL arrays");
  }
  TypeInfo t;
  if (int rc = subarray_layout(call, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, *old, &t)) {
    return rc;
  }
  std::vector<MPI_Count> counts;
  for (const MPI_Count* a : {array_of_sizes, array_of_subsizes, array_of_starts}) counts.insert(counts.end(), a, a + n);
  *newtype =
      add_large(std::move(t), MPI_COMBINER_SUBARRAY, {ndims, order}, std::move(counts), {type_argument(oldtype)});
  return MPI_SUCCESS;
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_darray_c";
  const MPI_Count n = std::max(ndims, 0);
  if (all_int_sized(array_of_gsizes, n)) {
    const std::vector<int> gsizes = ints(array_of_gsizes, n);
    return PMPI_Type_create_darray(size, rank, ndims, array_or_null(array_of_gsizes, gsizes), array_of_distribs,
                                   array_of_dargs, array_of_psizes, order, oldtype, newtype);
  }
  const TypeInfo* old = nullptr;
  if (int rc = begin_type(call, oldtype, newtype, &old)) return rc;
  if (array_of_distribs == nullptr || array_of_dargs == nullptr || array_of_psizes == nullptr) {
    return type_error(call, MPI_ERR_ARG, "ndims " + std::to_string(ndims) + " must be positive, with non-NULL arrays");
  }
  TypeInfo t;
  if (int rc = darray_layout(call, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                             array_of_psizes, order, *old, &t)) {
    return rc;
  }
  std::vector<int> integers = {size, rank, ndims};
  for (const int* a : {array_of_distribs, array_of_dargs, array_of_psizes}) integers.insert(integers.end(), a, a + n);
  integers.push_back(order);
  *newtype = add_large(std::move(t), MPI_COMBINER_DARRAY, std::move(integers),
                       std::vector<MPI_Count>(array_of_gsizes, array_of_gsizes + n), {type_argument(oldtype)});
  return MPI_SUCCESS;
}

// Bounds are addresses in either form (MPI_Count and MPI_Aint are both 64
// bits here), so the int form takes any.
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype* newtype) {
  return PMPI_Type_create_resized(oldtype, lb, extent, newtype);
}

// ---- datatype queries ---------------------------------------------------------------

}  // extern "C"

namespace {

int queried(const char* call, MPI_Datatype datatype, const TypeInfo** t) {
  *t = find_type(datatype);
  if (*t == nullptr) return type_error(call, MPI_ERR_TYPE, "invalid datatype " + datatype_name(datatype));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  const TypeInfo* t = nullptr;
  if (int rc = queried("MPI_Type_size_c", datatype, &t)) return rc;
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  const TypeInfo* t = nullptr;
  if (int rc = queried("MPI_Type_get_extent_c", datatype, &t)) return rc;
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  const TypeInfo* t = nullptr;
  if (int rc = queried("MPI_Type_get_true_extent_c", datatype, &t)) return rc;
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}

// ---- packing ------------------------------------------------------------------------

int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                MPI_Count* position, MPI_Comm comm) {
  const char* call = "MPI_Pack_c";
  if (int_sized(incount) && int_sized(outsize) && position != nullptr && int_sized(*position)) {
    int at = static_cast<int>(*position);
    const int rc = PMPI_Pack(inbuf, static_cast<int>(incount), datatype, outbuf, static_cast<int>(outsize), &at, comm);
    if (rc == MPI_SUCCESS) *position = at;
    return rc;
  }
  const TypeInfo* type = nullptr;
  if (int rc = check_pack(call, comm, incount, datatype, position, &type)) return rc;
  MPI_Count bytes = 0;
  if (int rc = packed_bytes(call, comm, incount, *type, *position, outsize, &bytes)) return rc;
  pack(*type, inbuf, static_cast<std::uint64_t>(incount), static_cast<std::byte*>(outbuf) + *position);
  *position += bytes;
  return MPI_SUCCESS;
}

int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm) {
  const char* call = "MPI_Unpack_c";
  if (int_sized(insize) && int_sized(outcount) && position != nullptr && int_sized(*position)) {
    int at = static_cast<int>(*position);
    const int rc =
        PMPI_Unpack(inbuf, static_cast<int>(insize), &at, outbuf, static_cast<int>(outcount), datatype, comm);
    if (rc == MPI_SUCCESS) *position = at;
    return rc;
  }
  const TypeInfo* type = nullptr;
  if (int rc = check_pack(call, comm, outcount, datatype, position, &type)) return rc;
  MPI_Count bytes = 0;
  if (int rc = packed_bytes(call, comm, outcount, *type, *position, insize, &bytes)) return rc;
  unpack(*type, static_cast<const std::byte*>(inbuf) + *position, static_cast<std::uint64_t>(bytes), outbuf);
  *position += bytes;
  return MPI_SUCCESS;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  const char* call = "MPI_Pack_size_c";
  const MPI_Count start = 0;
  const TypeInfo* type = nullptr;
  if (int rc = check_pack(call, comm, incount, datatype, &start, &type)) return rc;
  return packed_bytes(call, comm, incount, *type, 0, LLONG_MAX, size);
}

int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void* outbuf, MPI_Count outsize, MPI_Count* position) {
  const char* call = "MPI_Pack_external_c";
  require_initialized(call);
  if (position == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "position is NULL");
  Counted data;
  if (int rc = data.describe(call, MPI_COMM_WORLD, "", inbuf, incount, datatype)) return rc;
  MPI_Aint at = *position;
  const int rc = PMPI_Pack_external(datarep, inbuf, data.count(), data.type(), outbuf, outsize, &at);
  if (rc == MPI_SUCCESS) *position = at;
  return rc;
}

int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                           void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  const char* call = "MPI_Unpack_external_c";
  require_initialized(call);
  if (position == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "position is NULL");
  Counted data;
  if (int rc = data.describe(call, MPI_COMM_WORLD, "", outbuf, outcount, datatype)) return rc;
  MPI_Aint at = *position;
  const int rc = PMPI_Unpack_external(datarep, inbuf, insize, &at, outbuf, data.count(), data.type());
  if (rc == MPI_SUCCESS) *position = at;
  return rc;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  const char* call = "MPI_Pack_external_size_c";
  MPI_Aint bytes = 0;
  if (int_sized(incount)) {
    const int rc = PMPI_Pack_external_size(datarep, static_cast<int>(incount), datatype, &bytes);
    if (rc == MPI_SUCCESS) *size = bytes;
    return rc;
  }
  // The size of one element, times the count.
  if (int rc = PMPI_Pack_external_size(datarep, 1, datatype, &bytes)) return rc;
  if (incount < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "negative count " + std::to_string(incount));
  if (__builtin_mul_overflow(static_cast<std::int64_t>(incount), static_cast<std::int64_t>(bytes), size)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT,
                      "count " + std::to_string(incount) + " of " + datatype_name(datatype) +
                          " packs into more bytes than an MPI_Count holds");
  }
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Send_c = PMPI_Send_c
#pragma weak MPI_Bsend_c = PMPI_Bsend_c
#pragma weak MPI_Ssend_c = PMPI_Ssend_c
#pragma weak MPI_Rsend_c = PMPI_Rsend_c
#pragma weak MPI_Recv_c = PMPI_Recv_c
#pragma weak MPI_Isend_c = PMPI_Isend_c
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
#pragma weak MPI_Issend_c = PMPI_Issend_c
#pragma weak MPI_Irsend_c = PMPI_Irsend_c
#pragma weak MPI_Irecv_c = PMPI_Irecv_c
#pragma weak MPI_Send_init_c = PMPI_Send_init_c
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
#pragma weak MPI_Buffer_attach_c = PMPI_Buffer_attach_c
#pragma weak MPI_Buffer_detach_c = PMPI_Buffer_detach_c
#pragma weak MPI_Get_count_c = PMPI_Get_count_c
#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c
#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
#pragma weak MPI_Type_size_c = PMPI_Type_size_c
#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
#pragma weak MPI_Pack_c = PMPI_Pack_c
#pragma weak MPI_Unpack_c = PMPI_Unpack_c
#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c

}  // extern "C"
