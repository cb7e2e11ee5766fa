// The call counters: counted per thread without a lock, summed by snapshot(), and kept when
// a thread ends (its counters live in its TLS, which goes away with it).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "coll/stats.h"

namespace ferry::coll {
namespace {

TEST(CollStats, CallsOfEndedAndLiveThreadsAddUp) {
  StatsSnapshot before = stats().snapshot();
  std::thread ended([] {
    for (int i = 0; i < 3; ++i) countCall(false);
    countCall(true);
  });
  ended.join();
  countCall(false);  // this thread, still alive
  StatsSnapshot after = stats().snapshot();
  EXPECT_EQ(after.libraryCalls - before.libraryCalls, 4u);
  EXPECT_EQ(after.ferryCalls - before.ferryCalls, 1u);
}

TEST(CollStats, ManyThreadsCountEveryCall) {
  StatsSnapshot before = stats().snapshot();
  constexpr int kThreads = 8, kCalls = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < kCalls; ++i) countCall(i % 2 == 0);
    });
  for (auto& t : threads) t.join();
  StatsSnapshot after = stats().snapshot();
  EXPECT_EQ(after.ferryCalls - before.ferryCalls, uint64_t{kThreads} * kCalls / 2);
  EXPECT_EQ(after.libraryCalls - before.libraryCalls, uint64_t{kThreads} * kCalls / 2);
}

}  // namespace
}  // namespace ferry::coll
