#include "coll/reg_cache.h"

#include "coll/settings.h"
#include "coll/stats.h"

namespace ferry::coll {

RegCache::RegCache(uint64_t capacityBytes) : capacity_(capacityBytes) {}

RegCache::Map::iterator RegCache::findContaining(pid_t pid, uint64_t addr, uint64_t len) {
  auto it = entries_.upper_bound({pid, addr});  // first entry starting after addr
  if (it == entries_.begin()) return entries_.end();
  auto prev = std::prev(it);
  if (prev->first.first != pid) return entries_.end();
  uint64_t base = prev->first.second;
  return addr + len <= base + prev->second.size ? prev : entries_.end();
}

void RegCache::erase(Map::iterator it) {
  mapped_ -= it->second.size;
  entries_.erase(it);  // the mapping goes when its last holder lets go of it
}

void RegCache::dropOverlapping(pid_t pid, uint64_t base, uint64_t size) {
  // Candidates start before base + size; walk back from there while they still reach base.
  auto it = entries_.lower_bound({pid, base + size});
  while (it != entries_.begin()) {
    auto prev = std::prev(it);
    if (prev->first.first != pid || prev->first.second + prev->second.size <= base) break;
    erase(prev);
    stats().regInvalidations.fetch_add(1, std::memory_order_relaxed);
  }
}

void RegCache::evictToFit(uint64_t incoming) {
  while (!entries_.empty() && mapped_ + incoming > capacity_) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.lastUse < oldest->second.lastUse) oldest = it;
    erase(oldest);
    stats().regEvictions.fetch_add(1, std::memory_order_relaxed);
  }
}

Result<std::shared_ptr<const comm::ShmSegment>> RegCache::map(pid_t pid, const HeapBlock& block, uint64_t addr,
                                                              uint64_t len) {
  std::lock_guard lock(mutex_);
  auto it = findContaining(pid, addr, len);
  if (it != entries_.end() && it->second.gen == block.gen && it->first.second == block.base) {
    it->second.lastUse = ++clock_;
    stats().regHits.fetch_add(1, std::memory_order_relaxed);
    return it->second.mapping;
  }
  // Whatever this process had mapped in that range belongs to memory the owner has freed.
  dropOverlapping(pid, block.base, block.size);
  evictToFit(block.size);  // eviction is linear, but it runs only on a miss, next to an mmap
  auto seg = comm::ShmSegment::openPeer(pid, block.fd, block.size);
  if (!seg) return seg.takeStatus();
  auto mapping = std::make_shared<const comm::ShmSegment>(std::move(seg.value()));
  entries_[{pid, block.base}] = Entry{block.size, block.gen, ++clock_, mapping};
  mapped_ += block.size;
  stats().regMisses.fetch_add(1, std::memory_order_relaxed);
  return mapping;
}

size_t RegCache::entries() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

uint64_t RegCache::mappedBytes() const {
  std::lock_guard lock(mutex_);
  return mapped_;
}

RegCache& regCache() {
  static RegCache* cache = new RegCache(settings().regCacheBytes);
  return *cache;
}

}  // namespace ferry::coll
