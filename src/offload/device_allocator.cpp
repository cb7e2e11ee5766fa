#include "offload/device_allocator.h"

#include <algorithm>

#include "platform/ranges.h"

namespace ferry::offload {

DeviceAllocator::DeviceAllocator(uint64_t base, uint64_t size) : base_(base), size_(size) {
  if (size) insertFree(base, size);
}

void DeviceAllocator::insertFree(uint64_t addr, uint64_t size) {
  freeByAddr_[addr] = size;
  freeBySize_.emplace(size, addr);
}

void DeviceAllocator::eraseFree(std::map<uint64_t, uint64_t>::iterator it) {
  auto [lo, hi] = freeBySize_.equal_range(it->second);
  for (auto s = lo; s != hi; ++s)
    if (s->second == it->first) {
      freeBySize_.erase(s);
      break;
    }
  freeByAddr_.erase(it);
}

std::optional<uint64_t> DeviceAllocator::carve(uint64_t need, std::optional<uint64_t> pageGoal) {
  auto gapFor = [&](uint64_t addr) { return pageGoal ? (*pageGoal - addr) & (kPage - 1) : 0; };
  // Best fit among the blocks that can hold `need` at the goal; a few candidates are tried,
  // then the smallest block large enough whatever its offset.
  auto fit = freeBySize_.lower_bound(need);
  for (int tries = 0; fit != freeBySize_.end() && tries < 8; ++fit, ++tries)
    if (fit->first >= gapFor(fit->second) + need) break;
  if (fit != freeBySize_.end() && fit->first < gapFor(fit->second) + need) fit = freeBySize_.lower_bound(need + kPage);
  if (fit == freeBySize_.end()) return std::nullopt;
  uint64_t addr = fit->second, blockSize = fit->first, gap = gapFor(addr);
  eraseFree(freeByAddr_.find(addr));
  if (gap) insertFree(addr, gap);
  if (blockSize > gap + need) insertFree(addr + gap + need, blockSize - gap - need);
  return addr + gap;
}

std::optional<uint64_t> DeviceAllocator::allocate(uint64_t size, uint64_t hostOffset) {
  if (size == 0) size = 1;  // like malloc(0): a unique address
  if (size > size_) return std::nullopt;
  bool paged = size >= kPage;  // below a page, copies do not stall
  hostOffset = paged ? hostOffset % kPage : 0;
  uint64_t inset = hostOffset % kAlignment;
  uint64_t need = (size + inset + kAlignment - 1) / kAlignment * kAlignment;
  std::lock_guard lock(mutex_);
  auto start = carve(need, paged ? std::optional<uint64_t>(hostOffset - inset) : std::nullopt);
  if (!start) return std::nullopt;
  live_[*start] = need;
  if (inset) inset_[*start] = inset;
  used_ += need;
  retained_ -= std::min(retained_, need);
  return *start + inset;
}

bool DeviceAllocator::retain(uint64_t size, uint64_t budget) {
  std::lock_guard lock(mutex_);
  if (retained_ + size > budget) return false;
  retained_ += size;
  return true;
}

uint64_t DeviceAllocator::free(uint64_t address) {
  std::lock_guard lock(mutex_);
  uint64_t addr = address / kAlignment * kAlignment;
  auto it = live_.find(addr);
  if (it == live_.end()) return 0;
  auto inset = inset_.find(addr);
  uint64_t offset = inset == inset_.end() ? 0 : inset->second;
  if (address - addr != offset) return 0;
  if (inset != inset_.end()) inset_.erase(inset);
  uint64_t size = it->second;
  live_.erase(it);
  used_ -= size;
  uint64_t start = addr, len = size;
  // Merge with the free neighbours on both sides.
  auto next = freeByAddr_.lower_bound(addr);
  if (next != freeByAddr_.end() && next->first == addr + size) {
    len += next->second;
    eraseFree(next);
  }
  auto prev = freeByAddr_.lower_bound(addr);
  if (prev != freeByAddr_.begin()) {
    --prev;
    if (prev->first + prev->second == addr) {
      start = prev->first;
      len += prev->second;
      eraseFree(prev);
    }
  }
  insertFree(start, len);
  return size - offset;
}

bool DeviceAllocator::contains(uint64_t addr, uint64_t len) const {
  std::lock_guard lock(mutex_);
  return insideBlock(live_, addr, len);
}

uint64_t DeviceAllocator::used() const {
  std::lock_guard lock(mutex_);
  return used_;
}

uint64_t DeviceAllocator::largestFree() const {
  std::lock_guard lock(mutex_);
  return freeBySize_.empty() ? 0 : freeBySize_.rbegin()->first;
}

}  // namespace ferry::offload
