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

size_t NodeArea::bytesFor(int localSize, int depth, size_t slotBytes, Slots slots) {
  size_t perSet = static_cast<size_t>(depth) * slotBytes;
  size_t bytes = controlBytes(localSize);
  if (slots.inputs) bytes += static_cast<size_t>(localSize) * perSet;
  if (slots.results) bytes += perSet;
  return bytes;
}

NodeArea::NodeArea(uint8_t* base, int localSize, int depth, size_t slotBytes, Slots slots)
    : localSize_(localSize), depth_(depth), slotBytes_(slotBytes) {
  // The segment is fresh and zero-filled, which is the initial value of every counter.
  lines_ = reinterpret_cast<RankLine*>(base + kHeaderBytes);
  leader_ = reinterpret_cast<LeaderLine*>(base + kHeaderBytes + sizeof(RankLine) * static_cast<size_t>(localSize));
  uint8_t* next = base + controlBytes(localSize);
  if (slots.inputs) {
    inputs_ = next;
    next += static_cast<size_t>(localSize) * static_cast<size_t>(depth) * slotBytes;
  }
  if (slots.results) results_ = next;
}

uint64_t NodeArea::lowest(std::atomic<uint64_t> RankLine::*counter) const {
  uint64_t low = UINT64_MAX;
  for (int r = 0; r < localSize_; ++r) low = std::min(low, (lines_[r].*counter).load(std::memory_order_acquire));
  return low;
}

}  // namespace ferry::coll
