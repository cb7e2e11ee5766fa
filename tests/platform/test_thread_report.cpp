// The binding report: what it samples of a real process, and what it warns about.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "platform/thread_report.h"
#include "topology_files.h"

namespace ferry {
namespace {

ThreadRecord thread(int tid, std::vector<int> allowed, std::vector<int> ranOn, double busy) {
  return ThreadRecord{tid, "app", std::move(allowed), std::move(ranOn), busy};
}

bool anyMentions(const std::vector<std::string>& lines, const std::string& text) {
  for (const auto& l : lines)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

// The seed's failure: the library bound the rank to core 0, OpenMP ran two busy threads
// there, and core 1 idled.
TEST(BindingWarnings, BusyThreadsPiledOnOneCoreWhileAnotherIdles) {
  NodeLayout node = layout("this-machine-2core.xml");
  RankThreads piled{0, "vm", {0}, {thread(1, {0}, {0}, 0.5), thread(2, {0}, {0}, 0.5)}};
  auto w = bindingWarnings({piled}, node);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("its 2 busy threads ran on 1 core(s) (CPUs 0, allowed 0) while 1 other core(s) of the node ran none of the job's busy threads"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[0].find("--map-by slot:PE=2 --bind-to core"), std::string::npos);
  RankThreads spread{0, "vm", {0, 1}, {thread(1, {0}, {0}, 0.9), thread(2, {1}, {1}, 0.9)}};
  EXPECT_TRUE(bindingWarnings({spread}, node).empty());
  RankThreads idleHelpers{0, "vm", {0}, {thread(1, {0}, {0}, 0.9), thread(2, {0}, {0}, 0.01)}};
  EXPECT_TRUE(bindingWarnings({idleHelpers}, node).empty()) << "an idle helper thread shares nothing";
}

TEST(BindingWarnings, OverlappingRanksAndNumaSpans) {
  NodeLayout node = layout("two-socket-numa-smt.xml");
  RankThreads a{0, "n1", {0, 1, 2, 3}, {}}, b{1, "n1", {2, 3, 4, 5}, {}};
  auto w = bindingWarnings({a, b}, node);
  EXPECT_TRUE(anyMentions(w, "ranks 0 and 1 on n1 are bound to overlapping CPUs (2-3)"));
  RankThreads across{2, "n1", {14, 15, 16, 17}, {}};  // cores 7 and 8: one in each domain
  EXPECT_TRUE(anyMentions(bindingWarnings({across}, node), "rank 2 on n1 is bound across 2 NUMA domains"));
  std::vector<int> all;
  for (int pu = 0; pu < 32; ++pu) all.push_back(pu);
  RankThreads free1{0, "n1", all, {}}, free2{1, "n1", all, {}};
  EXPECT_TRUE(bindingWarnings({free1, free2}, node).empty()) << "unbound ranks are not bound across anything";
}

TEST(ReportLine, ReadsBackWhatItWrites) {
  ThreadRecord t = thread(4242, {0, 1}, {1}, 0.87);
  t.name = "worker (a)";
  int rank = -1;
  ThreadRecord back;
  ASSERT_TRUE(parseReportLine("[ferry rank=3 host=vm] " + reportLine(3, t), rank, back));
  EXPECT_EQ(rank, 3);
  EXPECT_EQ(back.tid, 4242);
  EXPECT_EQ(back.name, "worker (a)");
  EXPECT_EQ(back.allowed, t.allowed);
  EXPECT_EQ(back.ranOn, t.ranOn);
  EXPECT_NEAR(back.busy, 0.87, 0.01);
  EXPECT_FALSE(parseReportLine("binding: nothing here", rank, back));
}

// A real process: two spinning threads bound to one CPU are seen there, and both busy: they
// want the CPU all the time, however little of it each gets.
TEST(SampleThreads, SeesWhereBusyThreadsRan) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    std::atomic<bool> stop{false};
    std::thread t([&] { while (!stop) {} });
    char go = 1;
    (void)!write(ready[1], &go, 1);  // both threads run, bound: the sampling may start
    while (true) {}
  }
  char go = 0;
  ASSERT_EQ(read(ready[0], &go, 1), 1);
  auto threads = sampleThreads(child, 0.5, 0.01);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  ASSERT_EQ(threads.size(), 2u);
  for (const auto& t : threads) {
    EXPECT_EQ(t.allowed, std::vector<int>{0});
    EXPECT_EQ(t.ranOn, std::vector<int>{0});
    EXPECT_GT(t.busy, 0.9) << "a spinning thread is runnable whenever it is looked at";
  }
}

}  // namespace
}  // namespace ferry
