#include "service/output_capture.h"

#include <stdio_ext.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ferry::service {

Result<std::unique_ptr<OutputCapture>> OutputCapture::start() {
  int file = memfd_create("ferry-device-stdout", MFD_CLOEXEC);
  if (file < 0) return Status(Errc::Internal, std::string("memfd_create for device stdout: ") + std::strerror(errno));
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  if (saved < 0 || dup2(file, STDOUT_FILENO) < 0) {
    int err = errno;
    if (saved >= 0) close(saved);
    close(file);
    return Status(Errc::Internal, std::string("redirecting stdout for device output: ") + std::strerror(err));
  }
  // Fully buffered whatever the launcher's descriptor was (a pty makes glibc line-buffer,
  // and some MPI libraries ask for it): a kernel's printf then stays in the buffer, where
  // take() sees it for free, instead of going straight to the file.
  setvbuf(stdout, nullptr, _IOFBF, BUFSIZ);
  return std::unique_ptr<OutputCapture>(new OutputCapture(file, saved));
}

OutputCapture::~OutputCapture() { stop(); }

void OutputCapture::take(std::string& out, bool thorough) {
  if (file_ < 0) return;
  bool buffered = __fpending(stdout) > 0;
  if (!thorough && !buffered) return;
  if (buffered) std::fflush(stdout);
  off_t end = lseek(file_, 0, SEEK_CUR);  // descriptor 1 shares this offset
  if (end <= readPos_) return;
  size_t have = out.size();
  out.resize(have + static_cast<size_t>(end - readPos_));
  ssize_t n = pread(file_, out.data() + have, static_cast<size_t>(end - readPos_), readPos_);
  out.resize(have + static_cast<size_t>(n > 0 ? n : 0));
  readPos_ += n > 0 ? n : 0;
  // Everything is taken: start the file over so that it never grows.
  if (readPos_ == end && ftruncate(file_, 0) == 0 && lseek(file_, 0, SEEK_SET) == 0) readPos_ = 0;
}

void OutputCapture::stop() {
  if (file_ < 0) return;
  std::string rest;
  take(rest, true);
  dup2(saved_, STDOUT_FILENO);
  for (size_t done = 0; done < rest.size();) {
    ssize_t n = write(STDOUT_FILENO, rest.data() + done, rest.size() - done);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) done += static_cast<size_t>(n);
  }
  close(saved_);
  close(file_);
  file_ = saved_ = -1;
}

}  // namespace ferry::service
