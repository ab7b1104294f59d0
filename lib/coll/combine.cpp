#include "coll/combine.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <cwchar>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mpf::coll {

namespace {

// out[i] = a[i] op b[i]. `out` may be `b` (the in-place form, apply) or a
// third buffer (apply_into), but overlaps neither operand otherwise.
// kInPlace: b is out, which the compiler must see to vectorize the loops
// without a run-time overlap check that fails for exactly that case.
template <class T, bool kInPlace>
void combine(Op op, const T* a, const T* b_or_out, T* out, int n) {
  const T* b = kInPlace ? out : b_or_out;
  switch (op) {
    case Op::max: if constexpr (requires(T x) { x < x; }) for (int i = 0; i < n; ++i) out[i] = b[i] < a[i] ? a[i] : b[i]; break;
    case Op::min: if constexpr (requires(T x) { x < x; }) for (int i = 0; i < n; ++i) out[i] = a[i] < b[i] ? a[i] : b[i]; break;
    case Op::sum: for (int i = 0; i < n; ++i) out[i] = static_cast<T>(a[i] + b[i]); break;
    case Op::prod: for (int i = 0; i < n; ++i) out[i] = static_cast<T>(a[i] * b[i]); break;
    case Op::land: for (int i = 0; i < n; ++i) out[i] = static_cast<T>((a[i] != T{}) && (b[i] != T{})); break;
    case Op::lor: for (int i = 0; i < n; ++i) out[i] = static_cast<T>((a[i] != T{}) || (b[i] != T{})); break;
    case Op::lxor: for (int i = 0; i < n; ++i) out[i] = static_cast<T>((a[i] != T{}) != (b[i] != T{})); break;
    case Op::band: if constexpr (requires(T x) { x & x; }) for (int i = 0; i < n; ++i) out[i] = static_cast<T>(a[i] & b[i]); break;
    case Op::bor: if constexpr (requires(T x) { x | x; }) for (int i = 0; i < n; ++i) out[i] = static_cast<T>(a[i] | b[i]); break;
    case Op::bxor: if constexpr (requires(T x) { x ^ x; }) for (int i = 0; i < n; ++i) out[i] = static_cast<T>(a[i] ^ b[i]); break;
    case Op::replace: for (int i = 0; i < n; ++i) out[i] = a[i]; break;
    default: if (out != b) std::copy(b, b + n, out); break;  // no_op
  }
}

// minloc and maxloc on (value, index) pairs: the better value, and on a tie
// the smaller index (as MPI 3.1 §5.9.4 says). Each pair is its value then
// its index, with no gap, at any alignment.
template <class V, class I>
void run_loc(Op op, const void* a, const void* b, void* out, int n) {
  constexpr std::size_t kElement = sizeof(V) + sizeof(I);
  if (op != Op::maxloc && op != Op::minloc && op != Op::replace) {  // no_op
    if (out != b) std::memmove(out, b, static_cast<std::size_t>(n) * kElement);
    return;
  }
  const auto* x = static_cast<const std::byte*>(a);
  const auto* y = static_cast<const std::byte*>(b);
  auto* z = static_cast<std::byte*>(out);
  for (std::size_t at = 0; at < static_cast<std::size_t>(n) * kElement; at += kElement) {
    V xv, yv;
    I xi, yi;
    std::memcpy(&xv, x + at, sizeof(V));
    std::memcpy(&xi, x + at + sizeof(V), sizeof(I));
    std::memcpy(&yv, y + at, sizeof(V));
    std::memcpy(&yi, y + at + sizeof(V), sizeof(I));
    const bool better = op == Op::maxloc ? xv > yv : xv < yv;
    const bool take_x = op == Op::replace || better || (xv == yv && xi < yi);
    std::memmove(z + at, (take_x ? x : y) + at, kElement);
  }
}

// Calls f(a, b, out, n) on the buffers as arrays of T, which needs them
// aligned for T. A buffer may not be: a caller's, or an array local to a
// collective's coroutine (GCC 12 places a coroutine frame's locals at any
// offset, alignas or not). Such data goes through aligned copies, a piece
// at a time.
template <class T, class F>
void on_aligned(const void* a, const void* b, void* out, int n, F&& f) {
  const auto misaligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0; };
  if (!misaligned(a) && !misaligned(b) && !misaligned(out)) [[likely]] {
    f(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
    return;
  }
  constexpr int kPiece = 128;
  alignas(T) std::byte x[kPiece * sizeof(T)];
  alignas(T) std::byte y[kPiece * sizeof(T)];
  const auto* from_a = static_cast<const std::byte*>(a);
  const auto* from_b = static_cast<const std::byte*>(b);
  auto* to = static_cast<std::byte*>(out);
  for (int done = 0; done < n; done += kPiece) {
    const int m = std::min(kPiece, n - done);
    const std::size_t bytes = static_cast<std::size_t>(m) * sizeof(T);
    const std::size_t at = static_cast<std::size_t>(done) * sizeof(T);
    std::memcpy(x, from_a + at, bytes);
    std::memcpy(y, from_b + at, bytes);
    f(reinterpret_cast<const T*>(x), reinterpret_cast<const T*>(y), reinterpret_cast<T*>(y), m);
    std::memcpy(to + at, y, bytes);
  }
}

template <class T>
void run(Op op, const void* a, const void* b, void* out, int n) {
  on_aligned<T>(a, b, out, n, [op](const T* x, const T* y, T* z, int m) {
    if (y == z) {
      combine<T, true>(op, x, y, z, m);
    } else {
      combine<T, false>(op, x, y, z, m);
    }
  });
}

// The element's C type, as a tag: visit(e, f) calls f(T{}) for scalars, and
// f(Loc<V, I>{}) for pairs.
template <class V, class I>
struct Loc {};

template <class F>
void visit(Element e, F&& f) {
  switch (e) {
    case Element::character: f(char{}); return;
    case Element::wide_character: f(wchar_t{}); return;
    case Element::i8: f(std::int8_t{}); return;
    case Element::u8: f(std::uint8_t{}); return;
    case Element::i16: f(std::int16_t{}); return;
    case Element::u16: f(std::uint16_t{}); return;
    case Element::i32: f(std::int32_t{}); return;
    case Element::u32: f(std::uint32_t{}); return;
    case Element::i64: f(std::int64_t{}); return;
    case Element::u64: f(std::uint64_t{}); return;
    case Element::boolean: f(bool{}); return;
    case Element::f32: f(float{}); return;
    case Element::f64: f(double{}); return;
    case Element::long_double: f(static_cast<long double>(0)); return;
    case Element::quad: f(Quad{}); return;
    case Element::complex_f32: f(std::complex<float>{}); return;
    case Element::complex_f64: f(std::complex<double>{}); return;
    case Element::complex_long_double: f(std::complex<long double>{}); return;
    case Element::complex_quad: f(std::complex<Quad>{}); return;
    case Element::float_int: f(Loc<float, int>{}); return;
    case Element::double_int: f(Loc<double, int>{}); return;
    case Element::long_int: f(Loc<long, int>{}); return;
    case Element::int_int: f(Loc<int, int>{}); return;
    case Element::short_int: f(Loc<short, int>{}); return;
    case Element::long_double_int: f(Loc<long double, int>{}); return;
    case Element::float_float: f(Loc<float, float>{}); return;
    case Element::double_double: f(Loc<double, double>{}); return;
    case Element::opaque: return;
  }
}

template <class T>
struct IsLoc : std::false_type {};
template <class V, class I>
struct IsLoc<Loc<V, I>> : std::true_type {};

template <class V, class I>
void run_pair(Op op, Loc<V, I>, const void* a, const void* b, void* out, int n) {
  run_loc<V, I>(op, a, b, out, n);
}

template <class T>
struct Size {
  static constexpr std::size_t value = sizeof(T);
};
template <class V, class I>
struct Size<Loc<V, I>> {
  static constexpr std::size_t value = sizeof(V) + sizeof(I);
};

bool integral(Element e) {
  switch (e) {
    case Element::character: case Element::wide_character: case Element::i8: case Element::u8: case Element::i16:
    case Element::u16: case Element::i32: case Element::u32: case Element::i64: case Element::u64:
    case Element::boolean:
      return true;
    default: return false;
  }
}

}  // namespace

std::size_t element_bytes(Element element) {
  std::size_t bytes = 0;
  visit(element, [&bytes](auto tag) { bytes = Size<decltype(tag)>::value; });
  return bytes;
}

Combine Combine::predefined(Op op, Element element) {
  if (op == Op::user || element == Element::opaque) {
    throw std::logic_error("Combine::predefined takes an operation and element type of the kernels");
  }
  Combine c;
  c.op_ = op;
  c.element_ = element;
  c.element_bytes_ = static_cast<std::uint32_t>(coll::element_bytes(element));
  c.commutative_ = true;
  // Integer arithmetic wraps and logical and bitwise operations are exact:
  // any order gives the same bits. Floating point rounds, and which of
  // two equal minloc values wins depends on the order.
  c.exact_ = integral(element) && op != Op::minloc && op != Op::maxloc && op != Op::replace && op != Op::no_op;
  return c;
}

Combine Combine::user(UserFunction function, std::size_t element_bytes, bool commutative) {
  Combine c;
  c.op_ = Op::user;
  c.element_ = Element::opaque;
  c.element_bytes_ = static_cast<std::uint32_t>(element_bytes);
  c.commutative_ = commutative;
  c.exact_ = false;
  c.user_ = function;
  return c;
}

void Combine::apply_into(const void* a, const void* b, void* out, int count) const {
  if (count == 0) return;
  if (op_ == Op::user) {
    user_.combine(a, b, out, count, user_.handle, user_.type);
    return;
  }
  visit(element_, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (IsLoc<T>::value) {
      run_pair(op_, tag, a, b, out, count);
    } else {
      run<T>(op_, a, b, out, count);
    }
  });
}

}  // namespace mpf::coll
