// Signal dispositions a process inherited. A signal it was started ignoring (nohup's SIGHUP,
// the SIGINT of a script's background job) is left ignored by every handler Ferry installs,
// as a shell leaves it.
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

}  // namespace ferry
