// The signals that ask a job to stop (SIGINT, SIGTERM, SIGHUP: Ctrl-C, `kill`, a batch
// system, a hangup), as the commands that start a child (ferry run's launcher, ferry
// bench's runs) handle them: held while the child starts, then passed on to it.
#pragma once

#include <signal.h>

namespace ferry::tools {

inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Blocks the stop signals from before a child is started until the handlers know it, so
// that none can end this process in between and leave the child running without anyone to
// stop it. The child must start with the caller's mask (callersMask); release() or the
// destructor restores it here, and what came meanwhile is then handled.
class StopSignalsHeld {
 public:
  StopSignalsHeld();
  ~StopSignalsHeld() { release(); }
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

  const sigset_t& callersMask() const { return callers_; }
  void release();

 private:
  sigset_t callers_;
  bool held_ = true;
};

// Installs `handler` (SA_SIGINFO) for each stop signal this process was not started
// ignoring (nohup's SIGHUP, a script's background job's SIGINT). An ignored one stays
// ignored here and, through exec, in the child, unless the child installs a handler of its
// own. Only for the ferry executable: it notes what it was started ignoring before its
// libraries load.
void handleStopSignals(void (*handler)(int, siginfo_t*, void*));

// In a child between fork and exec: the stop signals handleStopSignals handled go back to
// their default action, so that one arriving before exec ends the child, as it would the
// launcher, instead of running this process's handler there (and being lost). Those
// ignored at start stay ignored. Async-signal-safe.
void defaultStopSignalsInChild();

// Before this process execs another program in its place (ferry bind): the stop signals it
// was started ignoring are ignored again, whatever a library's handler set meanwhile (exec
// would reset that handler to the default action, and the program would lose the ignore).
void restoreIgnoredStopSignals();

// Ends this process by `sig`, as a process that did not handle it would end, so that its
// parent sees the signal (a shell script stops as after its own Ctrl-C). Flushes stdio
// first: not for signal handlers. Returns only where `sig` is blocked.
void dieOfSignal(int sig);

}  // namespace ferry::tools
