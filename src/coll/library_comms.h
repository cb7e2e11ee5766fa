// Communicators on which auto mode hands every allreduce to the library (one rank per node,
// Ferry turned off for it, one rank in all), found by their handle with one load, so that a
// call on them costs the fast path's few loads instead of an attribute lookup and the
// classification behind it. With MPICH, which has no crossover (settings.h), that lookup was
// 80-90 ns of a 0.8 us call with one rank per node, and a call on MPI_COMM_SELF took 0.14
// against 0.04 us.
//
// A table of handles, 8 slots per hash (one cache line): a communicator whose slots others
// all hold just takes the slow path. Each entry hangs a marker attribute on its communicator, whose
// delete callback removes the entry when the program frees it (or at MPI_Finalize, for the
// predefined ones), before MPI can hand the handle out again.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace ferry::coll {

// A communicator's handle as a number: an int (MPICH) or a pointer (Open MPI), neither 0 for
// a live communicator. The table's key, and how logs name an unnamed communicator.
uint64_t commKey(MPI_Comm comm);

}  // namespace ferry::coll

namespace ferry::coll::libraryComms {

// Lock-free; false for any communicator not added, and after it was freed.
bool contains(MPI_Comm comm);
// Once it is known that auto mode sends every call on `comm` to the library.
void add(MPI_Comm comm);

}  // namespace ferry::coll::libraryComms
