// In offload mode Ferry owns MPI: rank 0 runs main and every other rank serves devices, so
// an application that calls MPI_Init itself would find ranks that never run main. Such a
// program is rejected at start-up with a clear message instead of hanging in its first
// collective.
#pragma once

#include <string>

namespace ferry::offload {

// Returns the MPI initialisation symbol that the executable imports, or "" if none.
std::string executableImportsMpiInit(const std::string& path = "/proc/self/exe");

}  // namespace ferry::offload
