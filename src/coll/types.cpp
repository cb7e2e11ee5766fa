#include "coll/types.h"

#include <algorithm>
#include <mutex>
#include <vector>

namespace ferry::coll {
namespace {

struct NamedType {
  MPI_Datatype handle;
  TypeInfo info;
};

template <typename T>
constexpr Elem signedElem() {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 1 ? Elem::I8 : sizeof(T) == 2 ? Elem::I16 : sizeof(T) == 4 ? Elem::I32 : Elem::I64;
}
template <typename T>
constexpr Elem unsignedElem() {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  return sizeof(T) == 1 ? Elem::U8 : sizeof(T) == 2 ? Elem::U16 : sizeof(T) == 4 ? Elem::U32 : Elem::U64;
}

// Fortran types have the size the Fortran compiler gave them (-fdefault-integer-8 and the
// like), so it is asked of the library; a type this MPI does not provide is skipped.
std::optional<Elem> fortranInteger(MPI_Datatype t) {
  int size = 0;
  if (t == MPI_DATATYPE_NULL || MPI_Type_size(t, &size) != MPI_SUCCESS) return std::nullopt;
  switch (size) {
    case 1: return Elem::I8;
    case 2: return Elem::I16;
    case 4: return Elem::I32;
    case 8: return Elem::I64;
    default: return std::nullopt;
  }
}
std::optional<Elem> fortranReal(MPI_Datatype t) {
  int size = 0;
  if (t == MPI_DATATYPE_NULL || MPI_Type_size(t, &size) != MPI_SUCCESS) return std::nullopt;
  if (size == 4) return Elem::F32;
  if (size == 8) return Elem::F64;
  return std::nullopt;  // REAL*16 is a quad type that C has no operator for
}

std::vector<NamedType> buildTable() {
  using G = TypeGroup;
  std::vector<NamedType> t = {
      {MPI_CHAR, {signedElem<char>(), G::CInteger, "MPI_CHAR"}},  // char is signed on x86-64
      {MPI_SIGNED_CHAR, {Elem::I8, G::CInteger, "MPI_SIGNED_CHAR"}},
      {MPI_UNSIGNED_CHAR, {Elem::U8, G::CInteger, "MPI_UNSIGNED_CHAR"}},
      {MPI_SHORT, {signedElem<short>(), G::CInteger, "MPI_SHORT"}},
      {MPI_UNSIGNED_SHORT, {unsignedElem<unsigned short>(), G::CInteger, "MPI_UNSIGNED_SHORT"}},
      {MPI_INT, {signedElem<int>(), G::CInteger, "MPI_INT"}},
      {MPI_UNSIGNED, {unsignedElem<unsigned>(), G::CInteger, "MPI_UNSIGNED"}},
      {MPI_LONG, {signedElem<long>(), G::CInteger, "MPI_LONG"}},
      {MPI_UNSIGNED_LONG, {unsignedElem<unsigned long>(), G::CInteger, "MPI_UNSIGNED_LONG"}},
      {MPI_LONG_LONG, {signedElem<long long>(), G::CInteger, "MPI_LONG_LONG"}},
      {MPI_UNSIGNED_LONG_LONG, {unsignedElem<unsigned long long>(), G::CInteger, "MPI_UNSIGNED_LONG_LONG"}},
      {MPI_INT8_T, {Elem::I8, G::CInteger, "MPI_INT8_T"}},
      {MPI_INT16_T, {Elem::I16, G::CInteger, "MPI_INT16_T"}},
      {MPI_INT32_T, {Elem::I32, G::CInteger, "MPI_INT32_T"}},
      {MPI_INT64_T, {Elem::I64, G::CInteger, "MPI_INT64_T"}},
      {MPI_UINT8_T, {Elem::U8, G::CInteger, "MPI_UINT8_T"}},
      {MPI_UINT16_T, {Elem::U16, G::CInteger, "MPI_UINT16_T"}},
      {MPI_UINT32_T, {Elem::U32, G::CInteger, "MPI_UINT32_T"}},
      {MPI_UINT64_T, {Elem::U64, G::CInteger, "MPI_UINT64_T"}},
      {MPI_AINT, {signedElem<MPI_Aint>(), G::CInteger, "MPI_AINT"}},
      {MPI_OFFSET, {signedElem<MPI_Offset>(), G::CInteger, "MPI_OFFSET"}},
      {MPI_COUNT, {signedElem<MPI_Count>(), G::CInteger, "MPI_COUNT"}},
      {MPI_FLOAT, {Elem::F32, G::Floating, "MPI_FLOAT"}},
      {MPI_DOUBLE, {Elem::F64, G::Floating, "MPI_DOUBLE"}},
      {MPI_LONG_DOUBLE, {Elem::F80, G::Floating, "MPI_LONG_DOUBLE"}},
      {MPI_C_BOOL, {Elem::Bool, G::Logical, "MPI_C_BOOL"}},
      {MPI_CXX_BOOL, {Elem::Bool, G::Logical, "MPI_CXX_BOOL"}},
      {MPI_BYTE, {Elem::U8, G::Byte, "MPI_BYTE"}},
  };
  struct Fortran {
    MPI_Datatype handle;
    bool real;
    const char* name;
  };
  const Fortran fortran[] = {
      {MPI_INTEGER, false, "MPI_INTEGER"},   {MPI_INTEGER1, false, "MPI_INTEGER1"},
      {MPI_INTEGER2, false, "MPI_INTEGER2"}, {MPI_INTEGER4, false, "MPI_INTEGER4"},
      {MPI_INTEGER8, false, "MPI_INTEGER8"}, {MPI_REAL, true, "MPI_REAL"},
      {MPI_REAL4, true, "MPI_REAL4"},        {MPI_REAL8, true, "MPI_REAL8"},
      {MPI_DOUBLE_PRECISION, true, "MPI_DOUBLE_PRECISION"},
  };
  for (const auto& f : fortran) {
    auto elem = f.real ? fortranReal(f.handle) : fortranInteger(f.handle);
    if (elem) t.push_back({f.handle, {*elem, f.real ? G::Floating : G::FortranInteger, f.name}});
  }
  static_assert(sizeof(long double) == 16, "MPI_LONG_DOUBLE is taken to be x87 80-bit in 16 bytes");
  return t;
}

}  // namespace

size_t elemSize(Elem e) {
  constexpr size_t kSizes[kElemCount] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, sizeof(long double), 1};
  static_assert(std::ranges::max(kSizes) == kMaxElemSize);
  return kSizes[static_cast<int>(e)];
}

const char* elemName(Elem e) {
  constexpr const char* kNames[kElemCount] = {"int8",  "uint8",  "int16",  "uint16", "int32",       "uint32",
                                              "int64", "uint64", "float32", "float64", "long double", "bool"};
  return kNames[static_cast<int>(e)];
}

const char* opName(OpKind op) {
  constexpr const char* kNames[kOpCount] = {"MPI_MAX",  "MPI_MIN", "MPI_SUM",  "MPI_PROD", "MPI_LAND",
                                            "MPI_LOR",  "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR"};
  return kNames[static_cast<int>(op)];
}

std::optional<TypeInfo> classifyType(MPI_Datatype type) {
  // Built on first use: Fortran sizes need an initialised MPI. Handles never change after.
  static std::once_flag once;
  static std::vector<NamedType>* table = nullptr;
  std::call_once(once, [] { table = new std::vector<NamedType>(buildTable()); });
  for (const auto& t : *table)
    if (t.handle == type) return t.info;
  return std::nullopt;
}

std::optional<OpKind> classifyOp(MPI_Op op) {
  const std::pair<MPI_Op, OpKind> ops[] = {
      {MPI_MAX, OpKind::Max},   {MPI_MIN, OpKind::Min},   {MPI_SUM, OpKind::Sum},   {MPI_PROD, OpKind::Prod},
      {MPI_LAND, OpKind::Land}, {MPI_LOR, OpKind::Lor},   {MPI_LXOR, OpKind::Lxor}, {MPI_BAND, OpKind::Band},
      {MPI_BOR, OpKind::Bor},   {MPI_BXOR, OpKind::Bxor},
  };
  for (const auto& [handle, kind] : ops)
    if (handle == op) return kind;
  return std::nullopt;
}

bool opAllowed(OpKind op, TypeGroup group) {
  using G = TypeGroup;
  switch (op) {
    case OpKind::Max:
    case OpKind::Min: return group == G::CInteger || group == G::FortranInteger || group == G::Floating;
    case OpKind::Sum:
    case OpKind::Prod: return group == G::CInteger || group == G::FortranInteger || group == G::Floating;
    case OpKind::Land:
    case OpKind::Lor:
    case OpKind::Lxor: return group == G::CInteger || group == G::Logical;
    case OpKind::Band:
    case OpKind::Bor:
    case OpKind::Bxor: return group == G::CInteger || group == G::FortranInteger || group == G::Byte;
  }
  return false;
}

}  // namespace ferry::coll
