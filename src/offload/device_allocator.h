// Rank 0's allocator for the memory of one remote CPU device. The device reserved an
// address range at start-up; rank 0 lays out allocations inside it, so data_alloc costs no
// round trip and a whole small target region fits in one. Best fit over a size-ordered
// free list, with coalescing on free: O(log n) both ways.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace ferry::offload {

class DeviceAllocator {
 public:
  static constexpr uint64_t kAlignment = 64;  // a cache line: kernels vectorise on it

  DeviceAllocator(uint64_t base, uint64_t size);

  // Returns the address, or nothing when no free block is large enough.
  std::optional<uint64_t> allocate(uint64_t size);
  // Frees an address returned by allocate(); returns the block size, or 0 if unknown.
  uint64_t free(uint64_t addr);
  // Whether [addr, addr+len) lies inside one live allocation.
  bool contains(uint64_t addr, uint64_t len) const;
  // Counts a freed block of `size` bytes as left resident on the device, if that keeps the
  // resident total within `budget`; false when its pages should go back instead. Best fit
  // hands freed ranges out first, so allocate() counts each new block against the total
  // (an estimate: it only bounds what stays resident; FERRY_DEVICE_RETAIN).
  bool retain(uint64_t size, uint64_t budget);

  uint64_t capacity() const { return size_; }
  uint64_t used() const;
  uint64_t largestFree() const;

 private:
  void insertFree(uint64_t addr, uint64_t size);
  void eraseFree(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t base_, size_;
  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> freeByAddr_;            // addr -> size
  std::multimap<uint64_t, uint64_t> freeBySize_;       // size -> addr
  std::map<uint64_t, uint64_t> live_;                  // addr -> size
  uint64_t used_ = 0;
  uint64_t retained_ = 0;
};

}  // namespace ferry::offload
