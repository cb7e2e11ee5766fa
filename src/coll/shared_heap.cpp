#include "coll/shared_heap.h"

#include <unistd.h>

namespace ferry::coll {

SharedHeap& SharedHeap::instance() {
  static SharedHeap* heap = new SharedHeap();  // never destroyed: blocks may be freed at exit
  return *heap;
}

Result<void*> SharedHeap::allocate(size_t bytes) {
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
