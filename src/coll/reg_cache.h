// The registration cache: peers' shared-heap blocks that this process has mapped, so that an
// allreduce on the same buffers maps nothing again. Entries are keyed by (owner pid, address
// range in the owner) and found in O(log n) with an ordered map.
//
// Why entries cannot go stale: the owner publishes, with every call, the generation of the
// block that holds each buffer (shared_heap.h). A cached mapping is used only when its
// generation matches. When the owner frees a block and gets a new one at the same address,
// the generation differs, so the old mapping, which still shows the freed pages, is dropped
// and the new block is mapped. Entries that overlap a newly mapped block are stale by
// construction (the owner's live blocks never overlap) and are dropped too. Buffers outside
// the shared heap never enter the cache: they are read with process_vm_readv, which the
// kernel resolves afresh on every call.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "comm/shm_segment.h"
#include "coll/shared_heap.h"
#include "platform/status.h"

namespace ferry::coll {

class RegCache {
 public:
  explicit RegCache(uint64_t capacityBytes);

  // A mapping of `block` of process `pid`, which holds the buffer at [addr, addr + len) in
  // that process. The mapping stays valid while the caller holds it, even if the cache
  // drops it meanwhile.
  Result<std::shared_ptr<const comm::ShmSegment>> map(pid_t pid, const HeapBlock& block, uint64_t addr, uint64_t len);

  size_t entries() const;
  uint64_t mappedBytes() const;

 private:
  using Key = std::pair<pid_t, uint64_t>;  // owner, block base in the owner
  struct Entry {
    uint64_t size = 0;
    uint64_t gen = 0;
    uint64_t lastUse = 0;
    std::shared_ptr<const comm::ShmSegment> mapping;
  };
  using Map = std::map<Key, Entry>;

  Map::iterator findContaining(pid_t pid, uint64_t addr, uint64_t len);
  void dropOverlapping(pid_t pid, uint64_t base, uint64_t size);
  void evictToFit(uint64_t incoming);
  void erase(Map::iterator it);

  mutable std::mutex mutex_;
  Map entries_;
  uint64_t capacity_;
  uint64_t mapped_ = 0;
  uint64_t clock_ = 0;
};

// The process-wide cache, sized by FERRY_COLL_REG_CACHE.
RegCache& regCache();

}  // namespace ferry::coll
