// Whether a process of this machine has ended, for the waits that watch their peers (the
// offload's liveness, the allreduce's node waits) and the clean-up of a dying one.
#pragma once

#include <sys/types.h>

namespace ferry {

// True when `pid` no longer exists, or is a zombie its parent (the launcher) has not reaped
// yet: kill(pid, 0) alone takes a zombie for alive. Async-signal-safe.
bool processGone(pid_t pid);

}  // namespace ferry
