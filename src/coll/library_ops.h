// The (datatype, op) the leaders hand to the MPI library for the inter-node stage.
//
// The library's own reduction is used wherever it computes what C computes, on a canonical
// fixed-width datatype (MPI_INT64_T for MPI_LONG, MPI_UINT64_T for MPI_UNSIGNED_LONG, ...).
// Where it does not, Ferry's kernel goes in as a commutative MPI user op instead. Both MPI
// libraries on this machine need that for some pairs: Open MPI 4.1.4 compares
// MPI_UNSIGNED_LONG as signed and MPI_OFFSET as unsigned, and its AVX component saturates
// 8- and 16-bit sums; MPICH 4.0.2 compares every unsigned type as signed. Which pairs are
// exact is not assumed but measured once per process, with MPI_Reduce_local on inputs that
// tell signed from unsigned and wrap from saturation.
#pragma once

#include <mpi.h>

#include "coll/types.h"

namespace ferry::coll {

struct LibraryReduction {
  MPI_Datatype type;
  MPI_Op op;
  bool ferryKernel;  // op is Ferry's kernel wrapped as an MPI user op
};

// Needs MPI to be initialised. Thread-safe; the probe runs on first use.
LibraryReduction libraryReduction(Elem elem, OpKind op);

}  // namespace ferry::coll
