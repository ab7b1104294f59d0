// How a reduction combines two vectors, neutral to the API: an element
// type and an operation of the ones every API has (MPI's predefined
// operations, OpenSHMEM's reductions), or a function of the API's own
// (MPI_Op_create) that the API calls back.
//
//   const Combine sum = Combine::predefined(Op::sum, Element::i32);
//   sum.apply(in, inout, n);            // inout[i] = in[i] + inout[i]
//   sum.apply_into(a, b, out, n);       // out[i] = a[i] + b[i]
//
// A Combine is a small value: tasks keep a copy in their frame. Vectors are
// packed (element after element, no gap: MPI_DOUBLE_INT is 12 bytes here)
// and may sit at any alignment.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpf::coll {

// IEEE quadruple precision (Fortran REAL*16), where the compiler has it.
#if defined(__SIZEOF_FLOAT128__)
using Quad = __float128;
#else
using Quad = long double;
static_assert(__LDBL_MANT_DIG__ == 113, "REAL*16 needs an IEEE quadruple precision type");
#endif

// The element types the kernels combine, by their C type. The pairs are
// (value, index) for minloc and maxloc: an int index, or (the twins) a
// second value of the value's type.
enum class Element : std::uint8_t {
  character,  // char
  wide_character,  // wchar_t
  i8, u8, i16, u16, i32, u32, i64, u64,
  boolean,
  f32, f64, long_double, quad,
  complex_f32, complex_f64, complex_long_double, complex_quad,
  float_int, double_int, long_int, int_int, short_int, long_double_int,
  float_float, double_double,
  opaque,  // a user function's element: only the API knows it
};

enum class Op : std::uint8_t {
  max, min, sum, prod,
  land, lor, lxor,  // logical: nonzero is true, the result 1 or 0
  band, bor, bxor,
  minloc, maxloc,   // on the pairs
  replace,          // out = a
  no_op,            // out = b
  user,             // the API's function
};

// A function of the API's, and what it needs to call it: out = a op b for
// `count` elements (out may be b), where `handle` and `type` are the API's
// names for the function and the element type, opaque here.
struct UserFunction {
  void (*combine)(const void* a, const void* b, void* out, int count, std::int64_t handle, std::int64_t type) = nullptr;
  std::int64_t handle = 0;
  std::int64_t type = 0;
};

class Combine {
 public:
  Combine() = default;
  // `op` (not user) on elements of `element` (not opaque); the API checks
  // that the operation is defined for the element type.
  static Combine predefined(Op op, Element element);
  // The API's function on elements of `element_bytes`.
  static Combine user(UserFunction function, std::size_t element_bytes, bool commutative);

  Op op() const { return op_; }
  Element element() const { return element_; }
  std::size_t element_bytes() const { return element_bytes_; }
  // x op y == y op x.
  bool commutative() const { return commutative_; }
  // Any order and grouping gives the same bits (integers, logicals, bytes
  // with an arithmetic, logical or bitwise operation): a reduction may
  // then combine in whatever order its ranks arrive.
  bool exact() const { return exact_; }

  // inout[i] = in[i] op inout[i].
  void apply(const void* in, void* inout, int count) const { apply_into(in, inout, inout, count); }
  // out[i] = a[i] op b[i], for a combination whose right operand must not
  // change: one pass instead of a copy and apply(). `out` may be `b`;
  // otherwise it overlaps neither.
  void apply_into(const void* a, const void* b, void* out, int count) const;

 private:
  Op op_ = Op::no_op;
  Element element_ = Element::opaque;
  bool commutative_ = true;
  bool exact_ = false;
  std::uint32_t element_bytes_ = 0;
  UserFunction user_;
};

// Bytes of one element of `element` (opaque: 0).
std::size_t element_bytes(Element element);

}  // namespace mpf::coll
