// Backoff against a thread that never yields: a wait must notice that its yields hand the
// core away for a whole time slice, and sleep instead (platform/backoff.h).
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "platform/backoff.h"
#include "platform/clock.h"

namespace ferry {
namespace {

// Pins the calling thread to one CPU; returns false where that is not allowed.
bool pinTo(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

int firstAllowedCpu() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) return c;
  return -1;
}

// Polls with a never-sleeping backoff (a collective's wait) for up to `forNs`, counting
// the polls, until the thread is marked contended.
struct Polled {
  bool contended = false;
  int polls = 0;
};
Polled pollUntilContended(uint64_t forNs) {
  Backoff b(0, 0);
  Polled p;
  for (uint64_t end = nowNs() + forNs; nowNs() < end && !p.contended; ++p.polls) {
    b.idle();
    p.contended = Backoff::threadContended();
  }
  return p;
}

TEST(Backoff, AWaitThatSharesItsCoreWithASpinnerSleepsInsteadOfYielding) {
  int cpu = firstAllowedCpu();
  ASSERT_GE(cpu, 0);
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  enum { kStarting, kSpinning, kRefused };
  std::atomic<int> spinnerState{kStarting};
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    if (!pinTo(cpu)) {
      spinnerState = kRefused;
      return;
    }
    spinnerState = kSpinning;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (spinnerState == kStarting) std::this_thread::yield();
  bool pinned = spinnerState == kSpinning && pinTo(cpu);
  Polled before = pinned ? pollUntilContended(2'000'000'000) : Polled{};
  // Contended, the same wait polls after short sleeps: a thread waking from a sleep gets
  // the core from the spinner, where a yield gave it away for a whole slice.
  int pollsAfter = 0;
  for (uint64_t end = nowNs() + 100'000'000; pinned && nowNs() < end; ++pollsAfter) {
    Backoff b(0, 0);
    b.idle();
  }
  stop = true;
  spinner.join();
  pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);  // as it was
  if (!pinned) GTEST_SKIP() << "this process may not pin its threads to one CPU (sched_setaffinity refused)";
  EXPECT_TRUE(before.contended) << "after " << before.polls << " polls in 2 s beside a spinner on CPU " << cpu;
  // Yielding, the wait polled once per time slice (ms); sleeping, every 50-100 us. The
  // bound is 10x below what sleeps give, and above what yields could.
  EXPECT_GT(pollsAfter, 200) << "polls in 100 ms while contended";
}

TEST(Backoff, ContentionIsPerThread) {
  // A thread that never waited beside a spinner is not contended.
  bool other = true;
  std::thread t([&] { other = Backoff::threadContended(); });
  t.join();
  EXPECT_FALSE(other);
}

}  // namespace
}  // namespace ferry
