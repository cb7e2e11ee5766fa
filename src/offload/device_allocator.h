// Rank 0's allocator for the memory of one remote CPU device. The device reserved an
// address range at start-up; rank 0 lays out allocations inside it, so data_alloc costs no
// round trip and a whole small target region fits in one. Best fit over a size-ordered
// free list, with coalescing on free: O(log n) both ways.
//
// A block of a page or more is placed at the page offset of the host data it will hold
// (data_alloc passes the host pointer): copies between the two then run at distance 0 mod
// 4 KiB, where the kernel's CMA copy and `rep movsb` stall at the 16-byte distance of a
// malloc'd buffer against a page-aligned block (docs/performance.md, "Copies"). The bytes
// skipped to reach the offset stay free for smaller blocks.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>

namespace ferry::offload {

class DeviceAllocator {
 public:
  static constexpr uint64_t kAlignment = 64;  // a cache line: kernels vectorise on it
  static constexpr uint64_t kPage = 4096;

  DeviceAllocator(uint64_t base, uint64_t size);

  // Returns the address, or nothing when no free block is large enough. For `size` of a page
  // or more the address lies `hostOffset` (the host data's address mod kPage) into its page;
  // else it is kAlignment-aligned.
  std::optional<uint64_t> allocate(uint64_t size, uint64_t hostOffset = 0);
  // Frees an address returned by allocate(); returns the bytes from it to its block's end,
  // or 0 if it is not one.
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
  // A free block that holds `need` bytes from an address whose page offset is `pageGoal`
  // (kAlignment-aligned; any offset without one); returns that address, or nothing.
  std::optional<uint64_t> carve(uint64_t need, std::optional<uint64_t> pageGoal);

  uint64_t base_, size_;
  mutable std::mutex mutex_;
  std::map<uint64_t, uint64_t> freeByAddr_;            // addr -> size
  std::multimap<uint64_t, uint64_t> freeBySize_;       // size -> addr
  std::map<uint64_t, uint64_t> live_;                  // block start -> size
  std::map<uint64_t, uint64_t> inset_;                 // block start -> offset of its address, where not 0
  uint64_t used_ = 0;
  uint64_t retained_ = 0;
};

}  // namespace ferry::offload
