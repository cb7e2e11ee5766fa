#include "platform/process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace ferry {

bool processGone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;  // EPERM: it exists, as another user's
  // "pid (comm) S ...": the state follows the last ')', since comm may hold one.
  char path[64], stat[512];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;
  ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return false;
  stat[n] = '\0';
  const char* close = std::strrchr(stat, ')');
  return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

}  // namespace ferry
