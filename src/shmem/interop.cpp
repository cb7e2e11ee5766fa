#include "shmem/interop.h"

#include <mpi.h>

#include "comm/world.h"
#include "platform/log.h"

namespace ferry::shmem::interop {
namespace {

bool gShmemActive = false;
bool gProgramInitialized = false;  // the program called MPI_Init* itself
bool gProgramFinalized = false;    // ... and MPI_Finalize, while SHMEM still held MPI open
bool gInShmemFinalize = false;

int programInit(int* provided) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  gProgramInitialized = true;
  if (!initialized) return -1;  // not ours to absorb: the caller forwards to PMPI
  if (provided) MPI_Query_thread(provided);
  log::debug(log::Shmem, "MPI_Init after shmem_init: MPI is already running, the call succeeds");
  return MPI_SUCCESS;
}

}  // namespace

void shmemStarted() { gShmemActive = true; }

void shmemEnding(comm::World& world) {
  gShmemActive = false;
  gInShmemFinalize = true;
  bool ownsMpi = world.ownsMpi();
  (void)world.finalize();  // where it owns MPI, its MPI_Finalize comes to the definition below
  gInShmemFinalize = false;
  // The program started MPI and called MPI_Finalize while SHMEM still used it.
  if (!ownsMpi && gProgramFinalized) PMPI_Finalize();
}

}  // namespace ferry::shmem::interop

using namespace ferry::shmem::interop;

// Exported whatever mpi.h says: Open MPI's declares these with default visibility, MPICH's
// (Debian's build) does not, and the library is compiled with hidden visibility.
#define FERRY_EXPORT __attribute__((visibility("default")))

extern "C" {

FERRY_EXPORT int MPI_Init(int* argc, char*** argv) {
  int rc = programInit(nullptr);
  return rc >= 0 ? rc : PMPI_Init(argc, argv);
}

FERRY_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  // Ferry's own start (comm::World) comes here too, before SHMEM is up: forward it.
  if (!gShmemActive && !gInShmemFinalize) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) return PMPI_Init_thread(argc, argv, required, provided);
  }
  int rc = programInit(provided);
  return rc >= 0 ? rc : PMPI_Init_thread(argc, argv, required, provided);
}

FERRY_EXPORT int MPI_Finalize(void) {
  if (gShmemActive) {
    gProgramFinalized = true;  // shmem_finalize ends MPI later
    return MPI_SUCCESS;
  }
  if (gInShmemFinalize && gProgramInitialized && !gProgramFinalized) return MPI_SUCCESS;  // the program's call will
  return PMPI_Finalize();
}

}  // extern "C"
