// MPI calls on Ferry's communicators return error codes (MPI_ERRORS_RETURN); this turns
// one into a Status that says which call, with which peer, failed and why.
#pragma once

#include <mpi.h>

#include <string>

#include "platform/status.h"

namespace ferry::comm {

Status mpiStatus(int rc, const char* call, int peer = -1);

// MPI_Get_library_version's text, which MPI allows before MPI_Init and after MPI_Finalize;
// its first line names the library and version ("Open MPI v4.1.4, ...", "MPICH Version: 4.0").
std::string mpiLibraryVersion();
std::string mpiLibraryName();

}  // namespace ferry::comm
