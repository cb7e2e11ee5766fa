// Which (datatype, op) pairs Ferry reduces itself. Only predefined datatypes and ops, and only
// the pairs that the MPI standard allows (MPI-4.0, section 6.9.2): anything else (derived or
// pair datatypes, complex, Fortran LOGICAL, user ops, MINLOC/MAXLOC, invalid pairs) goes to the
// MPI library, which computes it or reports the error exactly as it would without Ferry.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ferry::coll {

// The machine representation of one element.
enum class Elem : uint8_t { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64, F80, Bool };
inline constexpr int kElemCount = 12;

// The standard's groups of datatypes, which decide the ops allowed on them.
enum class TypeGroup : uint8_t { CInteger, FortranInteger, Floating, Logical, Byte };

enum class OpKind : uint8_t { Max, Min, Sum, Prod, Land, Lor, Lxor, Band, Bor, Bxor };
inline constexpr int kOpCount = 10;

struct TypeInfo {
  Elem elem;
  TypeGroup group;
  const char* name;  // "MPI_INT"
};

size_t elemSize(Elem e);
// The widest element Ferry reduces (long double); a call with fewer elements than
// minSize / kMaxElemSize is below a crossover of minSize bytes whatever its datatype, since
// every datatype Ferry does not reduce goes to the library anyway.
inline constexpr size_t kMaxElemSize = 16;
const char* elemName(Elem e);
const char* opName(OpKind op);

// A predefined datatype Ferry can reduce, or nothing. Needs MPI to be initialised (the
// sizes of Fortran types are asked of the library).
std::optional<TypeInfo> classifyType(MPI_Datatype type);
// A predefined reduction op Ferry implements, or nothing (user ops, MINLOC, MAXLOC, ...).
std::optional<OpKind> classifyOp(MPI_Op op);
// Whether the MPI standard allows `op` on datatypes of `group`.
bool opAllowed(OpKind op, TypeGroup group);

}  // namespace ferry::coll
