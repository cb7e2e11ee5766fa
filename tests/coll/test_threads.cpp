// Calls from several threads at once, as MPI_THREAD_MULTIPLE allows: each thread on a
// communicator of its own, whose first call (the set-up) also runs concurrently with the
// others'. Hybrid MPI+OpenMP programs do this with one communicator per thread.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "coll_test_util.h"

namespace ferry::coll::testing {
namespace {

constexpr int kThreads = 3;
constexpr int kCallsPerThread = 16;

// One thread's calls; every rank's thread t makes the same ones. It never stops early, so a
// failure on one rank leaves no peer waiting; the first failure is kept.
std::string threadCalls(MPI_Comm comm, int thread, const std::vector<TypedOp>& ops) {
  std::mt19937_64 shared(1000 + thread);
  const size_t counts[] = {3000, 40000, 150000};
  std::string first;
  for (int i = 0; i < kCallsPerThread; ++i) {
    const TypedOp& t = ops[shared() % ops.size()];
    size_t count = counts[shared() % std::size(counts)];
    bool inPlace = shared() % 2;
    std::string why = checkAgainstLibrary(forcedSettings(), t, count, inPlace, comm, static_cast<uint64_t>(i));
    if (!why.empty() && first.empty())
      first = "call " + std::to_string(i) + " (" + t.name() + ", " + std::to_string(count) + "): " + why;
  }
  return first;
}

TEST(AllreduceThreads, ConcurrentCallsOnCommunicatorsOfTheirOwn) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "the MPI library did not grant MPI_THREAD_MULTIPLE";
  std::vector<MPI_Comm> comms(kThreads);
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  const std::vector<TypedOp> ops = allTypedOps();
  StatsSnapshot before = statsNow();

  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] { failures[t] = threadCalls(comms[t], t, ops); });
  for (std::thread& th : threads) th.join();

  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  // Every call ran Ferry's algorithm (forced), counted on the thread that made it.
  EXPECT_EQ(statsNow().ferryCalls - before.ferryCalls, uint64_t{kThreads} * kCallsPerThread);
  EXPECT_EQ(statsNow().setups - before.setups, uint64_t{kThreads});
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
}

}  // namespace
}  // namespace ferry::coll::testing
