// The reduction kernels on known answers: wrap-around, truthiness of logical ops, the
// comparison that decides MAX/MIN, and in-place use at lengths around every vector width.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "coll/reduce_kernels.h"

namespace ferry::coll {
namespace {

template <typename T>
T apply(OpKind op, Elem e, T a, T b) {
  T out{};
  ReduceFn fn = reduceKernel(op, e);
  EXPECT_NE(fn, nullptr);
  if (fn) fn(&out, &a, &b, 1);
  return out;
}

TEST(CollKernels, IntegerArithmeticWraps) {
  EXPECT_EQ(apply<int8_t>(OpKind::Sum, Elem::I8, 100, 100), -56);
  EXPECT_EQ(apply<uint8_t>(OpKind::Sum, Elem::U8, 200, 100), 44);
  EXPECT_EQ(apply<int16_t>(OpKind::Sum, Elem::I16, 30000, 30000), -5536);
  EXPECT_EQ(apply<uint16_t>(OpKind::Prod, Elem::U16, 300, 300), static_cast<uint16_t>(90000));
  EXPECT_EQ(apply<int32_t>(OpKind::Sum, Elem::I32, INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(apply<int64_t>(OpKind::Prod, Elem::I64, INT64_MAX, 2), -2);
  EXPECT_EQ(apply<int8_t>(OpKind::Prod, Elem::I8, 16, 16), 0);
}

TEST(CollKernels, MaxMinAreSignedForSignedTypes) {
  EXPECT_EQ(apply<int8_t>(OpKind::Max, Elem::I8, -1, 1), 1);
  EXPECT_EQ(apply<uint8_t>(OpKind::Max, Elem::U8, 255, 1), 255);
  EXPECT_EQ(apply<int64_t>(OpKind::Min, Elem::I64, INT64_MIN, 0), INT64_MIN);
  EXPECT_EQ(apply<double>(OpKind::Max, Elem::F64, -0.5, -0.25), -0.25);
  EXPECT_EQ(apply<long double>(OpKind::Min, Elem::F80, 1.5L, -2.5L), -2.5L);
}

TEST(CollKernels, LogicalOpsYieldZeroOrOne) {
  EXPECT_EQ(apply<int32_t>(OpKind::Land, Elem::I32, 2, -7), 1);
  EXPECT_EQ(apply<int32_t>(OpKind::Land, Elem::I32, 2, 0), 0);
  EXPECT_EQ(apply<uint16_t>(OpKind::Lor, Elem::U16, 0, 512), 1);
  EXPECT_EQ(apply<int8_t>(OpKind::Lxor, Elem::I8, 3, 4), 0);
  EXPECT_EQ(apply<int8_t>(OpKind::Lxor, Elem::I8, 3, 0), 1);
  EXPECT_EQ(apply<bool>(OpKind::Lxor, Elem::Bool, true, true), false);
  EXPECT_EQ(apply<bool>(OpKind::Lor, Elem::Bool, false, true), true);
}

TEST(CollKernels, BitwiseOps) {
  EXPECT_EQ(apply<uint32_t>(OpKind::Band, Elem::U32, 0xf0f0u, 0xff00u), 0xf000u);
  EXPECT_EQ(apply<uint64_t>(OpKind::Bor, Elem::U64, 1ull << 63, 1), (1ull << 63) | 1);
  EXPECT_EQ(apply<int16_t>(OpKind::Bxor, Elem::I16, -1, 0x00ff), static_cast<int16_t>(0xff00));
}

TEST(CollKernels, MeaninglessPairsHaveNoKernel) {
  EXPECT_EQ(reduceKernel(OpKind::Band, Elem::F64), nullptr);
  EXPECT_EQ(reduceKernel(OpKind::Land, Elem::F32), nullptr);
  EXPECT_EQ(reduceKernel(OpKind::Sum, Elem::Bool), nullptr);
  EXPECT_EQ(reduceKernel(OpKind::Max, Elem::Bool), nullptr);
}

TEST(CollKernels, InPlaceAtEveryLength) {
  // Lengths around the vector widths, with the output aliasing either operand.
  for (size_t n = 0; n < 70; ++n) {
    std::vector<float> a(n), b(n), want(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i) * 0.5f;
      b[i] = static_cast<float>(n - i);
      want[i] = a[i] + b[i];
    }
    std::vector<float> a2 = a, b2 = b;
    reduceKernel(OpKind::Sum, Elem::F32)(a2.data(), a2.data(), b.data(), n);
    reduceKernel(OpKind::Sum, Elem::F32)(b2.data(), a.data(), b2.data(), n);
    EXPECT_EQ(a2, want) << n;
    EXPECT_EQ(b2, want) << n;
  }
}

}  // namespace
}  // namespace ferry::coll
