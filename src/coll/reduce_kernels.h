// Element-wise reduction kernels: out[i] = a[i] OP b[i]. `out` may be `a` or `b` (the fold
// accumulates in place); otherwise the three arrays must not overlap.
//
// Semantics match the C operators MPI libraries use: integer SUM/PROD wrap modulo 2^bits
// (computed in unsigned arithmetic, so without undefined behaviour), logical ops yield 0 or
// 1, MAX is (a > b ? a : b) and MIN is (a < b ? a : b), which decides NaN and signed zero.
#pragma once

#include <cstddef>

#include "coll/types.h"

namespace ferry::coll {

using ReduceFn = void (*)(void* out, const void* a, const void* b, size_t n);

// A kernel with the size of the elements it reduces.
struct ReduceOp {
  ReduceFn fn = nullptr;
  size_t elemSize = 1;
};

// The kernel for `op` on `elem`, or nullptr when the pair has no meaning (bitwise ops on
// floating types, arithmetic on bool).
ReduceFn reduceKernel(OpKind op, Elem elem);

}  // namespace ferry::coll
