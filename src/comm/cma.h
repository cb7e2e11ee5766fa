// Cross-memory attach: single-copy reads and writes of another process's memory on the
// same node (process_vm_readv / process_vm_writev). The kernel allows it between processes
// of one user unless Yama's ptrace_scope or a container policy forbids it, so Ferry probes
// it at start-up and falls back to MPI when it does not work.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/status.h"

namespace ferry::comm {

Status cmaRead(pid_t pid, uint64_t remoteAddr, void* local, size_t len);
Status cmaWrite(pid_t pid, uint64_t remoteAddr, const void* local, size_t len);

// Reads `len` bytes at `remoteAddr` in `pid` and compares them with `expected`.
// Returns an empty string when CMA works, else the reason it does not.
std::string cmaProbe(pid_t pid, uint64_t remoteAddr, const void* expected, size_t len);

// The value of /proc/sys/kernel/yama/ptrace_scope, or -1 when Yama is absent.
int yamaPtraceScope();

}  // namespace ferry::comm
