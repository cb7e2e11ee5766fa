// How a thread waits for something another process will do. It busy-polls for
// FERRY_SPIN_TIME (lowest latency), then yields, then sleeps with exponential backoff up to
// 1 ms, so that waiting ranks leave the cores to ranks that compute: on a node with more
// ranks than cores, a spinning server would otherwise slow down the kernels it serves.
//
// A yield only helps against threads that yield too. Against one that never does (another
// job's compute loop, libomp's threads spinning at a barrier or in taskwait) the kernel
// hands it the core until its time slice ends, milliseconds, so a wait that yields in a
// loop polls once per slice: 10,000 allreduces on 4 ranks took 120 s with one busy process
// per core against 4 s without (docs/performance.md, finding 15). A yield that kept
// the thread off its core for over kSlowYieldNs marks the thread contended for a while, and
// its waits then sleep briefly instead (a thread that wakes from a sleep preempts a spinner),
// for whatever cap they were given, and at least kContendedSleepUs.
#pragma once

#include <cstdint>

namespace ferry {

class Backoff {
 public:
  explicit Backoff(uint64_t spinNs);
  // maxSleepUs caps the sleeps; 0 never sleeps, only yields. For waits on peers that are
  // all inside the same operation (a collective), where a sleeping rank leaves its core idle
  // while the others have work: measured 35% slower with 4 ranks on 2 cores.
  Backoff(uint64_t spinNs, uint32_t maxSleepUs);
  Backoff();  // uses FERRY_SPIN_TIME
  // FERRY_SPIN_TIME, then yields; with `mayRest`, then sleeps with backoff as Backoff() does.
  // For waits that rest only where ranks outnumber the machine's hardware threads
  // (comm::World::machineOversubscribed): a request that comes while a waiter sleeps waits
  // for the sleep to end.
  static Backoff afterSpinTime(bool mayRest);
  // Call after each poll that found nothing to do.
  void idle();
  // The same, for a wait whose own transfer advances only while this thread polls (an MPI
  // pipeline's next chunk): it yields but never sleeps, since a sleep stalls the bytes.
  void idleWithoutSleep();
  // Call after each poll that made progress: the next wait starts hot again.
  void reset();
  // Whether the wait has outlasted the spin phase: latency no longer matters, so this is
  // when to do periodic chores (liveness checks).
  bool pastSpin() const { return spun_; }
  // Whether the calling thread's waits sleep rather than yield now (see above).
  static bool threadContended();

 private:
  void step(uint32_t maxSleepUs);
  void yieldOrSleep(uint32_t maxSleepUs);
  void sleepFor(uint32_t capUs);
  // The clock is read on every 8th idle poll only: a hot loop must stay short.
  static constexpr uint32_t kPollsPerClockRead = 8;
  uint64_t spinNs_;
  uint64_t idleSinceNs_ = 0;
  uint32_t polls_ = 0;
  uint32_t maxSleepUs_;
  uint32_t sleepUs_ = 0;
  uint32_t yields_ = 0;
  bool spun_ = false;
};

}  // namespace ferry
