// MPI_Allreduce through Ferry: Ferry's hierarchical, pipelined algorithm where the cost model
// picks it, the MPI library's everywhere else (through the layer below the interposer,
// next_layer.h). The generic part lives here:
// argument checks, the decision and its explanation, statistics and the conversion of
// errors into MPI error codes; the pipelines (pipeline.h) do the data movement.
#pragma once

#include <mpi.h>

#include "coll/settings.h"

namespace ferry::coll {

// Same contract and return codes as MPI_Allreduce. What Ferry does not run goes to the layer
// below the interposer (next_layer.h); Ferry's own allreduces call PMPI_Allreduce and never
// come here.
int allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

#if MPI_VERSION >= 4
// MPI_Allreduce_c with a count that fits an int: the same, except that a call Ferry hands
// on reaches the layer below as MPI_Allreduce_c.
int allreduceLargeCount(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
#endif

// The same with explicit settings, for benchmarks that compare modes within one run. Every
// rank of `comm` must pass equal settings.
int allreduceWith(const Settings& s, const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm);

// Starts the platform (settings, logging) once; false if a FERRY_* setting is invalid,
// in which case Ferry's collectives stay off and the error has been logged.
bool ensureStarted();

}  // namespace ferry::coll
