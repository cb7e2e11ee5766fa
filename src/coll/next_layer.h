// Where the MPI calls that Ferry does not run itself go: the next layer below the
// interposer. By default that is the MPI library's PMPI_ entry points. libferry-pmpi.so
// points it at the next definition of each MPI_ function after its own (dlsym RTLD_NEXT):
// a PMPI tool preloaded or linked after Ferry (mpiP, Darshan, Score-P), else the library.
// So such a tool still sees MPI_Init and every call Ferry hands on, instead of none of
// them. MPI defines one profiling layer; chaining through the next definition is how two
// tools that replace the same functions share it (as PnMPI and QMPI do).
#pragma once

#include <mpi.h>

#include <string>

namespace ferry::coll {

struct NextLayer {
  int (*init)(int*, char***) = PMPI_Init;
  int (*initThread)(int*, char***, int, int*) = PMPI_Init_thread;
  int (*allreduce)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm) = PMPI_Allreduce;
#if MPI_VERSION >= 4
  int (*allreduceC)(const void*, void*, MPI_Count, MPI_Datatype, MPI_Op, MPI_Comm) = PMPI_Allreduce_c;
#endif
  int (*allocMem)(MPI_Aint, MPI_Info, void*) = PMPI_Alloc_mem;
  int (*freeMem)(void*) = PMPI_Free_mem;
};

const NextLayer& nextLayer();

// Every entry point the interposer replaces, looked up after it, once: at the interposer's
// load, and again at its MPI_Init and MPI_Init_thread, which another library's constructor
// may call before that load's constructor ran. So before any other MPI call reads the
// table; a function not found keeps PMPI_. A tool loaded later (dlopen) is not chained.
void chainToNextLayer();

// The file that defines the next layer's MPI_Allreduce, for FERRY_LOG=coll.
std::string nextLayerFile();

}  // namespace ferry::coll
