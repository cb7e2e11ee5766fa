// MPI and OpenSHMEM in one program, in either initialisation order. shmem_init starts MPI
// when the program has not; a later MPI_Init must then succeed, and whichever of
// MPI_Finalize and shmem_finalize comes last ends MPI. The library defines MPI_Init,
// MPI_Init_thread and MPI_Finalize (ahead of the MPI library in the link order oshcc
// gives), which forward to PMPI_* except where SHMEM holds MPI open (interop.cpp).
#pragma once

namespace ferry::comm {
class World;
}

namespace ferry::shmem::interop {

void shmemStarted();
// Ends MPI here if SHMEM started it and the program has not initialised it as well, or the
// program's MPI_Finalize came first; otherwise leaves it to the program's MPI_Finalize.
void shmemEnding(comm::World& world);

}  // namespace ferry::shmem::interop
