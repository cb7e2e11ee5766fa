// What a serving rank is doing, kept where a fatal-signal handler can print it. A kernel
// that crashes its process (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) is reported with the
// kernel's name, device, rank and host before the process dies; the launcher then ends the
// job as it does for any crashed rank. So is a kernel that calls exit().
#pragma once

namespace ferry::service {

// Installs the signal and exit handlers; every report starts as a log line does (rank, host, pid).
void installCrashReport();
// Only the report of a kernel's exit(), for rank 0's own devices (rank 0 keeps its own
// signal handling); `who` names the rank in it. Its handler is registered at the first
// kernel, after every exit handler that waits for the devices, so that it runs first.
void installExitReport(const char* who);
// Marks the start and end of work that may crash. `what` must outlive the activity (it is
// not copied: this runs for every kernel launch).
void setActivity(const char* what);
void clearActivity();

}  // namespace ferry::service
