// Host memory that a staged device's transfers pass through (a GPU's, or a CPU device's
// under FERRY_CPU_STAGING=1). The buffers come from the device's own plugin as host memory
// (the CUDA plugin pins it: cuMemAllocHost), so that the device copies run at DMA speed
// instead of through the driver's bounce buffers, and are kept for the next transfer up to
// FERRY_STAGING_RETAIN: a transfer then neither maps, zeroes nor pins fresh pages, which cost
// more than the copy itself for large transfers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace ferry::service {

class StagingPool;

// One transfer's bytes; gives its memory back to the pool when it goes.
class StagingBuffer {
 public:
  StagingBuffer() = default;
  StagingBuffer(StagingBuffer&& o) noexcept { *this = std::move(o); }
  StagingBuffer& operator=(StagingBuffer&& o) noexcept;
  ~StagingBuffer() { reset(); }

  uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  explicit operator bool() const { return data_ != nullptr; }
  void reset();

 private:
  friend class StagingPool;
  StagingPool* pool_ = nullptr;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0, capacity_ = 0;
  bool pinned_ = false;
};

class StagingPool {
 public:
  // `allocHost(bytes)` returns device-friendly host memory or nullptr; `freeHost` returns it.
  using AllocHost = std::function<void*(uint64_t)>;
  using FreeHost = std::function<void(void*)>;
  StagingPool(AllocHost allocHost, FreeHost freeHost, uint64_t retainBytes);
  ~StagingPool();
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  // A buffer of at least `bytes` (uninitialised). Where the plugin has no host memory to
  // give, ordinary pages serve, unpinned; nullptr data only when even those run out.
  StagingBuffer take(uint64_t bytes);
  uint64_t retainedBytes() const;

 private:
  friend class StagingBuffer;
  void give(StagingBuffer& b);
  void release(uint8_t* p, bool pinned);

  AllocHost allocHost_;
  FreeHost freeHost_;
  uint64_t retainLimit_;
  mutable std::mutex mutex_;
  struct Kept {
    uint8_t* data;
    bool pinned;
  };
  std::multimap<uint64_t, Kept> kept_;  // capacity -> buffer
  uint64_t retained_ = 0;
};

}  // namespace ferry::service
