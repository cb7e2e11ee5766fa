// What rank 0 is waiting for, kept where a signal handler can print it. When the MPI
// launcher tears the job down because a serving rank died (Open MPI sends SIGTERM to the
// survivors), rank 0 still says which operation on which device it was waiting for.
#pragma once

#include <string>
#include <vector>

namespace ferry::offload {

// Cheap enough for every wait: stores a literal and a device number; the handler formats.
void noteWait(const char* what, int device);
void clearWait();
// A plugin operation failed (and was reported); libomptarget usually aborts next.
void noteOffloadFailure();
// Installs SIGTERM/SIGINT/SIGHUP handlers that print the last noted wait, and a SIGABRT
// handler that recalls the device table after a failed operation (libomptarget aborts then)
// or says that no operation failed (the program's own assert or abort), then die of the
// same signal so that the exit status still tells the launcher what happened. `devices`
// summarises the table, e.g. "2 devices (0-1) on ranks 1-2"; `where` holds, per device,
// "device 0 (rank 1, host n1)".
void installTerminationReport(const std::string& devices, std::vector<std::string> where);

}  // namespace ferry::offload
