#include "comm/tag_pool.h"

namespace ferry::comm {

void TagPool::setUpperBound(int ub, Half half) {
  int mid = kFirstDynamicTag + (ub - kFirstDynamicTag) / 2;
  lo_ = half == Half::Issuer ? kFirstDynamicTag : mid + 1;
  hi_ = half == Half::Issuer ? mid : ub;
}

int TagPool::next() {
  uint32_t span = static_cast<uint32_t>(hi_ - lo_ + 1);
  return lo_ + static_cast<int>(counter_.fetch_add(1, std::memory_order_relaxed) % span);
}

}  // namespace ferry::comm
