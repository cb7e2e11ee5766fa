#include "platform/backoff.h"

#include <sched.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/config.h"

namespace ferry {
namespace {
constexpr uint32_t kYieldsBeforeSleep = 64;
constexpr uint32_t kMaxSleepUs = 1000;

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
    ++yields_;
    sched_yield();
    return;
  }
  sleepUs_ = sleepUs_ == 0 ? 1 : (sleepUs_ * 2 > maxSleepUs ? maxSleepUs : sleepUs_ * 2);
  timespec ts{0, static_cast<long>(sleepUs_) * 1000};
  nanosleep(&ts, nullptr);
}

}  // namespace ferry
