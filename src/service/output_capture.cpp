#include "service/output_capture.h"

#include <stdio_ext.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ferry::service {
namespace {

// The live capture, for salvageCapturedOutput(); one per process at most.
std::atomic<OutputCapture*> gActive{nullptr};

void writeAll(int fd, const char* data, size_t len) {
  for (size_t done = 0; done < len;) {
    ssize_t n = write(fd, data + done, len - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<size_t>(n);
  }
}

}  // namespace

void salvageCapturedOutput() {
  OutputCapture* c = gActive.load();
  if (!c || c->file_ < 0) return;
  // What stdio holds has not reached the memory file yet: append it there first (glibc's
  // FILE fields; fflush could wait on a lock the crashed thread holds).
  if (stdout->_IO_write_ptr > stdout->_IO_write_base)
    writeAll(STDOUT_FILENO, stdout->_IO_write_base, static_cast<size_t>(stdout->_IO_write_ptr - stdout->_IO_write_base));
  off_t end = lseek(c->file_, 0, SEEK_CUR);
  static char buf[64 * 1024];  // a handler's stack may be small
  for (off_t at = c->readPos_; at < end;) {
    ssize_t n = pread(c->file_, buf, std::min<size_t>(sizeof buf, static_cast<size_t>(end - at)), at);
    if (n <= 0) break;
    writeAll(c->saved_, buf, static_cast<size_t>(n));
    at += n;
  }
}

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
  std::unique_ptr<OutputCapture> capture(new OutputCapture(file, saved));
  gActive.store(capture.get());
  return capture;
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
  OutputCapture* self = this;
  gActive.compare_exchange_strong(self, nullptr);
  std::string rest;
  take(rest, true);
  dup2(saved_, STDOUT_FILENO);
  writeAll(STDOUT_FILENO, rest.data(), rest.size());
  close(saved_);
  close(file_);
  file_ = saved_ = -1;
}

}  // namespace ferry::service
