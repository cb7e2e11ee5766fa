#include "tools/ferry/stop_signals.h"

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

void handleStopSignals(void (*handler)(int, siginfo_t*, void*)) {
  struct sigaction sa {}, old {};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int sig : kStopSignals)
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(sig, &sa, nullptr);
}

}  // namespace ferry::tools
