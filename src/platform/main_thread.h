// Whether the calling thread is the process's first one, the thread that runs main (its
// thread id is the process id). Async-signal-safe: exit and crash handlers ask it.
#pragma once

#include <unistd.h>

namespace ferry {

inline bool onMainThread() { return gettid() == getpid(); }

}  // namespace ferry
