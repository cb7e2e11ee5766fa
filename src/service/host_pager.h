// Unified shared memory for a device served by another process on rank 0's node.
//
// `#pragma omp requires unified_shared_memory` lets kernels dereference rank 0's own
// addresses: its stack, heap and globals. A serving rank has none of that memory, so while
// such a kernel runs, a fault on an address this process does not map is answered with rank
// 0's page, read with CMA (a mirror page, filled before any thread can see it). When the
// kernel ends, the 8-byte words it changed, and only those, are written back to rank 0, and the
// mirror pages are dropped. A kernel therefore sees rank 0's memory as it was when the
// kernel first touched each page (or, for a page a sweep mirrors ahead of the kernel,
// FERRY_USM_FAULT_AROUND, when it touched the page that faulted), plus its own writes; rank 0
// sees the kernel's writes when the kernel ends, which is when OpenMP makes them visible to
// the host.
//
// What this does not give (docs/user-guide.md): atomics that a kernel and the host (or two
// devices) apply to the same location at the same time, and kernels on devices of other
// nodes (no CMA there). The same mechanism, without the requirement, serves kernels that
// dereference host memory they were never given (Mode::Lenient).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "platform/status.h"

namespace ferry::service::hostpager {

enum class Mode : uint8_t {
  // `requires unified_shared_memory`: one kernel at a time, each on a fresh mirror, and the
  // layouts checked before each (no page of rank 0 at an address this process uses).
  Unified,
  // Any other program on a CPU device of rank 0's node: a kernel that dereferences host
  // memory no map clause gave it (which works with the stock host plugin, whose devices share
  // the host's address space) is served the same way instead of crashing. Kernels run
  // concurrently and share the mirror; nothing is checked in advance (FERRY_UNMAPPED_ACCESS).
  Lenient,
};

// The host reached through service/page_courier's link (MPI), where CMA cannot reach it: on
// another node, or where the kernel refuses cross-memory attach. Start the courier first.
inline constexpr pid_t kRemoteHost = -1;

// Prepares this process to page in memory of `hostPid`: the mirror's tables and the fault
// handler, installed once. Faults the pager does not serve go to the handler installed
// before it (the crash report). `hostPid` is a process of this node that CMA reaches, or
// kRemoteHost.
Status enable(pid_t hostPid, Mode mode);

struct RunStats {
  uint64_t pagesIn = 0;       // mirrored pages of rank 0 at the kernel's end
  uint64_t bytesWritten = 0;  // bytes written back
  uint64_t runsWritten = 0;   // contiguous runs those bytes formed
  uint64_t firstPage = 0;     // the first page paged in (for messages)
  uint64_t faults = 0;        // faults that paged pages in (FERRY_USM_FAULT_AROUND: several each)
};

// Runs `kernel` with `hostPid`'s pages mapped on demand, then writes back what changed.
Status run(pid_t hostPid, Mode mode, const std::function<Status()>& kernel, RunStats* stats = nullptr);

// Whether two processes' address ranges collide: a range of the host that this process
// maps too, with other contents. Exposed for the unit test; `run` checks it each time.
// Each line is a /proc/PID/maps line.
struct MapRange {
  uint64_t start = 0, end = 0;
  std::string perms, offset, inode, path;
};
std::vector<MapRange> parseMaps(const std::string& text);
// The first host range that overlaps a range of `self` without being the same mapping, or
// nullptr.
const MapRange* firstCollision(const std::vector<MapRange>& host, const std::vector<MapRange>& self);

}  // namespace ferry::service::hostpager
