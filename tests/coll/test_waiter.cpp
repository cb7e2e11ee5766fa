// A wait for node peers fails soon after a peer process has exited, naming the peer as the
// pipeline names it; live peers are waited for.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "coll/waiter.h"

namespace ferry::coll {
namespace {

pid_t exitedProcess() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // reaped: kill(pid, 0) now says ESRCH
  return child;
}

// Polls idle() for up to `seconds`, as a pipeline's loop does.
Status waitFor(Waiter& w, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (Status st = w.idle([] { return std::string("for chunk 3"); }); !st) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return {};
}

TEST(CollWaiter, ExitedPeerFailsTheWaitWithItsName) {
  std::vector<pid_t> peers = {getpid(), exitedProcess()};
  Waiter w(30, 0, peers, [](int r) { return "node-local rank " + std::to_string(r) + " (rank 5 of comm #2)"; });
  auto start = std::chrono::steady_clock::now();
  Status st = waitFor(w, 2);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(st.isOk());
  EXPECT_LT(took, 0.5) << "noticed within 0.1 s of polling";
  EXPECT_EQ(st.code(), Errc::Unavailable);
  std::string want = "node-local rank 1 (rank 5 of comm #2), pid " + std::to_string(peers[1]) +
                     ", has exited while this rank waited for chunk 3";
  EXPECT_NE(st.message().find(want), std::string::npos) << st.message();
}

TEST(CollWaiter, LivePeersAreWaitedFor) {
  std::vector<pid_t> peers = {getpid(), getppid()};
  Waiter w(30, 0, peers, [](int r) { return "node-local rank " + std::to_string(r); });
  EXPECT_TRUE(waitFor(w, 0.3).isOk());
}

}  // namespace
}  // namespace ferry::coll
