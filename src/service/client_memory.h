// How a device's kernels reach the memory of the client they serve beyond what map clauses
// move (host_pager.h): the whole of it under '#pragma omp requires unified_shared_memory',
// and unmapped accesses under FERRY_UNMAPPED_ACCESS=serve. That depends on how the client is
// connected, so the process that starts the service installs the answer: the serving ranks
// of an MPI job install mpiClientMemory() (cross-memory attach within a node, MPI pages
// beyond); a daemon installs none, since its clients are on another machine, and its kernels
// see mapped memory only.
#pragma once

#include <sys/types.h>

#include "platform/status.h"

namespace ferry::service {

class ClientMemory {
 public:
  virtual ~ClientMemory() = default;
  // The process whose memory kernels dereference under unified_shared_memory: 0 when that is
  // this process, its pid where CMA reaches it, else hostpager::kRemoteHost, with the pages
  // carried by page_courier (started here).
  virtual Result<pid_t> unifiedHost(int clientRank) = 0;
  // Without the requirement: the client whose unmapped memory kernels may be served, or 0.
  virtual pid_t lenientHost(int clientRank) = 0;
};

// Installed once, before the first device is initialised; nullptr (the default) reaches none.
void setClientMemory(ClientMemory* memory);
ClientMemory* clientMemory();

// The MPI job's way (service/client_memory_mpi.cpp).
ClientMemory& mpiClientMemory();

}  // namespace ferry::service
