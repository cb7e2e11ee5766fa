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
// `kernelsOffMainThread`: the process's main thread runs no kernel (rank 0), so an exit
// from it is the program ending, not a kernel's exit().
void installExitReport(const char* who, bool kernelsOffMainThread);
// Gives the calling thread a stack of its own for the crash report while it lives: a kernel
// that overflows its thread's stack leaves no room there to run the handler, and the rank
// died unexplained. For threads that run kernels (the serving rank's main thread, device
// workers); libomp's own threads have none.
class CrashStack {
 public:
  CrashStack();
  ~CrashStack();
  CrashStack(const CrashStack&) = delete;
  CrashStack& operator=(const CrashStack&) = delete;

 private:
  void* stack_ = nullptr;
};
// Marks the start and end of work that may crash. `what` must outlive the activity (it is
// not copied: this runs for every kernel launch).
void setActivity(const char* what);
void clearActivity();

}  // namespace ferry::service
