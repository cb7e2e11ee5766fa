// MPI calls on Ferry's communicators return error codes (MPI_ERRORS_RETURN); this turns
// one into a Status that says which call, with which peer, failed and why.
#pragma once

#include <mpi.h>

#include <string>

#include "platform/status.h"

namespace ferry::comm {

Status mpiStatus(int rc, const char* call, int peer = -1);

}  // namespace ferry::comm
