#include "shmem/heap.h"

#include <algorithm>

namespace ferry::shmem {
namespace {
size_t roundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }
}  // namespace

HeapAllocator::HeapAllocator(size_t capacity) : capacity_(capacity / kMinAlign * kMinAlign) {
  if (capacity_) free_[0] = capacity_;
}

std::optional<size_t> HeapAllocator::allocate(size_t size, size_t alignment) {
  if (size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0 || size > capacity_) return std::nullopt;
  alignment = std::max(alignment, kMinAlign);
  size = roundUp(size, kMinAlign);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    auto [start, len] = *it;
    size_t at = roundUp(start, alignment);
    if (at - start + size > len) continue;
    free_.erase(it);
    if (at > start) insertFree(start, at - start);  // the gap the alignment left
    if (start + len > at + size) insertFree(at + size, start + len - at - size);
    blocks_[at] = size;
    used_ += size;
    return at;
  }
  return std::nullopt;
}

bool HeapAllocator::release(size_t offset) {
  auto it = blocks_.find(offset);
  if (it == blocks_.end()) return false;
  used_ -= it->second;
  insertFree(offset, it->second);
  blocks_.erase(it);
  return true;
}

size_t HeapAllocator::sizeOf(size_t offset) const {
  auto it = blocks_.find(offset);
  return it == blocks_.end() ? 0 : it->second;
}

bool HeapAllocator::resizeInPlace(size_t offset, size_t size) {
  auto it = blocks_.find(offset);
  if (it == blocks_.end() || size == 0) return false;
  size = roundUp(size, kMinAlign);
  size_t old = it->second;
  if (size <= old) {
    if (size < old) insertFree(offset + size, old - size);
  } else {
    auto next = free_.find(offset + old);
    if (next == free_.end() || next->second < size - old) return false;
    size_t rest = next->second - (size - old);
    free_.erase(next);
    if (rest) free_[offset + size] = rest;
  }
  used_ = used_ - old + size;
  it->second = size;
  return true;
}

size_t HeapAllocator::largestFree() const {
  size_t best = 0;
  for (const auto& [at, len] : free_) best = std::max(best, len);
  return best;
}

// Keeps the free list coalesced, so that freed neighbours serve a large request again.
void HeapAllocator::insertFree(size_t offset, size_t size) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_[offset] = size;
}

}  // namespace ferry::shmem
