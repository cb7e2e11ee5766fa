#include "coll/node_area.h"

#include <algorithm>

namespace ferry::coll {
namespace {

constexpr size_t kHeaderBytes = 64;
constexpr size_t kAlign = 4096;  // staging slots start on a page: copies run at full speed

size_t alignUp(size_t v, size_t a) { return (v + a - 1) / a * a; }

size_t controlBytes(int localSize) {
  return alignUp(kHeaderBytes + sizeof(RankLine) * static_cast<size_t>(localSize) + sizeof(LeaderLine), kAlign);
}

}  // namespace

size_t NodeArea::bytesFor(int localSize, int depth, size_t inputSlotBytes, size_t slotBytes) {
  size_t k = static_cast<size_t>(localSize), d = static_cast<size_t>(depth);
  return controlBytes(localSize) + k * d * alignUp(inputSlotBytes, kAlign) + d * alignUp(slotBytes, kAlign);
}

NodeArea::NodeArea(uint8_t* base, int localSize, int depth, size_t inputSlotBytes, size_t slotBytes)
    : localSize_(localSize),
      depth_(depth),
      inputSlotBytes_(alignUp(inputSlotBytes, kAlign)),
      slotBytes_(alignUp(slotBytes, kAlign)) {
  // The segment is fresh and zero-filled, which is the initial value of every counter.
  lines_ = reinterpret_cast<RankLine*>(base + kHeaderBytes);
  leader_ = reinterpret_cast<LeaderLine*>(base + kHeaderBytes + sizeof(RankLine) * static_cast<size_t>(localSize));
  inputs_ = base + controlBytes(localSize);
  results_ = inputs_ + static_cast<size_t>(localSize) * static_cast<size_t>(depth) * inputSlotBytes_;
}

uint64_t NodeArea::lowest(std::atomic<uint64_t> RankLine::*counter) const {
  uint64_t low = UINT64_MAX;
  for (int r = 0; r < localSize_; ++r) low = std::min(low, (lines_[r].*counter).load(std::memory_order_acquire));
  return low;
}

}  // namespace ferry::coll
