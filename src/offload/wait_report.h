// What rank 0 is waiting for, kept where a signal handler can print it. When the MPI
// launcher tears the job down because a serving rank died (Open MPI sends SIGTERM to the
// survivors), rank 0 still says which operation on which device it was waiting for.
#pragma once

#include <string>

namespace ferry::offload {

void noteWait(const std::string& what);
void clearWait();
// Installs SIGTERM/SIGINT/SIGHUP handlers that print the last noted wait, then die of the
// same signal (so the exit status still tells the launcher what happened).
void installTerminationReport();

}  // namespace ferry::offload
