// What the interposer's entry points do, shared by the C ones (interpose.cpp) and Open
// MPI's Fortran ones (interpose_fortran.cpp), so that a program gets the same from either.
#pragma once

#include <mpi.h>

namespace ferry::coll {

// The result of the library's MPI_Init or MPI_Init_thread, after the job-wide check that
// every process runs the same build and settings (job_check.h) where it succeeded.
int afterInit(int rc);

// MPI_Alloc_mem: a block of Ferry's shared heap for requests of kAllocMemMinSize or more
// (FERRY_COLL_ALLOC_MEM), PMPI_Alloc_mem for the others and where the heap cannot serve.
int allocMem(MPI_Aint size, MPI_Info info, void* baseptr);
// MPI_Free_mem: releases a block of the shared heap, hands anything else to PMPI_Free_mem.
int freeMem(void* base);

}  // namespace ferry::coll
