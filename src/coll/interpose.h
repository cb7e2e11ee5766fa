// What the interposer's entry points do, shared by the C ones (interpose.cpp) and Open
// MPI's Fortran ones (interpose_fortran.cpp), so that a program gets the same from either.
#pragma once

#include <mpi.h>

namespace ferry::coll {

// MPI_Init and MPI_Init_thread, from C or Fortran: the layer below's (next_layer.h), looked
// up first, then, where it succeeded, the job-wide check that every process runs the same
// build and settings (job_check.h).
int init(int* argc, char*** argv);
int initThread(int* argc, char*** argv, int required, int* provided);

// MPI_Alloc_mem: a block of Ferry's shared heap for requests of kAllocMemMinSize or more
// (FERRY_COLL_ALLOC_MEM), the next layer's MPI_Alloc_mem
// (next_layer.h) for the others and where the heap cannot serve.
int allocMem(MPI_Aint size, MPI_Info info, void* baseptr);
// MPI_Free_mem: releases a block of the shared heap, hands anything else to the next
// layer's MPI_Free_mem.
int freeMem(void* base);

}  // namespace ferry::coll
