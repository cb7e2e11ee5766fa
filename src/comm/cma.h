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

// Page runs, for the unified-shared-memory pager: reads up to `count` (at most
// kCmaMaxPages) 4 KiB pages of `pid` from `page` on into `out`, and returns how many it read:
// the pages up to the first one `pid` does not map (one remote iovec per page, since
// process_vm_readv reports partial transfers per iovec). Async-signal-safe: it allocates
// nothing, so the pager's fault handler calls it.
inline constexpr uint32_t kCmaMaxPages = 256;
uint32_t cmaReadPages(pid_t pid, uint64_t page, uint32_t count, uint8_t* out);
Status cmaWrite(pid_t pid, uint64_t remoteAddr, const void* local, size_t len);

// Reads `len` bytes at `remoteAddr` in `pid` and compares them with `expected`.
// Returns an empty string when CMA works, else the reason it does not.
std::string cmaProbe(pid_t pid, uint64_t remoteAddr, const void* expected, size_t len);

// The value of /proc/sys/kernel/yama/ptrace_scope, or -1 when Yama is absent.
int yamaPtraceScope();

}  // namespace ferry::comm
