#include "coll/shared_heap.h"

#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "platform/parse.h"

namespace ferry::coll {

SharedHeap& SharedHeap::instance() {
  static SharedHeap* heap = new SharedHeap();  // never destroyed: blocks may be freed at exit
  return *heap;
}

size_t maxHeapBlocks() {
  constexpr uint64_t kUnlimited = 4096;  // RLIM_INFINITY: still a bound, far above any use seen
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return static_cast<size_t>(std::min<uint64_t>(lim.rlim_cur / kFdShareOfBlocks, kUnlimited));
}

uint64_t maxHeapBlockBytes() {
  struct sysinfo si {};
  if (sysinfo(&si) != 0) return UINT64_MAX;
  return (static_cast<uint64_t>(si.totalram) + si.totalswap) * si.mem_unit;
}

Result<void*> SharedHeap::allocate(size_t bytes) {
  if (uint64_t machine = maxHeapBlockBytes(); bytes > machine)
    return Status(Errc::OutOfMemory, "cannot allocate " + parse::formatSize(bytes) + " (" + std::to_string(bytes) +
                                         " B) of shared memory: more than this machine's memory and swap (" +
                                         parse::formatSize(machine) + ")");
  size_t most = maxHeapBlocks();
  if (blocks() >= most)
    return Status(Errc::Unavailable,
                  std::to_string(most) + " shared blocks are in use, the most this process keeps: each holds a file "
                      "descriptor, and its limit (ulimit -n " + std::to_string(most * kFdShareOfBlocks) +
                      ") is left mostly to the program; raise ulimit -n for more");
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t rounded = (bytes + page - 1) / page * page;
  if (rounded == 0) rounded = page;
  auto seg = comm::ShmSegment::createAnonymous("ferry-coll-alloc", rounded);
  if (!seg) return seg.takeStatus().withContext("allocating " + std::to_string(bytes) + " B of shared memory");
  std::lock_guard lock(mutex_);
  HeapBlock block{reinterpret_cast<uint64_t>(seg->data()), rounded, nextGen_++, seg->fd()};
  void* p = seg->data();
  blocks_.emplace(block.base, Entry{block, std::move(seg.value())});
  return p;
}

bool SharedHeap::release(void* ptr) {
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uint64_t>(ptr));
  if (it == blocks_.end()) return false;
  blocks_.erase(it);  // unmaps and closes the segment
  return true;
}

std::optional<HeapBlock> SharedHeap::find(const void* addr, size_t len) const {
  uint64_t a = reinterpret_cast<uint64_t>(addr);
  std::lock_guard lock(mutex_);
  auto it = blocks_.upper_bound(a);  // first block starting after addr
  if (it == blocks_.begin()) return std::nullopt;
  const HeapBlock& b = std::prev(it)->second.block;
  if (a + len > b.base + b.size) return std::nullopt;
  return b;
}

size_t SharedHeap::blocks() const {
  std::lock_guard lock(mutex_);
  return blocks_.size();
}

}  // namespace ferry::coll
