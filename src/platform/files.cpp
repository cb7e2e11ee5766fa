#include "platform/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry {

Status readTextFile(const std::string& path, std::string& out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status(Errc::Unavailable, "cannot read " + path + ": " + std::strerror(errno));
  out.clear();
  char buf[16384];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<size_t>(n));
  int err = n < 0 ? errno : 0;
  close(fd);
  if (err) return Status(Errc::Unavailable, "cannot read " + path + ": " + std::strerror(err));
  return {};
}

}  // namespace ferry
