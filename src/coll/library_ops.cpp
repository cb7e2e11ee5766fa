#include "coll/library_ops.h"

#include <array>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "coll/reduce_kernels.h"
#include "platform/log.h"

namespace ferry::coll {
namespace {

constexpr int kProbeCount = 64;  // past every vector width, so vectorised paths run too

MPI_Datatype canonicalType(Elem e) {
  switch (e) {
    case Elem::I8: return MPI_INT8_T;
    case Elem::U8: return MPI_UINT8_T;
    case Elem::I16: return MPI_INT16_T;
    case Elem::U16: return MPI_UINT16_T;
    case Elem::I32: return MPI_INT32_T;
    case Elem::U32: return MPI_UINT32_T;
    case Elem::I64: return MPI_INT64_T;
    case Elem::U64: return MPI_UINT64_T;
    case Elem::F32: return MPI_FLOAT;
    case Elem::F64: return MPI_DOUBLE;
    case Elem::F80: return MPI_LONG_DOUBLE;
    case Elem::Bool: return MPI_C_BOOL;
  }
  return MPI_DATATYPE_NULL;
}

const MPI_Op& predefinedOp(OpKind k) {
  static const std::array<MPI_Op, kOpCount> ops = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD, MPI_LAND,
                                                   MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  return ops[static_cast<size_t>(k)];
}

// MPI user functions know the op from which function MPI calls and the element from the
// (canonical) datatype it passes.
Elem elemOfCanonical(MPI_Datatype t) {
  for (int e = 0; e < kElemCount; ++e)
    if (canonicalType(static_cast<Elem>(e)) == t) return static_cast<Elem>(e);
  return Elem::U8;
}

template <OpKind K>
void userFunction(void* in, void* inout, int* len, MPI_Datatype* type) {
  // MPI: inout = in OP inout.
  reduceKernel(K, elemOfCanonical(*type))(inout, in, inout, static_cast<size_t>(*len));
}

constexpr std::array<MPI_User_function*, kOpCount> kUserFunctions = {
    userFunction<OpKind::Max>,  userFunction<OpKind::Min>, userFunction<OpKind::Sum>,  userFunction<OpKind::Prod>,
    userFunction<OpKind::Land>, userFunction<OpKind::Lor>, userFunction<OpKind::Lxor>, userFunction<OpKind::Band>,
    userFunction<OpKind::Bor>,  userFunction<OpKind::Bxor>};

// Probe inputs: any bits for integers (sums overflow, half the values have the top bit set),
// finite values for floating types, 0/1 for bool.
std::vector<uint8_t> probeInput(Elem e, uint64_t seed) {
  size_t size = elemSize(e);
  std::vector<uint8_t> v(size * kProbeCount);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < kProbeCount; ++i) {
    uint8_t* p = v.data() + size * static_cast<size_t>(i);
    uint64_t bits = rng();
    double x = static_cast<double>(static_cast<int64_t>(bits % 20001) - 10000) / 16;
    switch (e) {
      case Elem::F32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
      case Elem::F64: std::memcpy(p, &x, 8); break;
      case Elem::F80: { long double l = x; std::memcpy(p, &l, sizeof l); break; }
      case Elem::Bool: *p = bits & 1; break;
      default: std::memcpy(p, &bits, size);
    }
  }
  return v;
}

bool sameResult(Elem e, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (e != Elem::F80) return a == b;
  for (int i = 0; i < kProbeCount; ++i) {  // long double: compare values, not padding
    long double x, y;
    std::memcpy(&x, a.data() + sizeof x * static_cast<size_t>(i), sizeof x);
    std::memcpy(&y, b.data() + sizeof y * static_cast<size_t>(i), sizeof y);
    if (x != y) return false;
  }
  return true;
}

bool libraryIsExact(Elem e, OpKind k) {
  std::vector<uint8_t> in = probeInput(e, 1), inout = probeInput(e, 2), want(inout.size());
  reduceKernel(k, e)(want.data(), in.data(), inout.data(), kProbeCount);
  if (PMPI_Reduce_local(in.data(), inout.data(), kProbeCount, canonicalType(e), predefinedOp(k)) != MPI_SUCCESS)
    return false;
  return sameResult(e, inout, want);
}

struct Table {
  std::array<std::array<LibraryReduction, kElemCount>, kOpCount> entries{};
};

Table build() {
  Table t;
  std::string replaced;
  for (int k = 0; k < kOpCount; ++k) {
    MPI_Op userOp = MPI_OP_NULL;
    for (int e = 0; e < kElemCount; ++e) {
      auto kind = static_cast<OpKind>(k);
      auto elem = static_cast<Elem>(e);
      if (!reduceKernel(kind, elem)) continue;
      LibraryReduction& r = t.entries[k][e];
      r = {canonicalType(elem), predefinedOp(kind), false};
      if (libraryIsExact(elem, kind)) continue;
      if (userOp == MPI_OP_NULL) MPI_Op_create(kUserFunctions[k], 1, &userOp);
      r = {canonicalType(elem), userOp, true};
      replaced += std::string(replaced.empty() ? "" : ", ") + opName(kind) + " on " + elemName(elem);
    }
  }
  if (!replaced.empty())
    log::info(log::Coll, "the MPI library's reduction is not exact for %s; the inter-node stage uses Ferry's there",
              replaced.c_str());
  return t;
}

}  // namespace

LibraryReduction libraryReduction(Elem elem, OpKind op) {
  static std::once_flag once;
  static Table* table = nullptr;
  std::call_once(once, [] { table = new Table(build()); });  // never freed: ops live until MPI_Finalize
  return table->entries[static_cast<size_t>(op)][static_cast<size_t>(elem)];
}

}  // namespace ferry::coll
