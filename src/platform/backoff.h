// How a thread waits for something another process will do. It busy-polls for
// FERRY_SPIN_TIME (lowest latency), then yields, then sleeps with exponential backoff up to
// 1 ms, so that waiting ranks leave the cores to ranks that compute: on a node with more
// ranks than cores, a spinning server would otherwise slow down the kernels it serves.
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

 private:
  void step(uint32_t maxSleepUs);
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
