// libomp, LLVM's OpenMP runtime, registers each process that loads it in /dev/shm as
// __KMP_REGISTERED_LIB_<pid>_<uid> and removes the entry in its exit handlers. A process that
// a signal ends skips them, and one that is killed cannot run anything, so every rank of a job
// that ended by a signal or a kill left an entry for good (the kill campaign counted three per
// job; one test machine had 10,800). A Ferry process that a signal ends removes its own entry,
// and those of the processes of its node it knows of that no longer exist: a SIGKILLed
// rank's, when a peer outlives it for a moment.
#pragma once

#include <sys/types.h>

#include <vector>

namespace ferry {

// The processes of this node whose entries a termination here may remove once they are gone.
void noteNodePeers(const std::vector<pid_t>& pids);

// This process's entry and those of noted peers that no longer exist, or, with `allPeers`,
// of every noted peer: a rank that ends the job (MPI_Abort) knows they all die with it, the
// launcher's SIGKILL leaves them no chance to, and libomp reads its entry only at start and
// end. Async-signal-safe: called from termination and crash handlers, right before the
// process dies of the signal.
void removeOpenMpRegistrations(bool allPeers = false);

// After a job on this machine: the entries this user's processes made since `since` (a
// time(2) value) whose process is gone, such as the ranks a launcher SIGKILLed (MPICH's
// Hydra does so to every rank once one dies). Returns how many it removed.
int removeStaleOpenMpRegistrations(long since);

}  // namespace ferry
