// The reduction kernels (lib/mpi/reduce_ops.hpp): apply_op_into writes
// a op b into a third buffer and leaves both operands as they were, gives
// the same bits as the in-place apply_op, and takes buffers at any
// alignment. The user-function path needs MPI_Init (MPI_Op_create): the
// collectives jobs check it (a non-commutative matrix product).
#include "mpi/reduce_ops.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace mpf::mpi {
namespace {

TEST(ApplyOpInto, SumsIntoAThirdBufferAndLeavesTheOperands) {
  std::vector<int> a{1, 2, 3, 4, 5, 6, 7}, b{10, 20, 30, 40, 50, 60, 70}, out(7, -1);
  apply_op_into(MPI_SUM, a.data(), b.data(), out.data(), 7, MPI_INT);
  EXPECT_EQ(out, (std::vector<int>{11, 22, 33, 44, 55, 66, 77}));
  EXPECT_EQ(a, (std::vector<int>{1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(b, (std::vector<int>{10, 20, 30, 40, 50, 60, 70}));
}

TEST(ApplyOpInto, MatchesInPlaceApplyOpForEveryArithmeticOp) {
  // 1001 elements: the vector loops and their scalar tails.
  std::vector<double> a(1001), b(1001);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = 0.1 * static_cast<double>(i) - 7.0;
    b[i] = 3.3 - 0.01 * static_cast<double>(i * i % 97);
  }
  for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP}) {
    std::vector<double> in_place = b, out(b.size(), 0.0);
    apply_op(op, a.data(), in_place.data(), 1001, MPI_DOUBLE);
    apply_op_into(op, a.data(), b.data(), out.data(), 1001, MPI_DOUBLE);
    EXPECT_EQ(std::memcmp(out.data(), in_place.data(), out.size() * sizeof(double)), 0) << op_name(op);
  }
}

TEST(ApplyOpInto, OutMayBeTheRightOperand) {
  std::vector<long long> a{5, -6, 7}, b{1, 2, 3};
  apply_op_into(MPI_MAX, a.data(), b.data(), b.data(), 3, MPI_LONG_LONG_INT);
  EXPECT_EQ(b, (std::vector<long long>{5, 2, 7}));
}

TEST(ApplyOpInto, TakesMisalignedBuffers) {
  // Doubles one byte off their alignment, in all three buffers.
  constexpr int kCount = 300;  // more than on_aligned's pieces of 128
  std::vector<unsigned char> a_bytes(kCount * sizeof(double) + 1), b_bytes(a_bytes.size()), out_bytes(a_bytes.size());
  for (int i = 0; i < kCount; ++i) {
    const double x = i, y = 1000.0 - i;
    std::memcpy(a_bytes.data() + 1 + i * sizeof(double), &x, sizeof x);
    std::memcpy(b_bytes.data() + 1 + i * sizeof(double), &y, sizeof y);
  }
  apply_op_into(MPI_SUM, a_bytes.data() + 1, b_bytes.data() + 1, out_bytes.data() + 1, kCount, MPI_DOUBLE);
  for (int i = 0; i < kCount; ++i) {
    double z = 0, y = 0;
    std::memcpy(&z, out_bytes.data() + 1 + i * sizeof(double), sizeof z);
    std::memcpy(&y, b_bytes.data() + 1 + i * sizeof(double), sizeof y);
    ASSERT_EQ(z, 1000.0) << "element " << i;
    ASSERT_EQ(y, 1000.0 - i) << "the right operand changed at " << i;
  }
}

TEST(ApplyOpInto, MaxlocTakesTheBetterValueAndOnATieTheSmallerIndex) {
  // Reductions carry MPI_DOUBLE_INT packed: the value, then the int.
#pragma pack(push, 1)
  struct DoubleInt {
    double value;
    int index;
  };
#pragma pack(pop)
  static_assert(sizeof(DoubleInt) == 12);
  const DoubleInt a[] = {{1.0, 4}, {5.0, 9}, {2.0, 3}};
  const DoubleInt b[] = {{3.0, 0}, {5.0, 2}, {2.0, 7}};
  DoubleInt out[3] = {};
  apply_op_into(MPI_MAXLOC, a, b, out, 3, MPI_DOUBLE_INT);
  EXPECT_EQ(out[0].value, 3.0);
  EXPECT_EQ(out[0].index, 0);
  EXPECT_EQ(out[1].index, 2);  // tie: the smaller index, from the right operand
  EXPECT_EQ(out[2].index, 3);  // tie: the smaller index, from the left
  EXPECT_EQ(b[1].index, 2);
}

TEST(ApplyOpInto, ZeroCountWritesNothing) {
  int a = 1, b = 2, out = 99;
  apply_op_into(MPI_SUM, &a, &b, &out, 0, MPI_INT);
  EXPECT_EQ(out, 99);
}

TEST(CombineOf, MapsMpiTypesAndOperationsOntoTheKernels) {
  // What the collectives ask of the combination, as MPI's rules say.
  EXPECT_TRUE(combine_of(MPI_SUM, MPI_INT).exact());
  EXPECT_TRUE(combine_of(MPI_LAND, MPI_LOGICAL).exact());
  EXPECT_TRUE(combine_of(MPI_LXOR, MPI_C_BOOL).exact());
  EXPECT_TRUE(combine_of(MPI_BAND, MPI_BYTE).exact());
  EXPECT_TRUE(combine_of(MPI_MAX, MPI_UNSIGNED_LONG_LONG).exact());
  EXPECT_FALSE(combine_of(MPI_SUM, MPI_DOUBLE).exact());
  EXPECT_FALSE(combine_of(MPI_SUM, MPI_C_DOUBLE_COMPLEX).exact());
  EXPECT_FALSE(combine_of(MPI_MINLOC, MPI_2INT).exact());
  EXPECT_FALSE(combine_of(MPI_REPLACE, MPI_INT).exact());
  EXPECT_EQ(combine_of(MPI_MINLOC, MPI_DOUBLE_INT).element_bytes(), 12u);
  EXPECT_EQ(combine_of(MPI_MAXLOC, MPI_2DOUBLE_PRECISION).element_bytes(), 16u);
  EXPECT_EQ(combine_of(MPI_SUM, MPI_LONG_DOUBLE).element_bytes(), sizeof(long double));
  EXPECT_EQ(combine_of(MPI_PROD, MPI_REAL16).element_bytes(), 16u);
  EXPECT_TRUE(combine_of(MPI_SUM, MPI_FLOAT).commutative());
}

}  // namespace
}  // namespace mpf::mpi
