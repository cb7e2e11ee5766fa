// The memory of a CPU device: one address range reserved at start-up, whose layout the
// client manages (offload/device_allocator.h). Rank 0 can then hand out device addresses
// without a round trip, and data lands in place straight from MPI or CMA. Pages are
// committed by the first touch and returned with MADV_DONTNEED when a large block is freed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "platform/status.h"

namespace ferry::service {

class DeviceHeap {
 public:
  // Where heaps are placed (a hint): a random gigabyte of the 64 TiB from 16 TiB on, between
  // the executable's heap and the mmap area, where no process allocates by default.
  static constexpr uint64_t kHintBase = 0x100000000000ull;
  static constexpr uint64_t kHintGigabytes = 64 * 1024;

  DeviceHeap() = default;
  DeviceHeap(const DeviceHeap&) = delete;
  DeviceHeap& operator=(const DeviceHeap&) = delete;
  ~DeviceHeap();

  Status reserve(uint64_t bytes);
  uint64_t base() const { return reinterpret_cast<uint64_t>(base_); }
  uint64_t size() const { return size_; }
  bool contains(uint64_t addr, uint64_t len) const {
    return addr >= base() && len <= size_ && addr - base() <= size_ - len;
  }
  // Gives the pages of [addr, addr+len) back to the kernel; they read as zero afterwards.
  Status release(uint64_t addr, uint64_t len);
  // Gives the whole range back; the heap is empty afterwards.
  void unreserve();

 private:
  void* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace ferry::service
