#include "mpi/reduce_ops.hpp"

#include <complex.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <cwchar>
#include <vector>

#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"

namespace mpf::mpi {
namespace {

// User operations from MPI_Op_create (`function`) or MPI_Op_create_c
// (`function_c`, whose length is an MPI_Count; MPI-4.0 §6.9.5): handle =
// kFirstUserOp + index. MPI_Op_free only marks an entry freed: reductions
// started before it still combine with it (MPI-3.1 §5.9.5), so entries are
// never reused.
struct UserOp {
  MPI_User_function* function = nullptr;
  MPI_User_function_c* function_c = nullptr;
  bool commutative = true;
  bool freed = false;

  // inout[i] = in[i] op inout[i] for `count` elements of `datatype`, by
  // whichever function the program gave.
  void call(void* in, void* inout, std::uint64_t count, MPI_Datatype datatype) const {
    MPI_Datatype type = datatype;
    if (function_c != nullptr) {
      MPI_Count len = static_cast<MPI_Count>(count);
      function_c(in, inout, &len, &type);
    } else {
      int len = static_cast<int>(count);  // the reductions never pass more than INT_MAX elements
      function(in, inout, &len, &type);
    }
  }
};
constexpr MPI_Op kFirstUserOp = 64;
std::vector<UserOp> g_user_ops;

// The operation behind a handle, freed or not (for reductions in flight).
const UserOp* any_user_op(MPI_Op op) {
  if (op < kFirstUserOp || static_cast<std::size_t>(op - kFirstUserOp) >= g_user_ops.size()) return nullptr;
  return &g_user_ops[static_cast<std::size_t>(op - kFirstUserOp)];
}

// The operation behind a handle the program may still pass to a call.
const UserOp* user_op(MPI_Op op) {
  const UserOp* u = any_user_op(op);
  return u != nullptr && !u->freed ? u : nullptr;
}

bool is_predefined(MPI_Op op) { return op >= MPI_MAX && op <= MPI_NO_OP; }

// What kind of element a predefined datatype is, for the op rules.
enum class Kind { integer, floating, logical, complex, byte, pair, none };

// The sized type an unnamed predefined type (MPI_Type_create_f90_*) shares
// its data and operations with, or MPI_DATATYPE_NULL for any other handle.
MPI_Datatype sized_type_of(MPI_Datatype t) {
  const TypeInfo* info = find_type(t);
  return info != nullptr && info->predefined && info->basic != t ? info->basic : MPI_DATATYPE_NULL;
}

// MPI 3.1 §5.9.2's classes; MPI_CHARACTER is in none of them.
Kind kind_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_WCHAR: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T:
    case MPI_INT64_T: case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT:
    case MPI_OFFSET: case MPI_COUNT: case MPI_INTEGER: case MPI_INTEGER1: case MPI_INTEGER2: case MPI_INTEGER4:
    case MPI_INTEGER8:
      return Kind::integer;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE: case MPI_REAL: case MPI_DOUBLE_PRECISION: case MPI_REAL4:
    case MPI_REAL8: case MPI_REAL16:
      return Kind::floating;
    case MPI_C_BOOL: case MPI_CXX_BOOL: case MPI_LOGICAL: return Kind::logical;
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_COMPLEX:
    case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX8: case MPI_COMPLEX16: case MPI_COMPLEX32: case MPI_CXX_FLOAT_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return Kind::complex;
    case MPI_BYTE: return Kind::byte;
    case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_2INT: case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT: case MPI_2REAL: case MPI_2DOUBLE_PRECISION: case MPI_2INTEGER:
      return Kind::pair;
    default: {
      const MPI_Datatype sized = sized_type_of(t);
      return sized != MPI_DATATYPE_NULL ? kind_of(sized) : Kind::none;
    }
  }
}

bool op_allows(MPI_Op op, Kind k) {
  switch (op) {
    case MPI_MAX: case MPI_MIN: return k == Kind::integer || k == Kind::floating;
    case MPI_SUM: case MPI_PROD: return k == Kind::integer || k == Kind::floating || k == Kind::complex;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR: return k == Kind::integer || k == Kind::logical;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR: return k == Kind::integer || k == Kind::byte;
    case MPI_MINLOC: case MPI_MAXLOC: return k == Kind::pair;
    case MPI_REPLACE: case MPI_NO_OP: return k != Kind::none;
    default: return false;
  }
}

using mpf::coll::Element;

// The kernels' element type of a predefined datatype (the sized type's, for
// an unnamed one: MPI_Type_create_f90_*), opaque for any other.
Element element_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return Element::character;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: case MPI_INTEGER1: return Element::i8;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE: return Element::u8;
    case MPI_WCHAR: return Element::wide_character;
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: return Element::i16;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return Element::u16;
    // A Fortran LOGICAL is an int; the logical operations give 1 for true.
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL: return Element::i32;
    case MPI_UNSIGNED: case MPI_UINT32_T: return Element::u32;
    case MPI_LONG: case MPI_AINT: case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_OFFSET: case MPI_COUNT:
    case MPI_INTEGER8:
      return Element::i64;
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return Element::u64;
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return Element::f32;
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return Element::f64;
    case MPI_LONG_DOUBLE: return Element::long_double;
    case MPI_REAL16: return Element::quad;
    case MPI_C_BOOL: case MPI_CXX_BOOL: return Element::boolean;
    case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX:
      return Element::complex_f32;
    case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16: case MPI_CXX_DOUBLE_COMPLEX:
      return Element::complex_f64;
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: return Element::complex_long_double;
    case MPI_COMPLEX32: return Element::complex_quad;
    case MPI_2REAL: return Element::float_float;
    case MPI_2DOUBLE_PRECISION: return Element::double_double;
    case MPI_2INTEGER: case MPI_2INT: return Element::int_int;
    case MPI_FLOAT_INT: return Element::float_int;
    case MPI_DOUBLE_INT: return Element::double_int;
    case MPI_LONG_INT: return Element::long_int;
    case MPI_SHORT_INT: return Element::short_int;
    case MPI_LONG_DOUBLE_INT: return Element::long_double_int;
    default: {
      const MPI_Datatype sized = sized_type_of(t);
      return sized != MPI_DATATYPE_NULL ? element_of(sized) : Element::opaque;
    }
  }
}

mpf::coll::Op op_of(MPI_Op op) {
  using mpf::coll::Op;
  switch (op) {
    case MPI_MAX: return Op::max;
    case MPI_MIN: return Op::min;
    case MPI_SUM: return Op::sum;
    case MPI_PROD: return Op::prod;
    case MPI_LAND: return Op::land;
    case MPI_LOR: return Op::lor;
    case MPI_LXOR: return Op::lxor;
    case MPI_BAND: return Op::band;
    case MPI_BOR: return Op::bor;
    case MPI_BXOR: return Op::bxor;
    case MPI_MINLOC: return Op::minloc;
    case MPI_MAXLOC: return Op::maxloc;
    case MPI_REPLACE: return Op::replace;
    default: return Op::no_op;
  }
}

constexpr const char* kOpNames[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",
                                    "MPI_LAND",    "MPI_BAND", "MPI_LOR",  "MPI_BOR",    "MPI_LXOR",
                                    "MPI_BXOR",    "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == MPI_NO_OP + 1);

}  // namespace

std::string op_name(MPI_Op op) {
  if (op >= 0 && op <= MPI_NO_OP) return kOpNames[op];
  return "operation " + std::to_string(op);
}

std::string op_problem(MPI_Op op, MPI_Datatype datatype) {
  if (user_op(op) != nullptr) return {};
  if (!is_predefined(op)) return "invalid operation " + std::to_string(op);
  if (!op_allows(op, kind_of(datatype))) return op_name(op) + " is not defined for " + datatype_name(datatype);
  return {};
}

bool op_is_commutative(MPI_Op op) {
  const UserOp* u = any_user_op(op);
  return u == nullptr || u->commutative;
}

// A reduction's operation and element type: predefined operations work on
// the basic type a derived type is made of; user operations get the
// program's own type (a non-contiguous one is unpacked around each call of
// the function: coll/ops.cpp).
int check_op(const char* call, MPI_Comm comm, MPI_Op op, MPI_Datatype type, int count, MPI_Datatype* element,
             int* elements) {
  if (usable_type(type) == nullptr) return comm_error(call, comm, MPI_ERR_TYPE, datatype_problem(type));
  const TypeInfo& t = *find_type(type);
  *element = type;
  *elements = count;
  const bool predefined_op = op >= MPI_MAX && op <= MPI_NO_OP;
  if (!t.predefined && predefined_op) {
    if (t.basic == MPI_DATATYPE_NULL) {
      return comm_error(call, comm, MPI_ERR_TYPE,
                        datatype_name(type) + " mixes several predefined types; a predefined operation needs one");
    }
    *element = t.basic;
    const std::uint64_t basic = static_cast<std::uint64_t>(count) * t.basic_count;
    if (basic > static_cast<std::uint64_t>(INT32_MAX)) {
      return comm_error(call, comm, MPI_ERR_COUNT,
                        std::to_string(count) + " elements of " + datatype_name(type) + " hold " +
                            std::to_string(basic) + " elements of " + datatype_name(t.basic) +
                            ", more than a predefined operation takes at once (INT_MAX)");
    }
    *elements = static_cast<int>(basic);
  }
  const std::string problem = op_problem(op, *element);
  return problem.empty() ? MPI_SUCCESS : comm_error(call, comm, MPI_ERR_OP, problem);
}

void apply_op(MPI_Op op, const void* in, void* inout, int count, MPI_Datatype datatype) {
  apply_op_into(op, in, inout, inout, count, datatype);
}

namespace {

// Bytes that `count` elements of `t` span from their lowest data byte, and
// where the first element starts within them.
struct Span {
  std::size_t bytes;
  std::int64_t origin;
};
Span span_of(const TypeInfo& t, int count) {
  const std::int64_t last = static_cast<std::int64_t>(count - 1) * t.extent();
  const std::int64_t lo = std::min(t.true_lb, last + t.true_lb);
  const std::int64_t hi = std::max(t.true_ub, last + t.true_ub);
  return {static_cast<std::size_t>(hi - lo), -lo};
}

// A user function sees its elements laid out as its datatype says, while
// reductions carry them packed: a non-contiguous type's operands are
// unpacked into that layout around the call, and the result packed again.
void apply_user_unpacked(const UserOp& u, const TypeInfo& t, const void* a, const void* b, void* out, int count,
                         MPI_Datatype datatype) {
  const Span span = span_of(t, count);
  std::vector<std::byte> in(span.bytes), inout(span.bytes);
  std::byte* in_base = in.data() + span.origin;
  std::byte* inout_base = inout.data() + span.origin;
  const std::uint64_t bytes = static_cast<std::uint64_t>(count) * t.size;
  unpack(t, static_cast<const std::byte*>(a), bytes, in_base);
  unpack(t, static_cast<const std::byte*>(b), bytes, inout_base);
  u.call(in_base, inout_base, static_cast<std::uint64_t>(count), datatype);
  pack(t, inout_base, static_cast<std::uint64_t>(count), static_cast<std::byte*>(out));
}

// Combine's callback for a user operation: `handle` is the MPI_Op,
// `type` the MPI_Datatype its function is given.
void call_user_op(const void* a, const void* b, void* out, int count, std::int64_t handle, std::int64_t type) {
  const UserOp* u = any_user_op(static_cast<MPI_Op>(handle));
  const auto datatype = static_cast<MPI_Datatype>(type);
  const TypeInfo* t = find_type(datatype);
  if (t != nullptr && !t->contiguous) {
    apply_user_unpacked(*u, *t, a, b, out, count, datatype);
    return;
  }
  // A user function combines in place only: b's values go to out first.
  if (out != b) std::memmove(out, b, static_cast<std::size_t>(count) * *datatype_size(datatype));
  u->call(const_cast<void*>(a), out, static_cast<std::uint64_t>(count), datatype);
}

}  // namespace

mpf::coll::Combine combine_of(MPI_Op op, MPI_Datatype element) {
  if (const UserOp* u = any_user_op(op)) {
    return mpf::coll::Combine::user({&call_user_op, op, element}, *datatype_size(element), u->commutative);
  }
  return mpf::coll::Combine::predefined(op_of(op), element_of(element));
}

void apply_op_into(MPI_Op op, const void* a, const void* b, void* out, int count, MPI_Datatype datatype) {
  combine_of(op, datatype).apply_into(a, b, out, count);
}

}  // namespace mpf::mpi

using namespace mpf::mpi;

extern "C" {

int PMPI_Op_create(MPI_User_function* function, int commute, MPI_Op* op) {
  require_initialized("MPI_Op_create");
  if (function == nullptr) return comm_error("MPI_Op_create", MPI_COMM_WORLD, MPI_ERR_ARG, "function is NULL");
  if (op == nullptr) return comm_error("MPI_Op_create", MPI_COMM_WORLD, MPI_ERR_ARG, "op argument is NULL");
  g_user_ops.push_back({function, nullptr, commute != 0});
  *op = kFirstUserOp + static_cast<MPI_Op>(g_user_ops.size() - 1);
  return MPI_SUCCESS;
}

int PMPI_Op_create_c(MPI_User_function_c* function, int commute, MPI_Op* op) {
  const char* call = "MPI_Op_create_c";
  require_initialized(call);
  if (function == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "function is NULL");
  if (op == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_ARG, "op argument is NULL");
  g_user_ops.push_back({nullptr, function, commute != 0});
  *op = kFirstUserOp + static_cast<MPI_Op>(g_user_ops.size() - 1);
  return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op* op) {
  require_initialized("MPI_Op_free");
  if (op == nullptr || user_op(*op) == nullptr) {
    return comm_error("MPI_Op_free", MPI_COMM_WORLD, MPI_ERR_OP,
                      op == nullptr ? std::string("op argument is NULL")
                                    : is_predefined(*op) ? op_name(*op) + " is predefined and cannot be freed"
                                                               : "invalid operation " + std::to_string(*op));
  }
  g_user_ops[static_cast<std::size_t>(*op - kFirstUserOp)].freed = true;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  require_initialized("MPI_Op_commutative");
  if (!is_predefined(op) && user_op(op) == nullptr) {
    return comm_error("MPI_Op_commutative", MPI_COMM_WORLD, MPI_ERR_OP, "invalid operation " + std::to_string(op));
  }
  *commute = op_is_commutative(op) ? 1 : 0;
  return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  const char* call = "MPI_Reduce_local";
  require_initialized(call);
  if (count < 0) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  const TypeInfo* t = usable_type(datatype);
  if (t == nullptr) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_TYPE, datatype_problem(datatype));
  if (const UserOp* u = user_op(op)) {
    // The program's function on the program's buffers, as they are.
    if (count > 0) u->call(const_cast<void*>(inbuf), inoutbuf, static_cast<std::uint64_t>(count), datatype);
    return MPI_SUCCESS;
  }
  // A predefined operation works on the basic type a derived one is made of.
  MPI_Datatype element = datatype;
  std::uint64_t elements = static_cast<std::uint64_t>(count);
  if (!t->predefined) {
    if (t->basic == MPI_DATATYPE_NULL) {
      return comm_error(call, MPI_COMM_WORLD, MPI_ERR_TYPE,
                        datatype_name(datatype) + " mixes several predefined types; a predefined operation needs one");
    }
    element = t->basic;
    elements *= t->basic_count;
  }
  const std::string problem = op_problem(op, element);
  if (!problem.empty()) return comm_error(call, MPI_COMM_WORLD, MPI_ERR_OP, problem);
  if (elements > static_cast<std::uint64_t>(INT32_MAX)) {
    return comm_error(call, MPI_COMM_WORLD, MPI_ERR_COUNT, std::to_string(elements) + " elements are too many");
  }
  if (t->contiguous) {
    apply_op(op, inbuf, inoutbuf, static_cast<int>(elements), element);
    return MPI_SUCCESS;
  }
  std::vector<std::byte> in, inout;
  const std::byte* packed_in = contiguous_source(*t, inbuf, static_cast<std::uint64_t>(count), in);
  inout.resize(static_cast<std::size_t>(count) * t->size);
  pack(*t, inoutbuf, static_cast<std::uint64_t>(count), inout.data());
  apply_op(op, packed_in, inout.data(), static_cast<int>(elements), element);
  unpack(*t, inout.data(), inout.size(), inoutbuf);
  return MPI_SUCCESS;
}

// The MPI_ names: weak aliases of the definitions above, which a profiling
// library may replace (MPI-3.1 §14.2).
#pragma weak MPI_Op_create = PMPI_Op_create
#pragma weak MPI_Op_create_c = PMPI_Op_create_c
#pragma weak MPI_Op_free = PMPI_Op_free
#pragma weak MPI_Op_commutative = PMPI_Op_commutative
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

}  // extern "C"
