// Compiled with -O3 (see src/CMakeLists.txt) so that the loops are vectorised; each kernel
// is a plain loop the compiler can see through.
#include "coll/reduce_kernels.h"

#include <array>
#include <cstdint>
#include <type_traits>

namespace ferry::coll {
namespace {

// Integer arithmetic wraps like the C code of MPI libraries does in practice; doing it in
// the unsigned type makes the wrap defined behaviour.
template <typename T>
T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // Promote to at least unsigned int: uint16 * uint16 in int could overflow int.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

struct Max { template <typename T> static T apply(T a, T b) { return a > b ? a : b; } };
struct Min { template <typename T> static T apply(T a, T b) { return a < b ? a : b; } };
struct Sum { template <typename T> static T apply(T a, T b) { return wrapAdd(a, b); } };
struct Prod { template <typename T> static T apply(T a, T b) { return wrapMul(a, b); } };
struct Land { template <typename T> static T apply(T a, T b) { return static_cast<T>((a != 0) && (b != 0)); } };
struct Lor { template <typename T> static T apply(T a, T b) { return static_cast<T>((a != 0) || (b != 0)); } };
struct Lxor { template <typename T> static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); } };
struct Band { template <typename T> static T apply(T a, T b) { return static_cast<T>(a & b); } };
struct Bor { template <typename T> static T apply(T a, T b) { return static_cast<T>(a | b); } };
struct Bxor { template <typename T> static T apply(T a, T b) { return static_cast<T>(a ^ b); } };

template <typename Op, typename T>
void kernel(void* out, const void* a, const void* b, size_t n) {
  T* o = static_cast<T*>(out);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = Op::template apply<T>(x[i], y[i]);
}

template <typename Op, typename T>
constexpr bool meaningful() {
  constexpr bool bitwise = std::is_same_v<Op, Band> || std::is_same_v<Op, Bor> || std::is_same_v<Op, Bxor>;
  constexpr bool logical = std::is_same_v<Op, Land> || std::is_same_v<Op, Lor> || std::is_same_v<Op, Lxor>;
  if constexpr (std::is_same_v<T, bool>) return logical;
  if constexpr (std::is_floating_point_v<T>) return !bitwise && !logical;
  return true;
}

template <typename Op, typename T>
constexpr ReduceFn pick() {
  if constexpr (meaningful<Op, T>()) return &kernel<Op, T>;
  return nullptr;
}

// One row per op, one column per Elem (in enum order).
template <typename Op>
constexpr std::array<ReduceFn, kElemCount> row() {
  return {pick<Op, int8_t>(),  pick<Op, uint8_t>(),  pick<Op, int16_t>(), pick<Op, uint16_t>(),
          pick<Op, int32_t>(), pick<Op, uint32_t>(), pick<Op, int64_t>(), pick<Op, uint64_t>(),
          pick<Op, float>(),   pick<Op, double>(),   pick<Op, long double>(), pick<Op, bool>()};
}

constexpr std::array<std::array<ReduceFn, kElemCount>, kOpCount> kKernels = {
    row<Max>(), row<Min>(), row<Sum>(), row<Prod>(), row<Land>(),
    row<Lor>(), row<Lxor>(), row<Band>(), row<Bor>(), row<Bxor>()};

}  // namespace

ReduceFn reduceKernel(OpKind op, Elem elem) {
  return kKernels[static_cast<int>(op)][static_cast<int>(elem)];
}

}  // namespace ferry::coll
