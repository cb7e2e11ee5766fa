#include "coll_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <sstream>
#include <type_traits>

#include "coll/allreduce.h"

namespace ferry::coll::testing {
namespace {

const MPI_Datatype kTypes[] = {
    MPI_CHAR,        MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,   MPI_UNSIGNED_SHORT, MPI_INT,
    MPI_UNSIGNED,    MPI_LONG,        MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG,
    MPI_INT8_T,      MPI_INT16_T,     MPI_INT32_T,       MPI_INT64_T, MPI_UINT8_T,        MPI_UINT16_T,
    MPI_UINT32_T,    MPI_UINT64_T,    MPI_AINT,          MPI_OFFSET,  MPI_COUNT,          MPI_FLOAT,
    MPI_DOUBLE,      MPI_LONG_DOUBLE, MPI_C_BOOL,        MPI_CXX_BOOL, MPI_BYTE,          MPI_INTEGER,
    MPI_INTEGER1,    MPI_INTEGER2,    MPI_INTEGER4,      MPI_INTEGER8, MPI_REAL,          MPI_REAL4,
    MPI_REAL8,       MPI_DOUBLE_PRECISION};

const std::pair<MPI_Op, OpKind> kOps[] = {
    {MPI_MAX, OpKind::Max},   {MPI_MIN, OpKind::Min}, {MPI_SUM, OpKind::Sum},   {MPI_PROD, OpKind::Prod},
    {MPI_LAND, OpKind::Land}, {MPI_LOR, OpKind::Lor}, {MPI_LXOR, OpKind::Lxor}, {MPI_BAND, OpKind::Band},
    {MPI_BOR, OpKind::Bor},   {MPI_BXOR, OpKind::Bxor}};

template <typename T>
void fillInteger(T* p, size_t n, std::mt19937_64& rng, OpKind op, int ranks) {
  const T truthy[] = {0, 1, 2, static_cast<T>(-1), 0};
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = rng();
    if (op == OpKind::Land || op == OpKind::Lor || op == OpKind::Lxor) {
      p[i] = truthy[bits % 5];
    } else if (op == OpKind::Sum && sizeof(T) <= 2) {
      // Sums of 8- and 16-bit values stay in range: Open MPI 4.1's AVX op saturates them.
      // Wider sums wrap alike everywhere, so they get any bits.
      int64_t hi = static_cast<int64_t>(std::numeric_limits<T>::max()) / ranks;
      int64_t lo = static_cast<int64_t>(std::numeric_limits<T>::min()) / ranks;
      p[i] = static_cast<T>(lo + static_cast<int64_t>(bits % static_cast<uint64_t>(hi - lo + 1)));
    } else {
      std::memcpy(&p[i], &bits, sizeof(T));
    }
  }
}

template <typename T>
void fillFloating(T* p, size_t n, std::mt19937_64& rng, OpKind op) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = rng();
    int64_t small = static_cast<int64_t>(bits % 2001) - 1000;
    if (op == OpKind::Sum) p[i] = static_cast<T>(small) / 8;  // dyadic: every sum is exact
    else if (op == OpKind::Prod) p[i] = static_cast<T>((bits & 1) ? -1 : 1) * static_cast<T>(1 << (bits >> 1) % 4) / 2;
    else p[i] = static_cast<T>(small) * static_cast<T>(1.000123) + static_cast<T>(bits % 97) / 7;
  }
}

template <typename F>
void byElem(Elem e, F f) {
  switch (e) {
    case Elem::I8: f(int8_t{}); break;
    case Elem::U8: f(uint8_t{}); break;
    case Elem::I16: f(int16_t{}); break;
    case Elem::U16: f(uint16_t{}); break;
    case Elem::I32: f(int32_t{}); break;
    case Elem::U32: f(uint32_t{}); break;
    case Elem::I64: f(int64_t{}); break;
    case Elem::U64: f(uint64_t{}); break;
    case Elem::F32: f(float{}); break;
    case Elem::F64: f(double{}); break;
    case Elem::F80: f(static_cast<long double>(0)); break;
    case Elem::Bool: f(bool{}); break;
  }
}

// C semantics of each op, written independently of src/coll/reduce_kernels.cpp.
template <typename T>
T exactOp(OpKind op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return op == OpKind::Land ? (a && b) : op == OpKind::Lor ? (a || b) : (a != b);
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case OpKind::Max: return std::max(a, b);
      case OpKind::Min: return std::min(a, b);
      case OpKind::Sum: return a + b;
      default: return a * b;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case OpKind::Max: return std::max(a, b);
      case OpKind::Min: return std::min(a, b);
      case OpKind::Sum: return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) + static_cast<U>(b)));
      case OpKind::Prod: return static_cast<T>(static_cast<uint64_t>(static_cast<U>(a)) * static_cast<uint64_t>(static_cast<U>(b)));
      case OpKind::Land: return static_cast<T>(a != 0 && b != 0);
      case OpKind::Lor: return static_cast<T>(a != 0 || b != 0);
      case OpKind::Lxor: return static_cast<T>((a != 0) != (b != 0));
      case OpKind::Band: return static_cast<T>(a & b);
      case OpKind::Bor: return static_cast<T>(a | b);
      case OpKind::Bxor: return static_cast<T>(a ^ b);
    }
    return a;
  }
}

// The libraries' known wrong results (docs/collectives.md, "Exactness"), by an unsigned-type
// list of the test's own rather than Ferry's classification. Open MPI's saturating 8- and
// 16-bit sums, also listed there, never show: the inputs keep those sums in range.
bool knownLibraryDeviation(const TypedOp& t) {
  if (t.kind != OpKind::Max && t.kind != OpKind::Min) return false;
#if defined(OPEN_MPI)
  return t.type == MPI_UNSIGNED_LONG || t.type == MPI_OFFSET;  // compared as signed / unsigned
#elif defined(MPICH)
  for (MPI_Datatype u : {MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
                         MPI_UNSIGNED_LONG_LONG, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T})
    if (t.type == u) return true;  // every unsigned type compared as signed
  return false;
#else
  return false;
#endif
}

// A known deviation is noted once per process; any other fails the test: either the library
// has a bug the docs do not list, or the test's exact result is wrong.
void reportLibraryDeviation(const TypedOp& t, const std::string& diff) {
  if (!knownLibraryDeviation(t)) {
    ADD_FAILURE() << "the MPI library's result differs from the test's exact one, and docs/collectives.md "
                     "(Exactness) lists no such library bug: "
                  << diff;
    return;
  }
  static std::vector<std::string> seen;
  if (std::find(seen.begin(), seen.end(), t.name()) != seen.end()) return;
  seen.push_back(t.name());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("note: the MPI library's %s is not exact (Ferry's is): %s\n", t.name().c_str(), diff.c_str());
}

}  // namespace

std::vector<uint8_t> exactResult(const TypedOp& t, const std::vector<uint8_t>& all, size_t count, int ranks) {
  size_t bytes = count * elemSize(t.info.elem);
  std::vector<uint8_t> out(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(bytes));
  byElem(t.info.elem, [&](auto zero) {
    using T = decltype(zero);
    T* acc = reinterpret_cast<T*>(out.data());
    for (int r = 1; r < ranks; ++r) {
      const T* x = reinterpret_cast<const T*>(all.data() + static_cast<size_t>(r) * bytes);
      for (size_t i = 0; i < count; ++i) acc[i] = exactOp<T>(t.kind, acc[i], x[i]);
    }
  });
  out.resize(std::max<size_t>(1, bytes));
  return out;
}

std::vector<TypedOp> allTypedOps() {
  std::vector<TypedOp> out;
  std::vector<MPI_Datatype> seen;
  for (MPI_Datatype t : kTypes) {
    if (t == MPI_DATATYPE_NULL || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
    seen.push_back(t);
    auto info = classifyType(t);
    if (!info) continue;
    for (auto [op, kind] : kOps)
      if (opAllowed(kind, info->group)) out.push_back({t, *info, op, kind});
  }
  return out;
}

Settings forcedSettings() {
  Settings s = settings();
  s.mode = Mode::On;
  return s;
}

std::vector<uint8_t> inputs(const TypedOp& t, size_t count, int rank, int ranks, uint64_t seed) {
  std::vector<uint8_t> buf(std::max<size_t>(1, count * elemSize(t.info.elem)));
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(rank) * 7919 + t.name().size());
  byElem(t.info.elem, [&](auto zero) {
    using T = decltype(zero);
    T* p = reinterpret_cast<T*>(buf.data());
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < count; ++i) p[i] = (rng() & 1) != 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      fillFloating(p, count, rng, t.kind);
    } else {
      fillInteger(p, count, rng, t.kind, ranks);
    }
  });
  return buf;
}

std::string compare(const TypedOp& t, const void* got, const void* want, size_t count) {
  std::string diff;
  byElem(t.info.elem, [&](auto zero) {
    using T = decltype(zero);
    const T* g = static_cast<const T*>(got);
    const T* w = static_cast<const T*>(want);
    for (size_t i = 0; i < count && diff.empty(); ++i) {
      bool same = std::is_same_v<T, long double> ? g[i] == w[i] : std::memcmp(&g[i], &w[i], sizeof(T)) == 0;
      if (same) continue;
      std::ostringstream os;
      os.precision(21);
      os << t.name() << ": element " << i << " of " << count << " is " << +g[i] << ", expected " << +w[i];
      diff = os.str();
    }
  });
  return diff;
}

std::string checkAgainstLibrary(const Settings& s, const TypedOp& t, size_t count, bool inPlace, MPI_Comm comm,
                                uint64_t seed) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::vector<uint8_t> in = inputs(t, count, rank, ranks, seed);
  std::vector<uint8_t> lib(in.size(), 0xa5), got(in.size(), 0x5a);
  int n = static_cast<int>(count);
  if (int rc = PMPI_Allreduce(in.data(), lib.data(), n, t.type, t.op, comm); rc != MPI_SUCCESS)
    return t.name() + ": the MPI library failed with " + std::to_string(rc);
  size_t bytes = count * elemSize(t.info.elem);
  std::vector<uint8_t> all(std::max<size_t>(1, bytes * static_cast<size_t>(ranks)));
  PMPI_Allgather(in.data(), static_cast<int>(bytes), MPI_BYTE, all.data(), static_cast<int>(bytes), MPI_BYTE, comm);
  std::vector<uint8_t> want = exactResult(t, all, count, ranks);
  if (std::string libDiff = compare(t, lib.data(), want.data(), count); !libDiff.empty())
    reportLibraryDeviation(t, libDiff);
  int rc = MPI_SUCCESS;
  if (inPlace) {
    got = in;
    rc = allreduceWith(s, MPI_IN_PLACE, got.data(), n, t.type, t.op, comm);
  } else {
    rc = allreduceWith(s, in.data(), got.data(), n, t.type, t.op, comm);
  }
  if (rc != MPI_SUCCESS) return t.name() + ": Ferry failed with " + std::to_string(rc);
  std::string d = compare(t, got.data(), want.data(), count);
  return d.empty() ? d : d + " (count " + std::to_string(count) + (inPlace ? ", in place)" : ")");
}

StatsSnapshot statsNow() { return stats().snapshot(); }

}  // namespace ferry::coll::testing
