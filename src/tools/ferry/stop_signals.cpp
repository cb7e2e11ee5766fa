#include "tools/ferry/stop_signals.h"

#include <cstdio>

#include "platform/signals.h"

namespace ferry::tools {

StopSignalsHeld::StopSignalsHeld() {
  sigset_t stops;
  sigemptyset(&stops);
  for (int sig : kStopSignals) sigaddset(&stops, sig);
  sigprocmask(SIG_BLOCK, &stops, &callers_);
}

void StopSignalsHeld::release() {
  if (!held_) return;
  held_ = false;
  sigprocmask(SIG_SETMASK, &callers_, nullptr);
}

namespace {

// The stop signals this process was started ignoring, noted before any shared library's
// constructor runs (the executable's preinit_array): UCX, which MPICH's library loads,
// installs a SIGHUP handler of its own at load, which hid nohup's ignore.
sigset_t gIgnoredAtStart;
void noteIgnoredAtStart(int, char**, char**) {
  sigemptyset(&gIgnoredAtStart);
  for (int sig : kStopSignals)
    if (signalIgnored(sig)) sigaddset(&gIgnoredAtStart, sig);
}
[[gnu::section(".preinit_array"), gnu::used]] void (*const kNoteIgnoredAtStart)(int, char**, char**) =
    noteIgnoredAtStart;

}  // namespace

void handleStopSignals(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int sig : kStopSignals) {
    // An ignored one is ignored again (the child inherits that), whatever a library set.
    if (sigismember(&gIgnoredAtStart, sig) == 1) signal(sig, SIG_IGN);
    else sigaction(sig, &sa, nullptr);
  }
}

void defaultStopSignalsInChild() {
  for (int sig : kStopSignals)
    if (sigismember(&gIgnoredAtStart, sig) != 1) signal(sig, SIG_DFL);
}

void restoreIgnoredStopSignals() {
  for (int sig : kStopSignals)
    if (sigismember(&gIgnoredAtStart, sig) == 1) signal(sig, SIG_IGN);
}

void dieOfSignal(int sig) {
  std::fflush(nullptr);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace ferry::tools
