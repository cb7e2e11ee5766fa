// Signal dispositions a process inherited. A signal it was started ignoring (nohup's SIGHUP,
// the SIGINT of a script's background job) is left ignored by the handlers Ferry installs,
// as a shell leaves it, where the process can still tell: a library that installed its own
// handler at load (MPICH's UCX, for SIGHUP) hides the ignore; only an executable can note
// it before that (tools/ferry/stop_signals.cpp).
#pragma once

#include <signal.h>

namespace ferry {

inline bool signalIgnored(int sig) {
  struct sigaction now {};
  return sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN;
}

// Installs `sa` for `sig` unless the process ignores it.
inline void handleUnlessIgnored(int sig, const struct sigaction& sa) {
  if (!signalIgnored(sig)) sigaction(sig, &sa, nullptr);
}

// Installs `sa` for `sig` only where the default action is in place: neither ignored nor
// handled by a library that came first.
inline void handleIfDefault(int sig, const struct sigaction& sa) {
  struct sigaction now {};
  if (sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_DFL && !(now.sa_flags & SA_SIGINFO))
    sigaction(sig, &sa, nullptr);
}

}  // namespace ferry
