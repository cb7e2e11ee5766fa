#include "platform/backoff.h"

#include <sched.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/config.h"

namespace ferry {
namespace {
constexpr uint32_t kYieldsBeforeSleep = 64;
constexpr uint32_t kMaxSleepUs = 1000;
// A yield that returns after this long lost the core to a thread that does not yield: a
// peer of ours that yields hands the core back within microseconds.
constexpr uint64_t kSlowYieldNs = 500000;
// How long one slow yield makes the thread sleep instead; then a yield is tried again, as
// the competitor may have gone (a probe costs at most one time slice per period).
constexpr uint64_t kContendedForNs = 50000000;
// The sleep cap of a contended wait that would otherwise never sleep: measured, 1 us to
// 100 us all took the same time (the default 50 us timer slack rounds them up anyway).
constexpr uint32_t kContendedSleepUs = 50;

// Per thread: until when its waits sleep rather than yield.
thread_local uint64_t contendedUntilNs = 0;

uint64_t configuredSpinNs() { return static_cast<uint64_t>(config().seconds(Knob::SpinTime) * 1e9); }
}  // namespace

Backoff::Backoff(uint64_t spinNs) : Backoff(spinNs, kMaxSleepUs) {}
Backoff::Backoff(uint64_t spinNs, uint32_t maxSleepUs) : spinNs_(spinNs), maxSleepUs_(maxSleepUs) {}
Backoff::Backoff() : Backoff(configuredSpinNs()) {}
Backoff Backoff::afterSpinTime(bool mayRest) { return Backoff(configuredSpinNs(), mayRest ? kMaxSleepUs : 0); }

void Backoff::reset() {
  idleSinceNs_ = 0;
  polls_ = 0;
  sleepUs_ = 0;
  yields_ = 0;
  spun_ = false;
}

void Backoff::idle() { step(maxSleepUs_); }
void Backoff::idleWithoutSleep() { step(0); }

void Backoff::step(uint32_t maxSleepUs) {
  if (!spun_) {
    if (++polls_ % kPollsPerClockRead != 1) return;  // spinning; check the clock now and then
    uint64_t now = nowNs();
    if (idleSinceNs_ == 0) idleSinceNs_ = now;
    if (now - idleSinceNs_ < spinNs_) return;
    spun_ = true;
  }
  if (yields_ < kYieldsBeforeSleep || maxSleepUs == 0) {
    yieldOrSleep(maxSleepUs);
    return;
  }
  sleepFor(maxSleepUs);
}

bool Backoff::threadContended() { return nowNs() < contendedUntilNs; }

void Backoff::yieldOrSleep(uint32_t maxSleepUs) {
  uint64_t before = nowNs();
  if (before < contendedUntilNs) {
    sleepFor(maxSleepUs > kContendedSleepUs ? maxSleepUs : kContendedSleepUs);
    return;
  }
  ++yields_;
  sched_yield();
  uint64_t after = nowNs();
  if (after - before > kSlowYieldNs) contendedUntilNs = after + kContendedForNs;
}

void Backoff::sleepFor(uint32_t capUs) {
  sleepUs_ = sleepUs_ == 0 ? 1 : (sleepUs_ * 2 > capUs ? capUs : sleepUs_ * 2);
  timespec ts{0, static_cast<long>(sleepUs_) * 1000};
  nanosleep(&ts, nullptr);
}

}  // namespace ferry
