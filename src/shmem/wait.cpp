// The steps of a wait on local symmetric memory (shmem_wait_until and friends, locks).
#include <mpi.h>

#include <atomic>

#include "platform/backoff.h"
#include "platform/clock.h"
#include "platform/config.h"
#include "platform/log.h"
#include "shmem/api.h"
#include "shmem/runtime.h"

namespace ferry::shmem {
namespace {

// One wait at a time per thread: its backoff and when it began (for the warning below).
struct WaitState {
  const void* ivar = nullptr;
  Backoff backoff;
  uint64_t sinceNs = 0;
  uint32_t steps = 0;
  bool warned = false;
};
thread_local WaitState tWait;

// Bytes that MPI-3 RMA writes into this PE may need this PE to enter MPI (implementations
// without asynchronous progress), and the window's memory view to be synchronised.
void progress(Runtime& r) {
  if (r.heapWin == MPI_WIN_NULL) return;  // a lone PE
  probeProgress(r);
  // The contexts' windows cover the same memory; in the unified model both libraries use,
  // one window's sync is the memory barrier for all of them.
  MPI_Win_sync(r.heapWin);
  if (r.dataWin != MPI_WIN_NULL) MPI_Win_sync(r.dataWin);
}

// Within one node the heap is load/store, but atomics on static data go through MPI, whose
// library may need this PE to progress them (Open MPI's emulated atomics do): every 8th
// step there, every step where other nodes write through MPI.
bool progressDue(const Runtime& r, uint32_t step) { return r.multiNode || !r.cma || step % 8 == 0; }

}  // namespace

void probeProgress(const Runtime& r) {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, r.comm, &flag, MPI_STATUS_IGNORE);
}

void waitStep(const void* ivar, const char* call) {
  Runtime& r = rt(call);
  WaitState& w = tWait;
  if (w.ivar != ivar) {
    w.ivar = ivar;
    w.backoff.reset();
    w.sinceNs = nowNs();
    w.warned = false;
  }
  if (progressDue(r, w.steps++)) progress(r);
  w.backoff.idle();
  // A wait may last as long as the program wants; one that outlasts the fault-detection
  // timeout is said once, in case a PE died or never writes the variable.
  if (!w.warned && w.backoff.pastSpin() &&
      static_cast<double>(nowNs() - w.sinceNs) * 1e-9 > config().seconds(Knob::Timeout)) {
    w.warned = true;
    log::warn(log::Shmem, "%s on PE %d (host %s) has waited longer than FERRY_TIMEOUT for the variable at %p; "
              "it waits on (a PE that ends the job ends this wait)", call, r.me, r.host().c_str(), ivar);
  }
}

void testStep(const void*, const char* call) {
  Runtime& r = rt(call);
  progress(r);  // a test is called between pieces of the program's work: rarely enough
}

void waitDone() {
  tWait.ivar = nullptr;
  std::atomic_thread_fence(std::memory_order_acquire);
}

}  // namespace ferry::shmem
