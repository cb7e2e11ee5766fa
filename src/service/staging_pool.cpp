#include "service/staging_pool.h"

#include <bit>
#include <cstdlib>

namespace ferry::service {
namespace {

// Capacities are powers of two from 64 KiB, so that transfers of similar size share buffers
// and a kept buffer is never more than twice what its next user needs.
constexpr uint64_t kMinCapacity = 64 * 1024;
uint64_t capacityFor(uint64_t bytes) { return std::bit_ceil(std::max(bytes, kMinCapacity)); }

}  // namespace

StagingBuffer& StagingBuffer::operator=(StagingBuffer&& o) noexcept {
  if (this == &o) return *this;
  reset();
  pool_ = o.pool_, data_ = o.data_, size_ = o.size_, capacity_ = o.capacity_, pinned_ = o.pinned_;
  o.pool_ = nullptr, o.data_ = nullptr, o.size_ = o.capacity_ = 0;
  return *this;
}

void StagingBuffer::reset() {
  if (data_ && pool_) pool_->give(*this);
  pool_ = nullptr, data_ = nullptr, size_ = capacity_ = 0;
}

StagingPool::StagingPool(AllocHost allocHost, FreeHost freeHost, uint64_t retainBytes)
    : allocHost_(std::move(allocHost)), freeHost_(std::move(freeHost)), retainLimit_(retainBytes) {}

StagingPool::~StagingPool() {
  for (auto& [cap, k] : kept_) release(k.data, k.pinned);
}

StagingBuffer StagingPool::take(uint64_t bytes) {
  StagingBuffer b;
  b.pool_ = this;
  b.size_ = bytes;
  b.capacity_ = capacityFor(bytes);
  {
    std::lock_guard lock(mutex_);
    if (auto it = kept_.find(b.capacity_); it != kept_.end()) {
      b.data_ = it->second.data, b.pinned_ = it->second.pinned;
      retained_ -= it->first;
      kept_.erase(it);
      return b;
    }
  }
  b.data_ = static_cast<uint8_t*>(allocHost_ ? allocHost_(b.capacity_) : nullptr);
  b.pinned_ = b.data_ != nullptr;
  if (!b.data_) b.data_ = static_cast<uint8_t*>(std::aligned_alloc(4096, b.capacity_));
  return b;
}

void StagingPool::give(StagingBuffer& b) {
  {
    std::lock_guard lock(mutex_);
    if (retained_ + b.capacity_ <= retainLimit_) {
      kept_.emplace(b.capacity_, Kept{b.data_, b.pinned_});
      retained_ += b.capacity_;
      return;
    }
  }
  release(b.data_, b.pinned_);
}

void StagingPool::release(uint8_t* p, bool pinned) {
  if (pinned) freeHost_(p);
  else std::free(p);
}

uint64_t StagingPool::retainedBytes() const {
  std::lock_guard lock(mutex_);
  return retained_;
}

}  // namespace ferry::service
