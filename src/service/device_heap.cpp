#include "service/device_heap.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "platform/parse.h"

namespace ferry::service {

DeviceHeap::~DeviceHeap() { unreserve(); }

void DeviceHeap::unreserve() {
  if (base_) munmap(base_, size_);
  base_ = nullptr;
  size_ = 0;
}

Status DeviceHeap::reserve(uint64_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  bytes = (bytes + page - 1) / page * page;
  // MAP_NORESERVE: reserve address space only; memory is committed as pages are touched.
  // The hint puts the range far from where a process's own allocations go (the mmap area
  // under the stack, the heap after the executable): a kernel that dereferences rank 0's
  // addresses (service/host_pager.h) then never finds one inside this range, where it would
  // read device memory instead of faulting. The gigabyte it starts at is random, as
  // randomisation would make it, so that devices of different ranks rarely share addresses.
  uint64_t hint = kHintBase + (std::random_device{}() % kHintGigabytes) * (1ull << 30);
  void* p = mmap(reinterpret_cast<void*>(hint), bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return Status(Errc::OutOfMemory, "cannot reserve " + parse::formatSize(bytes) +
                                         " of address space for device memory: " + std::strerror(errno) +
                                         "; set FERRY_DEVICE_MEMORY to a smaller size");
  base_ = p;
  size_ = bytes;
  return {};
}

Status DeviceHeap::release(uint64_t addr, uint64_t len) {
  long page = sysconf(_SC_PAGESIZE);
  uint64_t begin = (addr + page - 1) / page * page;
  uint64_t end = (addr + len) / page * page;
  if (end <= begin) return {};
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) != 0)
    return Status(Errc::Internal, std::string("madvise(MADV_DONTNEED) failed: ") + std::strerror(errno));
  return {};
}

}  // namespace ferry::service
