// How reductions combine vectors, neutral to the API (lib/coll/combine.hpp):
// the kernels by element type, what a Combine says of its operation, and
// the callback to an API's own function.
#include "coll/combine.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace mpf::coll {
namespace {

TEST(CollCombine, PredefinedOperationsOnScalars) {
  std::vector<std::int32_t> a{1, -2, 3}, b{10, 20, -30};
  Combine::predefined(Op::sum, Element::i32).apply(a.data(), b.data(), 3);
  EXPECT_EQ(b, (std::vector<std::int32_t>{11, 18, -27}));
  std::vector<double> x{1.5, -2.0}, y{0.5, 4.0}, out(2);
  Combine::predefined(Op::max, Element::f64).apply_into(x.data(), y.data(), out.data(), 2);
  EXPECT_EQ(out, (std::vector<double>{1.5, 4.0}));
  EXPECT_EQ(x, (std::vector<double>{1.5, -2.0}));
  std::vector<std::uint8_t> m{0x0f, 0xf0}, n{0xff, 0x0f};
  Combine::predefined(Op::band, Element::u8).apply(m.data(), n.data(), 2);
  EXPECT_EQ(n, (std::vector<std::uint8_t>{0x0f, 0x00}));
  std::vector<std::int32_t> p{0, 5}, q{7, 0};
  Combine::predefined(Op::land, Element::i32).apply(p.data(), q.data(), 2);
  EXPECT_EQ(q, (std::vector<std::int32_t>{0, 0}));
}

TEST(CollCombine, ExactAndCommutative) {
  // Exact: any order gives the same bits, so a sum may take its inputs as
  // ranks come.
  EXPECT_TRUE(Combine::predefined(Op::sum, Element::i64).exact());
  EXPECT_TRUE(Combine::predefined(Op::lxor, Element::boolean).exact());
  EXPECT_TRUE(Combine::predefined(Op::bor, Element::u8).exact());
  EXPECT_FALSE(Combine::predefined(Op::sum, Element::f64).exact());
  EXPECT_FALSE(Combine::predefined(Op::sum, Element::complex_f32).exact());
  EXPECT_FALSE(Combine::predefined(Op::minloc, Element::double_int).exact());
  EXPECT_FALSE(Combine::predefined(Op::replace, Element::i32).exact());
  EXPECT_TRUE(Combine::predefined(Op::prod, Element::f32).commutative());
  EXPECT_EQ(Combine::predefined(Op::sum, Element::i16).element_bytes(), 2u);
  EXPECT_EQ(Combine::predefined(Op::minloc, Element::double_int).element_bytes(), 12u);
  EXPECT_EQ(Combine::predefined(Op::maxloc, Element::double_double).element_bytes(), 16u);
}

TEST(CollCombine, LocPairsArePackedAndTieToTheSmallerIndex) {
  // (value, index) pairs of 12 bytes each, at an odd address.
  auto pack = [](std::vector<std::byte>& v, std::size_t at, double value, int index) {
    std::memcpy(v.data() + at, &value, sizeof value);
    std::memcpy(v.data() + at + sizeof value, &index, sizeof index);
  };
  std::vector<std::byte> a(1 + 24), b(1 + 24);
  pack(a, 1, 2.0, 3);
  pack(a, 13, 5.0, 9);
  pack(b, 1, 2.0, 1);
  pack(b, 13, 4.0, 0);
  Combine::predefined(Op::maxloc, Element::double_int).apply(a.data() + 1, b.data() + 1, 2);
  double value;
  int index;
  std::memcpy(&value, b.data() + 1, sizeof value);
  std::memcpy(&index, b.data() + 9, sizeof index);
  EXPECT_EQ(value, 2.0);
  EXPECT_EQ(index, 1);
  std::memcpy(&value, b.data() + 13, sizeof value);
  std::memcpy(&index, b.data() + 21, sizeof index);
  EXPECT_EQ(value, 5.0);
  EXPECT_EQ(index, 9);
}

TEST(CollCombine, MisalignedBuffersGiveTheSameBits) {
  std::vector<double> a(300), b(300);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.25 * static_cast<double>(i);
    b[i] = 1.0 / static_cast<double>(i + 1);
  }
  std::vector<double> aligned = b;
  const Combine sum = Combine::predefined(Op::sum, Element::f64);
  sum.apply(a.data(), aligned.data(), 300);
  std::vector<std::byte> x(300 * sizeof(double) + 1), y(x.size());
  std::memcpy(x.data() + 1, a.data(), 300 * sizeof(double));
  std::memcpy(y.data() + 1, b.data(), 300 * sizeof(double));
  sum.apply(x.data() + 1, y.data() + 1, 300);
  EXPECT_EQ(std::memcmp(y.data() + 1, aligned.data(), 300 * sizeof(double)), 0);
}

// An API's function: out = a - b, with what the API passed along.
std::int64_t g_handle = 0, g_type = 0;
void subtract(const void* a, const void* b, void* out, int count, std::int64_t handle, std::int64_t type) {
  g_handle = handle;
  g_type = type;
  const auto* x = static_cast<const int*>(a);
  const auto* y = static_cast<const int*>(b);
  auto* z = static_cast<int*>(out);
  for (int i = 0; i < count; ++i) z[i] = x[i] - y[i];
}

TEST(CollCombine, AUserFunctionIsCalledBackWithItsHandles) {
  const Combine c = Combine::user({&subtract, 42, 7}, sizeof(int), false);
  EXPECT_EQ(c.op(), Op::user);
  EXPECT_FALSE(c.commutative());
  EXPECT_FALSE(c.exact());
  EXPECT_EQ(c.element_bytes(), sizeof(int));
  std::vector<int> a{10, 20}, b{1, 2};
  c.apply(a.data(), b.data(), 2);
  EXPECT_EQ(b, (std::vector<int>{9, 18}));
  EXPECT_EQ(g_handle, 42);
  EXPECT_EQ(g_type, 7);
  g_handle = 0;
  c.apply(a.data(), b.data(), 0);  // nothing to combine: no call
  EXPECT_EQ(g_handle, 0);
}

}  // namespace
}  // namespace mpf::coll
