#include "platform/omp_registry.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

#include "platform/process.h"

namespace ferry {
namespace {

// Fixed storage: read from signal handlers, which may not allocate.
constexpr int kMaxPeers = 1024;
pid_t gPeers[kMaxPeers];
std::atomic<int> gNumPeers{0};

// snprintf with %d does not allocate in glibc; the handlers of this code base rely on it.
void removeEntryOf(pid_t pid) {
  char path[96];
  std::snprintf(path, sizeof path, "/dev/shm/__KMP_REGISTERED_LIB_%d_%d", static_cast<int>(pid),
                static_cast<int>(getuid()));
  unlink(path);  // ENOENT: this process never loaded libomp, or it cleaned up already
}

}  // namespace

void noteNodePeers(const std::vector<pid_t>& pids) {
  int n = static_cast<int>(std::min<size_t>(pids.size(), kMaxPeers));
  gNumPeers.store(0);
  std::copy_n(pids.begin(), n, gPeers);
  gNumPeers.store(n);
}

void removeOpenMpRegistrations(bool allPeers) {
  removeEntryOf(getpid());
  int n = gNumPeers.load();
  for (int i = 0; i < n; ++i)
    if (gPeers[i] != getpid() && (allPeers || processGone(gPeers[i]))) removeEntryOf(gPeers[i]);
}

int removeStaleOpenMpRegistrations(long since) {
  DIR* dir = opendir("/dev/shm");
  if (!dir) return 0;
  int removed = 0;
  while (dirent* e = readdir(dir)) {
    int pid = 0, uid = -1;
    if (std::sscanf(e->d_name, "__KMP_REGISTERED_LIB_%d_%d", &pid, &uid) != 2 || uid != static_cast<int>(getuid()))
      continue;
    struct stat st {};
    std::string path = std::string("/dev/shm/") + e->d_name;
    if (stat(path.c_str(), &st) != 0 || st.st_ctime < since || !processGone(pid)) continue;
    removed += unlink(path.c_str()) == 0;
  }
  closedir(dir);
  return removed;
}

}  // namespace ferry
