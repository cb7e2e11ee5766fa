// removeOpenMpRegistrations(): a process a signal ends removes libomp's /dev/shm entry of
// its own and of node peers that are gone, never of one that lives.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "platform/omp_registry.h"

namespace ferry {
namespace {

std::string entryOf(pid_t pid) {
  return "/dev/shm/__KMP_REGISTERED_LIB_" + std::to_string(pid) + "_" + std::to_string(getuid());
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(OmpRegistry, RemovesOwnAndGonePeersEntriesOnly) {
  pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  pid_t alive = fork();
  if (alive == 0) {
    pause();
    _exit(0);
  }
  for (pid_t p : {getpid(), gone, alive}) std::ofstream(entryOf(p)) << "libomp";
  noteNodePeers({getpid(), gone, alive});
  removeOpenMpRegistrations();
  EXPECT_FALSE(exists(entryOf(getpid())));
  EXPECT_FALSE(exists(entryOf(gone)));
  EXPECT_TRUE(exists(entryOf(alive))) << "a live peer's entry is its own";
  kill(alive, SIGKILL);
  waitpid(alive, nullptr, 0);
  unlink(entryOf(alive).c_str());
  noteNodePeers({});
}

}  // namespace
}  // namespace ferry
