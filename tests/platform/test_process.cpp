// processGone(): how the waits that watch a peer on this machine tell that it has ended.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/process.h"

namespace ferry {
namespace {

pid_t childThatSleeps() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

TEST(ProcessGone, ALiveProcessIsNot) {
  EXPECT_FALSE(processGone(getpid()));
  pid_t child = childThatSleeps();
  ASSERT_GT(child, 0);
  EXPECT_FALSE(processGone(child));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

// A rank its launcher has not reaped yet is a zombie, which kill(pid, 0) takes for alive.
TEST(ProcessGone, AZombieIs) {
  pid_t child = childThatSleeps();
  ASSERT_GT(child, 0);
  kill(child, SIGKILL);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);  // dead, not reaped
  EXPECT_EQ(kill(child, 0), 0) << "the zombie still exists for kill()";
  EXPECT_TRUE(processGone(child));
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(processGone(child)) << "reaped: no such process";
}

}  // namespace
}  // namespace ferry
