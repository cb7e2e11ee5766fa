#include "comm/cma.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace ferry::comm {
namespace {

// The kernel may move fewer bytes than asked (it works page by page), so loop.
template <typename Fn>
Status cmaLoop(const char* what, pid_t pid, uint64_t remoteAddr, uint8_t* local, size_t len, Fn fn) {
  size_t done = 0;
  while (done < len) {
    iovec l{local + done, len - done};
    iovec r{reinterpret_cast<void*>(remoteAddr + done), len - done};
    ssize_t n = fn(pid, &l, 1, &r, 1, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(errno == ESRCH ? Errc::Unavailable : Errc::Internal,
                    std::string(what) + " of " + std::to_string(len) + " B at 0x" + [&] {
                      char b[32];
                      snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(remoteAddr));
                      return std::string(b);
                    }() + " in pid " + std::to_string(pid) + " failed: " + std::strerror(errno));
    }
    if (n == 0)
      return Status(Errc::Internal, std::string(what) + " made no progress in pid " + std::to_string(pid));
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

uint32_t cmaReadPages(pid_t pid, uint64_t page, uint32_t count, uint8_t* out) {
  constexpr uint64_t kPage = 4096;
  if (count > kCmaMaxPages) count = kCmaMaxPages;
  iovec remote[kCmaMaxPages];
  for (uint32_t i = 0; i < count; ++i) remote[i] = {reinterpret_cast<void*>(page + i * kPage), kPage};
  iovec local{out, count * kPage};
  ssize_t n = count ? process_vm_readv(pid, &local, 1, remote, count, 0) : 0;
  return n <= 0 ? 0 : static_cast<uint32_t>(static_cast<uint64_t>(n) / kPage);
}

Status cmaRead(pid_t pid, uint64_t remoteAddr, void* local, size_t len) {
  return cmaLoop("process_vm_readv", pid, remoteAddr, static_cast<uint8_t*>(local), len, process_vm_readv);
}

Status cmaWrite(pid_t pid, uint64_t remoteAddr, const void* local, size_t len) {
  return cmaLoop("process_vm_writev", pid, remoteAddr, static_cast<uint8_t*>(const_cast<void*>(local)), len,
                 process_vm_writev);
}

std::string cmaProbe(pid_t pid, uint64_t remoteAddr, const void* expected, size_t len) {
  std::vector<uint8_t> got(len);
  Status st = cmaRead(pid, remoteAddr, got.data(), len);
  if (!st) return st.message();
  if (std::memcmp(got.data(), expected, len) != 0) return "process_vm_readv returned unexpected bytes";
  return {};
}

int yamaPtraceScope() {
  std::ifstream in("/proc/sys/kernel/yama/ptrace_scope");
  int v = -1;
  if (in) in >> v;
  return in ? v : -1;
}

}  // namespace ferry::comm
